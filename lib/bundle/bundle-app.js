'use strict';
// `coldstart bundle` as a library: capture the app to learn what loads at startup and what
// instrumentation hooks, decide the externals, build with ncc, write the bundle with a minimal
// node_modules beside it, then start it and compare with the original.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { builtinModules } = require('module');
const { CommandError, UsageError } = require('../errors.js');
const { capture } = require('../capture/capture.js');
const { nodeOptionsWithPreload } = require('../capture/launch.js');
const { relativeInside, displayPath } = require('../paths.js');
const { packageName } = require('../package-name.js');
const { parseAppCommand, bundleCommand } = require('./app-command.js');
const { startupPackages } = require('./startup-packages.js');
const { decideExternals, completeExternals, hookTarget } = require('./externals.js');
const { planRuntimeModules } = require('./runtime-modules.js');
const { findPackageDir, readManifest } = require('../package-tree.js');
const { loadingWarnings } = require('./loading-warnings.js');
const { warning } = require('../warnings.js');
const { checkOutDir, writeBundleDir, MARKER } = require('./output.js');
const { verifyBundle, startupReads, readsNotSeen, dirSize } = require('./verify.js');
const { writeFileAtomic } = require('../write-atomic.js');
const { shellWord } = require('../shell-words.js');

const PROBE = path.join(__dirname, '..', 'in-app', 'hook-probe.cjs');
// Package names in require()/import of a file ncc could not reach: their packages must be installed.
const BARE_REQUIRE = /\b(?:require\s*\(\s*|from\s+|import\s*\(\s*)(['"])([^'"./][^'"]*)\1/g;

/**
 * @param {object} opts
 * @param {string[]} opts.command     `node [flags] <entry> [args]`
 * @param {string} opts.cwd
 * @param {object} opts.env
 * @param {string} opts.out           the bundle directory (absolute)
 * @param {string} [opts.root]        app root (default: nearest package.json above the entry)
 * @param {string} [opts.esm]
 * @param {{mode: 'listen'}} opts.until
 * @param {number} opts.timeoutMs
 * @param {string[]} [opts.externals] named with --external
 * @param {boolean} [opts.autoExternal] decide externals from the capture (default true)
 * @param {boolean} [opts.verify]     start the bundle and compare (default true)
 * @param {number} [opts.runs]        timed starts of each for the comparison
 * @param {Array<{method: string, path: string}>} [opts.requests] asked of both, which must answer alike (default GET /)
 * @param {NodeJS.WritableStream} [opts.stdout] the app's output during the first capture
 * @param {NodeJS.WritableStream} [opts.stderr]
 * @param {AbortSignal} [opts.signal]
 * @param {AbortSignal} [opts.force]
 * @param {(text: string) => void} [opts.onProgress] told as each phase begins
 * @returns {Promise<object>} the summary: out, start, externals (with reasons), hookedBuiltins,
 *   preloadPackages, nodeModules, original / bundle (files read, bytes, size on disk), timing, warnings
 */
async function bundleApp(opts) {
  const { command, cwd, env, out } = opts;
  const auto = opts.autoExternal !== false;
  const user = opts.externals || [];
  const onProgress = opts.onProgress || (() => {});
  const parsed = parseAppCommand(command);

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bundle-'));
  try {
    // 1. What loads at startup, and what instrumentation asks require hooks to patch.
    onProgress('running the app to its ready moment');
    const probeLog = path.join(work, 'probe.jsonl');
    const result = await capture({
      command, cwd, until: opts.until, timeoutMs: opts.timeoutMs, root: opts.root, esm: opts.esm, profile: false,
      env: { ...env, NODE_OPTIONS: nodeOptionsWithPreload(PROBE, env.NODE_OPTIONS), COLDSTART_BUNDLE_PROBE: probeLog },
      stdout: opts.stdout, stderr: opts.stderr, signal: opts.signal, force: opts.force,
    });
    if (result.partial) throw new CommandError('interrupted: nothing bundled', { exitCode: 130 });
    const root = result.root;
    checkOutDir(out, root);
    const entryFile = result.mainFile;
    const entryRel = entryFile ? relativeInside(root, entryFile) : null;
    if (!entryRel) throw new UsageError(`the entry ${entryFile} is outside the app root ${root}: give --root`);
    const entryDir = path.dirname(entryFile);
    const probe = readProbe(probeLog);
    const ours = new Set([PROBE, probeLog]);

    // 2. Externals, from the capture and the package manifests.
    const { facts, manifests, decision, preloadPackages, builtins } = externalsOf(result, probe, { ours, user, entryDir, entryRel, root, auto });

    // 3. The build. Preload packages stay external too: the preload loads them from
    //    node_modules, and a second, bundled copy would be a second instance.
    onProgress('building with ncc');
    const { buildBundle } = require('./build.js');
    const nccExternals = [...new Set([...decision.externals.map((e) => e.name), ...(auto ? preloadPackages : [])])].sort();
    const build = await buildBundle({ entry: entryFile, root, externals: nccExternals });
    const final = completeExternals(decision, build, facts.packages, manifests, auto);

    // 4. What goes beside the bundle (besideBundle, below).
    const { copies, placements, warnings } = besideBundle({ root, out, cwd, entryFile, parsed, facts, probe, build, final, preloadPackages, builtins });

    // 5. The bundle directory, whole or not at all.
    onProgress('writing the bundle');
    const { startCommand, manifest } = writeBundle({ command, parsed, cwd, root, entryRel, out, build, final, placements, copies, warnings });

    const { reads: originalReads, ...originalCounts } = startupReads(result, ours);
    const summary = {
      out,
      root,
      start: { command: startCommand, cwd: out },
      externals: final.externals,
      hookedBuiltins: final.hookedBuiltins,
      preloadPackages: final.preloadOnly,
      nodeModules: placements.length,
      original: { readyAt: result.readyAt, ...originalCounts, size: dirSize(root, [out, path.join(root, '.git')]) },
      bundle: { size: dirSize(out), bundleBytes: Buffer.byteLength(build.code), assets: Object.keys(build.assets).length },
      timing: null,
      answers: null,
      warnings,
    };
    if (opts.verify === false) return summary;

    // 6. Start it, from a copy standing alone, and compare.
    await verifyAndRecord(summary, manifest, { command, cwd, out, root, env, opts, originalReads });
    return summary;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Which packages stay outside the bundle: those instrumentation hooks patch, native addons, files
 * read at runtime, the user's --external (each checked to be installed where the entry requires it).
 */
function externalsOf(result, probe, { ours, user, entryDir, entryRel, root, auto }) {
  const facts = startupPackages(result, { ignore: [...ours] });
  const manifests = new Map();
  for (const p of facts.packages.values()) {
    const m = p.dirs.length ? readManifest(p.dirs[0]) : null;
    if (m) manifests.set(p.name, m);
  }
  for (const name of user) {
    if (!resolveFrom(name, [entryDir])) throw new UsageError(`--external ${name}: not installed where ${entryRel} can require it`);
  }
  const builtins = new Set(builtinModules);
  const installed = new Set();
  for (const name of new Set(probe.hooks.flatMap((h) => h.modules))) {
    const target = hookTarget(name, builtins);
    if (target && target.package && !installed.has(target.package) && resolveFrom(target.package, [entryDir])) installed.add(target.package);
  }
  const decision = decideExternals({ packages: facts.packages, hooks: probe.hooks, manifests, installed, root, user, builtins, auto });
  const preloadPackages = [...facts.packages.values()].filter((p) => p.preload).map((p) => p.name);
  return { facts, manifests, decision, preloadPackages, builtins };
}

/** Writes the bundle directory (its package.json starts the bundle as `npm start` started the app); returns its start command and manifest. */
function writeBundle({ command, parsed, cwd, root, entryRel, out, build, final, placements, copies, warnings }) {
  const startCommand = bundleCommand(command, parsed, { cwd, root, entryRel });
  const appManifest = readManifest(root) || {};
  const manifest = {
    command,
    start: { command: startCommand, cwd: '.' },
    entry: entryRel,
    externals: final.externals,
    hookedBuiltins: final.hookedBuiltins,
    preloadPackages: final.preloadOnly,
    nodeModules: placements.map((p) => ({ path: p.dest, version: p.version || null })),
    warnings,
  };
  writeBundleDir({
    out,
    entryRel,
    code: build.code,
    assets: build.assets,
    symlinks: build.symlinks,
    copies: [...copies].map(([to, from]) => ({ from, to })),
    placements,
    packageJson: {
      name: appManifest.name || path.basename(root),
      version: appManifest.version || '0.0.0',
      private: true,
      ...(appManifest.type ? { type: appManifest.type } : {}),
      // `npm start` in the bundle directory starts the bundle, as it started the app.
      scripts: { start: startCommand.map(shellWord).join(' ') },
    },
    manifest,
  });
  return { startCommand, manifest };
}

/**
 * What goes beside the bundle: preload files, files the app reads, app modules ncc could not
 * reach, and node_modules for the externals, the preload and those modules; with the warnings of
 * what the bundle may not do as the app did.
 * @returns {{ copies: Map<string, string>, placements: object[], warnings: object[] }} copies: root-relative path -> source
 */
function besideBundle({ root, out, cwd, entryFile, parsed, facts, probe, build, final, preloadPackages, builtins }) {
  const entryDir = path.dirname(entryFile);
  const warnings = [];
  const copies = new Map(); // relative path -> absolute source
  const copy = (file) => {
    const rel = relativeInside(root, file);
    if (rel && relativeInside(out, file) === null && fs.existsSync(file)) copies.set(rel, file);
    return rel;
  };
  for (const file of facts.app.preload) {
    if (!copy(file)) warnings.push(warning('PRELOAD_OUTSIDE_ROOT', `preload file ${file} is outside the app root: not copied, the start command uses it where it is`, { file }));
  }
  for (const file of facts.app.reads) copy(file);
  const unbundled = facts.app.main.filter((f) => f !== entryFile && !build.appFiles.has(f));
  for (const file of unbundled) copy(file);
  if (unbundled.length) {
    const n = unbundled.length;
    warnings.push(warning('NOT_IN_BUNDLE',
      `${n} app module${n === 1 ? '' : 's'} loaded at startup ${n === 1 ? 'is' : 'are'} not in the bundle (a require ncc cannot follow): ` +
        `copied beside it at the same path, e.g. ${displayPath(root, unbundled[0])}`,
      { files: unbundled.map((f) => displayPath(root, f)) }));
  }
  for (const u of build.unresolved) {
    // A require the original cannot resolve either fails alike in both (or sits in a try).
    if (!resolvesFrom(u.request, u.from)) continue;
    warnings.push(warning('UNRESOLVED_REQUIRE',
      `ncc could not resolve "${u.request}" (required by ${displayPath(root, u.from)}): the bundle throws if that require runs`,
      { request: u.request, from: displayPath(root, u.from) }));
  }
  const sources = facts.app.main.filter((f) => /\.[cm]?[jt]sx?$/.test(f)).map((file) => ({ file, text: readText(file) }));
  warnings.push(...loadingWarnings({ root, readdirs: probe.readdirs, loaded: facts.app.main, sources, bundled: build.appFiles }));

  const roots = new Map();
  const addRoot = (name, dirs) => {
    if (roots.has(name)) return;
    const dir = resolveFrom(name, dirs);
    if (dir) roots.set(name, dir);
  };
  for (const e of final.externals) addRoot(e.name, [entryDir]);
  const preloadDirs = parsed.preloads.filter((p) => p.isPath && !p.spec.startsWith('file:')).map((p) => path.dirname(path.resolve(cwd, p.spec)));
  for (const name of preloadPackages) addRoot(name, [...preloadDirs, cwd, root]);
  const read = new Map(sources.map((s) => [s.file, s.text]));
  for (const file of unbundled) {
    for (const m of (read.get(file) ?? readText(file)).matchAll(BARE_REQUIRE)) {
      const name = packageName(m[2]);
      if (!builtins.has(name) && !name.startsWith('node:')) addRoot(name, [path.dirname(file)]);
    }
  }
  const { placements, missing } = planRuntimeModules([...roots].map(([name, dir]) => ({ name, dir })));
  for (const m of missing) warnings.push(warning('MISSING_DEPENDENCY', `${m.from} depends on ${m.name}, which is not installed: not copied`, { from: m.from, name: m.name }));
  return { copies, placements, warnings };
}

/**
 * The bundle started from its directory and compared with the app (verify.js); what it found goes
 * into the summary and the bundle's marker file. A bundle that does not start or answers otherwise
 * is left to inspect, and the error says where.
 */
async function verifyAndRecord(summary, manifest, { command, cwd, out, root, env, opts, originalReads }) {
  let checked;
  try {
    checked = await verifyBundle({
      original: { command, cwd },
      bundle: { command: summary.start.command, cwd: out },
      env, runs: opts.runs || 3, until: opts.until, timeoutMs: opts.timeoutMs, requests: opts.requests,
      stderr: opts.stderr, signal: opts.signal, force: opts.force, onProgress: opts.onProgress || (() => {}),
    });
  } catch (err) {
    if (err.code === 'BUNDLE_NOT_READY' || err.code === 'BUNDLE_ANSWERS_DIFFER') err.message += ` (the bundle is left in ${displayPath(cwd, out)} to inspect)`;
    throw err;
  }
  const { reads, ...counts } = checked.reads;
  Object.assign(summary.bundle, counts, { readyAt: checked.capture.readyAt });
  summary.timing = checked.timing;
  summary.answers = checked.answers;
  for (const file of readsNotSeen(originalReads, reads)) {
    summary.warnings.push(warning('READ_NOT_SEEN',
      `${displayPath(root, file)} was read at startup by the original but not by the bundle: a path the bundle resolves differently (__dirname-relative?)`,
      { file: displayPath(root, file) }));
  }
  manifest.verify = { answers: summary.answers, timing: summary.timing, original: summary.original, bundle: summary.bundle };
  writeFileAtomic(path.join(out, MARKER), JSON.stringify(manifest, null, 2) + '\n');
}

function resolveFrom(name, dirs) {
  for (const d of dirs) {
    const dir = findPackageDir(name, d);
    if (dir) return dir;
  }
  return null;
}

/** Would Node resolve `request` from the file `from`? */
function resolvesFrom(request, from) {
  if (!from) return false;
  try {
    require.resolve(request, { paths: [path.dirname(from)] });
    return true;
  } catch {
    return false;
  }
}

function readText(file) {
  try {
    return fs.statSync(file).size > 2e6 ? '' : fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The probe's events: hook requests and directory listings. */
function readProbe(file) {
  const hooks = [];
  const readdirs = [];
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch { /* nothing hooked, nothing listed */ }
  for (const line of text.split('\n')) {
    if (!line) continue;
    let event;
    try { event = JSON.parse(line); } catch { continue; }
    if (event.type === 'hook') hooks.push({ modules: event.modules, by: event.by });
    else if (event.type === 'readdir') readdirs.push({ dir: event.dir, by: event.by });
  }
  return { hooks, readdirs };
}

module.exports = { bundleApp };
