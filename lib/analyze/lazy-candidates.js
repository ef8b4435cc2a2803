'use strict';
// Lazy-load advice: modules loaded before the ready moment none of whose functions ran before it,
// grouped by the require/import in the app's code that brought each such subtree in, with the load time deferring
// it would save and the line to change. Pure: the caller hands in a way to read a parent's source.
const path = require('path');
const { displayPath } = require('../paths.js');
const { packageOf } = require('../package-name.js');
const { sourceSitesOf } = require('./source-sites.js');

const APP = '(app)'; // packageOf() of a file outside node_modules
// Below this estimate a finding is noise, not advice.
const MIN_MS = 1;

/**
 * @param {object} result CaptureResult with `coverage` ([{ file, functions, called }])
 * @param {{ readSource?: (file: string) => string|null, minMs?: number }} [options]
 * @returns {Array<{ kind: 'lazy-load', subject, file, line, request, form: 'require'|'import', estimatedMs, evidence, fix }>} largest first
 */
function lazyCandidates(result, options = {}) {
  if (!result.coverage || !result.modules) return [];
  const readSource = options.readSource || (() => null);
  const minMs = options.minMs ?? MIN_MS;
  const root = result.root;
  const show = (file) => (root ? displayPath(root, file) : file);

  const called = new Map(result.coverage.map((c) => [c.file, c.called]));
  const byFile = new Map(result.modules.map((m) => [m.file, m]));
  const children = new Map();
  for (const m of result.modules) {
    if (!m.parent || !byFile.has(m.parent)) continue;
    if (!children.has(m.parent)) children.set(m.parent, []);
    children.get(m.parent).push(m);
  }

  // Unused at startup: code whose functions all stayed at 0 calls, or JSON (data, read by its
  // loader). Anything coverage says nothing about (an addon, a module without a script) counts as used.
  // The entry (and a preload: no parent among the modules) runs by definition, whatever its functions did.
  const unusedSelf = (m) => Boolean(m.parent && byFile.has(m.parent)) && (m.kind === 'json' || called.get(m.file) === 0);
  const allUnused = new Map();
  const subtreeUnused = (m, visiting = new Set()) => {
    if (allUnused.has(m.file)) return allUnused.get(m.file);
    if (visiting.has(m.file)) return true; // a cycle: decided by the module where it started
    visiting.add(m.file);
    const unused = unusedSelf(m) && (children.get(m.file) || []).every((c) => subtreeUnused(c, visiting));
    allUnused.set(m.file, unused);
    return unused;
  };

  const sitesOf = sourceSitesOf(readSource);
  const loadedBy = importerIndex(result);
  const advice = [];
  for (const m of result.modules) {
    const parent = m.parent && byFile.get(m.parent);
    if (!parent || m.kind === 'json' || !subtreeUnused(m)) continue;
    // Inside an unused subtree, a module is that subtree's proposal, unless other files load it too.
    if (subtreeUnused(parent) && (loadedBy.get(show(m.file)) || new Map()).size <= 1) continue;
    const subtree = subtreeOf(m, children);
    // Every file that loads the module before ready, outside what it loads itself: deferring one
    // require saves nothing while another still loads it at startup.
    const importers = importersOf(m, subtree, parent, loadedBy, result, show);
    // The place to change must be the app's own code: what a dependency loads and does not use
    // yet (express's own requires, say) is its authors' choice, and not a change the app can make.
    if (importers.some((i) => packageOf(i.file) !== APP)) continue;
    const estimatedMs = round(m.inclusiveMs - sharedMs(subtree, loadedBy, byFile, show));
    if (!(estimatedMs >= minMs)) continue;
    const sites = [];
    for (const importer of importers) {
      const site = importSite(sitesOf(importer.file), importer.requests);
      if (!site) break;
      sites.push({ file: importer.shown, line: site.line, column: site.column, request: site.request, form: site.form, dynamic: site.dynamic, usedAtLoad: site.typeUse || site.topLevelUse });
    }
    // A site that cannot be named (the source does not parse, a computed request) or that uses the
    // module at load (`extends X`, `app.use(router)`: coverage of calls cannot see it): no proposal.
    if (sites.length !== importers.length || sites.some((x) => x.usedAtLoad)) continue;
    const first = sites.find((x) => x.file === show(parent.file)) || sites[0];
    const subject = m.package !== APP ? m.package : show(m.file);
    const others = sites.filter((x) => x !== first);
    advice.push({
      kind: 'lazy-load',
      subject,
      file: first.file,
      line: first.line,
      column: first.column,
      request: first.request, // as the parent's code writes it
      form: first.form,
      ...(others.length ? { sites: sites.map(({ file, line, column, request }) => ({ file, line, column, request })) } : {}),
      estimatedMs,
      evidence: (subtree.length === 1 ? `1 module loaded before ready (${round(m.inclusiveMs)} ms); none of its functions ran before ready`
        : `${subtree.length} modules loaded before ready (${round(m.inclusiveMs)} ms with what they load); none of their functions ran before ready`) +
        `${others.length ? `; loaded at startup from ${sites.length} places, all of which must change` : ''}${afterReadyUse(subtree, result)}`,
      // profile --after with --request and coverage: the first of coldstart's requests that ran its code.
      ...(usedBy(subtree, result) !== undefined ? { usedBy: usedBy(subtree, result) } : {}),
      fix: fixOf(first) + (others.length ? `, and the same at ${others.map((x) => `${x.file}:${x.line}`).join(', ')}` : ''),
    });
  }
  return advice.sort((a, b) => b.estimatedMs - a.estimatedMs || a.subject.localeCompare(b.subject));
}

