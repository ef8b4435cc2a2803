'use strict';
// Which packages must stay out of the bundle, each with the reasons why. A bundle hides its
// modules from require hooks (opentelemetry-js #2708, #4174; cloud-trace-nodejs #774), cannot
// hold native addons, and moves files that packages read relative to themselves (ncc #1036).
// Pure: facts from the capture and the package manifests in, decisions out.
const path = require('path');
const { packageOf, packageName } = require('../package-name.js');
const { displayPath } = require('../paths.js');

const HOOK_LIBRARIES = ['require-in-the-middle', 'import-in-the-middle'];

/** 'express' | '@scope/pkg/lib/x.js' | '/abs/node_modules/pg/lib/index.js' | 'node:http' -> package or builtin name. */
function hookTarget(name, builtins) {
  const bare = name.startsWith('node:') ? name.slice(5) : name;
  if (builtins.has(bare) || builtins.has(bare.split('/')[0])) return { builtin: bare.split('/')[0] };
  if (path.isAbsolute(name)) {
    const pkg = packageOf(name);
    return pkg === '(app)' ? null : { package: pkg };
  }
  return { package: packageName(bare) };
}

/** Who asked for a hook, for people: a package name or a path inside the app. */
function askedBy(file, root) {
  if (!file) return 'an instrumentation';
  const pkg = packageOf(file);
  if (pkg !== '(app)') return pkg;
  return root ? displayPath(root, file) : file;
}

function shortList(items, n = 3) {
  return items.length <= n ? items.join(', ') : `${items.slice(0, n).join(', ')} and ${items.length - n} more`;
}

/** Path of a file inside its package directory, for messages. */
function insidePackage(file, dirs) {
  const dir = dirs.find((d) => file.startsWith(d + path.sep));
  return (dir ? path.relative(dir, file) : path.basename(file)).split(path.sep).join('/');
}

/**
 * The hook libraries a package reaches through its dependencies: [] when none, else the
 * chain (e.g. ['@opentelemetry/instrumentation', 'require-in-the-middle']).
 */
function hookChains(manifests) {
  const memo = new Map();
  const visit = (name, stack) => {
    if (memo.has(name)) return memo.get(name);
    if (stack.has(name)) return [];
    stack.add(name);
    const m = manifests.get(name);
    let chain = [];
    for (const dep of m ? Object.keys({ ...m.dependencies, ...m.optionalDependencies }) : []) {
      if (HOOK_LIBRARIES.includes(dep)) { chain = [dep]; break; }
      if (!manifests.has(dep)) continue; // not loaded: nothing it could hook with
      const sub = visit(dep, stack);
      if (sub.length) { chain = [dep, ...sub]; break; }
    }
    stack.delete(name);
    memo.set(name, chain);
    return chain;
  };
  return (name) => visit(name, new Set());
}

/**
 * Decides the externals before the build.
 * @param {object} facts
 * @param {Map<string, {name, files: string[], addons: string[], reads: string[], dirs: string[], main: boolean, preload: boolean}>} facts.packages from startupPackages
 * @param {Array<{modules: string[], by: string|null}>} facts.hooks what instrumentation asked require/import hooks to patch
 * @param {Map<string, {dependencies?: object, optionalDependencies?: object}>} facts.manifests package.json of each loaded package
 * @param {Set<string>} facts.installed hooked package names the app can resolve (loaded at startup or not)
 * @param {Set<string>} facts.builtins Node's built-in module names
 * @param {string} [facts.root]
 * @param {string[]} [facts.user] names given with --external
 * @param {boolean} [facts.auto] false: only --external (and nothing decided here)
 * @returns {{ externals: Array<{name: string, reasons: Array<{code: string, detail: string}>}>,
 *             hookedBuiltins: Array<{name: string, by: string}>, preloadOnly: string[] }}
 */