const fixOf = (site) => (site.form === 'import' && !site.dynamic
  ? `replace the top-level import of '${site.request}' with \`await import('${site.request}')\` in the function that uses it`
  : `move ${site.form === 'import' ? `import('${site.request}')` : `require('${site.request}')`} into the function that uses it, or \`await import('${site.request}')\` there`);

/**
 * Who loaded what before ready: shown file -> Map(shown importing file -> requests). CommonJS
 * requires by file where the capture has them (`requires`), else by directory (`resolutions`,
 * which name the requiring directory: a module there stands for it); ES module imports by file.
 */
function importerIndex(result) {
  const index = new Map();
  const add = (from, request, to) => {
    if (!index.has(to)) index.set(to, new Map());
    const requests = index.get(to);
    if (!requests.has(from)) requests.set(from, []);
    if (!requests.get(from).includes(request)) requests.get(from).push(request);
  };
  const cjs = result.requires || (result.resolutions || []).map(([dir, request, to]) => [`${dir}/`, request, to]);
  for (const [from, request, to] of [...cjs, ...(result.esmResolutions || [])]) add(from, request, to);
  return index;
}

/**
 * The files that loaded the module before ready, from outside its subtree, each with the requests
 * it used: the module's parent, and every other file whose require/import resolved to it.
 * @returns {Array<{ file: string, shown: string, requests: string[] }>} file absolute when the capture knows it
 */
function importersOf(m, subtree, parent, loadedBy, result, show) {
  const inside = new Set(subtree.map((x) => show(x.file)));
  const absolute = (shown) => (result.root && !path.isAbsolute(shown) ? path.join(result.root, shown) : shown);
  const out = [];
  for (const [from, requests] of loadedBy.get(show(m.file)) || []) {
    if (from.endsWith('/') || inside.has(from)) continue; // a directory (no file to name), or a module that goes with it
    out.push({ file: absolute(from), shown: from, requests });
  }
  if (!out.some((i) => i.shown === show(parent.file))) {
    out.unshift({ file: parent.file, shown: show(parent.file), requests: requestsFor(parent, m, result, show) });
  }
  return out;
}

/** The first require()/import statement of the source that asks for one of `requests`. */
function importSite(sites, requests) {
  if (!sites) return null;
  return sites.imports().find((x) => requests.includes(x.request)) || null;
}

const round = (n) => Math.round(n * 100) / 100;

/**
 * The request (e.g. 'GET /report') that first ran code of the subtree in the window after ready;
 * null when none of the requests did; undefined when that was not watched.
 */
function usedBy(subtree, result) {
  const seen = result.afterReady && result.afterReady.usedBy;
  if (!seen) return undefined;
  const first = subtree.map((s) => seen[s.file]).find(Boolean);
  return first || null;
}

function afterReadyUse(subtree, result) {
  const by = usedBy(subtree, result);
  if (by === undefined) return '';
  return by ? `; first used after ready by ${by}` : '; not used by the requests sent after ready either';
}

function subtreeOf(m, children) {
  const out = [];
  const seen = new Set();
  const stack = [m];
  while (stack.length) {
    const at = stack.pop();
    if (seen.has(at.file)) continue;
    seen.add(at.file);
    out.push(at);
    stack.push(...(children.get(at.file) || []));
  }
  return out;
}

/**
 * Load time inside the subtree that the rest of startup would pay anyway: modules of the subtree
 * also loaded from outside it. Counted once: a shared module inside another shared one is in that
 * one's inclusive time.
 */
function sharedMs(subtree, loadedBy, byFile, show) {
  const inside = new Set(subtree.map((s) => s.file));
  const insideShown = new Set(subtree.map((s) => show(s.file)));
  const insideDirs = new Set(subtree.map((s) => `${show(path.dirname(s.file))}/`));
  const outsider = (from) => (from.endsWith('/') ? !insideDirs.has(from) : !insideShown.has(from));
  const shared = new Set();
  for (const s of subtree.slice(1)) {
    if ([...(loadedBy.get(show(s.file)) || new Map()).keys()].some(outsider)) shared.add(s.file);
  }
  let ms = 0;
  for (const s of subtree) {
    if (!shared.has(s.file)) continue;
    let above = byFile.get(s.parent);
    while (above && inside.has(above.file) && !shared.has(above.file)) above = byFile.get(above.parent);
    if (!above || !inside.has(above.file)) ms += s.inclusiveMs;
  }
  return ms;
}

/** The requests the parent used for the child, from the capture's resolutions; a guess when none. */
function requestsFor(parent, child, result, show) {
  const from = new Set([show(path.dirname(parent.file)), show(parent.file)]);
  const to = new Set([show(child.file), child.file]);
  const found = [...(result.resolutions || []), ...(result.esmResolutions || [])]
    .filter(([f, , t]) => from.has(f) && to.has(t)).map(([, r]) => r);
  if (found.length) return [...new Set(found)];
  if (child.package !== APP) return [child.package];
  let rel = path.relative(path.dirname(parent.file), child.file).split(path.sep).join('/');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return [rel, rel.replace(/\.[cm]?js$/, '')];
}

module.exports = { lazyCandidates };