function decideExternals(facts) {
  const { packages, hooks = [], manifests = new Map(), installed = new Set(), builtins = new Set(), root, user = [], auto = true } = facts;
  const reasons = new Map(); // name -> [{code, detail}]
  const add = (name, code, detail) => {
    if (!reasons.has(name)) reasons.set(name, []);
    const list = reasons.get(name);
    if (!list.some((r) => r.code === code)) list.push({ code, detail });
  };

  for (const name of user) add(name, 'USER', 'named with --external');

  const hookedBuiltins = new Map();
  if (auto) {
    // 1. Modules an instrumentation patches when they are required: a bundle would require
    //    its own copy, which the hook never sees.
    const askers = new Map(); // package -> Set of who asked
    for (const h of hooks) {
      for (const name of h.modules) {
        const target = hookTarget(name, builtins);
        if (!target) continue;
        const who = askedBy(h.by, root);
        if (target.builtin) {
          if (!hookedBuiltins.has(target.builtin)) hookedBuiltins.set(target.builtin, new Set());
          hookedBuiltins.get(target.builtin).add(who);
          continue;
        }
        if (!askers.has(target.package)) askers.set(target.package, new Set());
        askers.get(target.package).add(who);
      }
    }
    for (const [name, who] of askers) {
      if (!installed.has(name) && !packages.has(name)) continue; // hooked but not part of this app
      const when = packages.has(name) ? 'loaded at startup' : 'not loaded at startup, but installed';
      add(name, 'HOOKED', `patched through require hooks by ${shortList([...who].sort())} (${when})`);
    }

    const chainOf = hookChains(manifests);
    for (const p of packages.values()) {
      if (!p.main) continue; // only the entry's side is bundled; preload packages stay files anyway
      // 2. The hook machinery itself: bundled, it would patch the bundle's require, not node_modules'.
      const chain = HOOK_LIBRARIES.includes(p.name) ? [] : chainOf(p.name);
      if (HOOK_LIBRARIES.includes(p.name)) add(p.name, 'INSTRUMENTATION', 'installs require/import hooks');
      else if (chain.length) {
        const via = chain.length > 1 ? ` through ${chain.slice(0, -1).join(' > ')}` : '';
        add(p.name, 'INSTRUMENTATION', `instrumentation: depends on ${chain[chain.length - 1]}${via}`);
      }
      // 3. Native addons cannot live inside a JavaScript file.
      if (p.addons.length) add(p.name, 'NATIVE_ADDON', `loads native addon ${shortList(p.addons.map((f) => insidePackage(f, p.dirs)))}`);
      // 4. Files a package reads relative to itself at runtime (.proto, templates, schemas).
      if (p.reads.length) add(p.name, 'READS_OWN_FILES', `reads its own files at startup: ${shortList(p.reads.map((f) => insidePackage(f, p.dirs)))}`);
    }
  }

  const externals = [...reasons].map(([name, list]) => ({ name, reasons: list }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const external = new Set(externals.map((e) => e.name));
  const preloadOnly = [...packages.values()].filter((p) => p.preload && !external.has(p.name)).map((p) => p.name).sort();
  return {
    externals,
    hookedBuiltins: [...hookedBuiltins].map(([name, who]) => ({ name, by: shortList([...who].sort()) })).sort((a, b) => a.name.localeCompare(b.name)),
    preloadOnly,
  };
}

/** Names reachable from `roots` through dependencies, by manifest (versions ignored). */
function dependencyNames(roots, manifests, includeRoots = true) {
  const seen = new Set();
  const depsOf = (name) => {
    const m = manifests.get(name);
    return m ? Object.keys({ ...m.dependencies, ...m.optionalDependencies, ...m.peerDependencies }) : [];
  };
  const todo = includeRoots ? [...roots] : roots.flatMap(depsOf);
  while (todo.length) {
    const name = todo.pop();
    if (seen.has(name)) continue;
    seen.add(name);
    todo.push(...depsOf(name));
  }
  return seen;
}

/**
 * Completes the decision once the bundle exists: drops hooked packages the bundle does not use,
 * adds packages the bundle shares with the preload, and packages loaded at startup that the
 * bundle does not contain (a require ncc cannot follow).
 * @param {ReturnType<typeof decideExternals>} decision
 * @param {object} build
 * @param {Set<string>} build.bundled packages with at least one file inside the bundle
 * @param {Set<string>} build.referenced external package names the bundle requires
 * @param {Map} packages from startupPackages
 * @param {Map} manifests
 * @param {boolean} [auto]
 * @returns {ReturnType<typeof decideExternals>} a new decision
 */
function completeExternals(decision, build, packages, manifests, auto = true) {
  const byName = new Map(decision.externals.map((e) => [e.name, { name: e.name, reasons: e.reasons.slice() }]));
  const add = (name, code, detail) => {
    if (!byName.has(name)) byName.set(name, { name, reasons: [] });
    const e = byName.get(name);
    if (!e.reasons.some((r) => r.code === code)) e.reasons.push({ code, detail });
  };
  if (auto) {
    // Hooked packages the app neither loaded at startup nor requires from the bundle: nothing
    // to keep (they were external to the build only in case the bundle needed them).
    for (const [name, e] of byName) {
      if (e.reasons.every((r) => r.code === 'HOOKED') && !packages.has(name) && !build.referenced.has(name)) byName.delete(name);
    }
    for (const name of decision.preloadOnly) {
      if (build.referenced.has(name)) add(name, 'SHARED_WITH_PRELOAD', 'also loaded by the preload: kept external so both use one instance');
    }
    // Dependencies of what stays in node_modules are loaded from there, not through the bundle.
    const covered = dependencyNames([...byName.keys(), ...decision.preloadOnly], manifests, false);
    for (const p of packages.values()) {
      if (!p.main || p.preload || build.bundled.has(p.name) || build.referenced.has(p.name) || covered.has(p.name)) continue;
      add(p.name, 'DYNAMIC_REQUIRE', 'loaded at startup through a require ncc cannot follow (a computed name)');
    }
  }
  const externals = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const external = new Set(externals.map((e) => e.name));
  return { ...decision, externals, preloadOnly: decision.preloadOnly.filter((n) => !external.has(n)) };
}

module.exports = { decideExternals, completeExternals, hookTarget };
