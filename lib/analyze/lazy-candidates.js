'use strict';
// Lazy-load advice: modules loaded before the ready moment none of whose functions ran before it,
// grouped by the require/import in the app's code that brought each such subtree in, with the load time deferring
// it would save and the line to change. Pure: the caller hands in a way to read a parent's source.
const path = require('path');
const { displayPath } = require('../paths.js');

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

  const advice = [];
  for (const m of result.modules) {
    const parent = m.parent && byFile.get(m.parent);
    if (!parent || m.kind === 'json' || !subtreeUnused(m) || subtreeUnused(parent)) continue;
    // The place to change must be the app's own code: what a dependency loads and does not use
    // yet (express's own requires, say) is its authors' choice, and not a change the app can make.
    if (parent.package !== APP) continue;
    const subtree = subtreeOf(m, children);
    const estimatedMs = round(m.inclusiveMs - sharedMs(subtree, result, byFile, show));
    if (!(estimatedMs >= minMs)) continue;
    const requests = requestsFor(parent, m, result, show);
    const source = readSource(parent.file);
    const site = source == null ? null : requireSite(source, requests);
    if (site && site.typeUse) continue; // `extends X` / `instanceof X`: used at load, coverage cannot see it
    const request = site ? site.request : requests[0];
    const subject = m.package !== APP ? m.package : show(m.file);
    advice.push({
      kind: 'lazy-load',
      subject,
      file: show(parent.file),
      line: site ? site.line : null,
      request, // as the parent's code writes it
      form: site ? site.form : 'require',
      estimatedMs,
      evidence: `${subtree.length} module${subtree.length === 1 ? '' : 's'} loaded before ready ` +
        `(${round(m.inclusiveMs)} ms with what they load); none of their functions ran before ready${afterReadyUse(subtree, result)}`,
      // profile --after with --request and coverage: the first of coldstart's requests that ran its code.
      ...(usedBy(subtree, result) !== undefined ? { usedBy: usedBy(subtree, result) } : {}),
      fix: site && site.form === 'import'
        ? `replace the top-level import of '${request}' with \`await import('${request}')\` in the function that uses it`
        : `move require('${request}') into the function that uses it, or \`await import('${request}')\` there`,
    });
  }
  return advice.sort((a, b) => b.estimatedMs - a.estimatedMs || a.subject.localeCompare(b.subject));
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
 * also resolved from outside it. A CommonJS resolution names the requiring directory, not the
 * file: one from a directory holding a module of the subtree is taken as the subtree's own.
 */
function sharedMs(subtree, result, byFile, show) {
  const inside = new Set(subtree.map((s) => s.file));
  const insideDirs = new Set(subtree.map((s) => show(path.dirname(s.file))));
  const insideRel = new Set(subtree.map((s) => show(s.file)));
  const shared = new Set();
  for (const [from, , to] of result.resolutions || []) {
    if (insideRel.has(to) && !insideDirs.has(from) && to !== show(subtree[0].file)) shared.add(to);
  }
  for (const [from, , to] of result.esmResolutions || []) {
    if (insideRel.has(to) && !insideRel.has(from) && to !== show(subtree[0].file)) shared.add(to);
  }
  let ms = 0;
  for (const s of subtree) {
    if (!shared.has(show(s.file))) continue;
    // Counted once: a shared module inside another shared one is in that one's inclusive time.
    let above = byFile.get(s.parent);
    while (above && inside.has(above.file) && !shared.has(show(above.file))) above = byFile.get(above.parent);
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

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The first require()/import of one of `requests` in the source: its line (1-based), the request,
 * its form ('require' or 'import') and whether the binding it is assigned to is used by `extends` or `instanceof` in that file.
 */
function requireSite(source, requests) {
  let best = null;
  for (const request of requests) {
    const q = `(['"\`])${escape(request)}\\1`;
    const re = new RegExp(`\\brequire\\s*\\(\\s*${q}\\s*\\)|\\bimport\\s*\\(\\s*${q}|\\bfrom\\s*${q}|\\bimport\\s*${q}`, 'g');
    const match = re.exec(source);
    if (match && (!best || match.index < best.index)) best = { index: match.index, request, form: /^require/.test(match[0]) ? 'require' : 'import' };
  }
  if (!best) return null;
  const before = source.slice(0, best.index);
  const line = before.split('\n').length;
  const names = bindingNames(before.slice(before.lastIndexOf('\n') + 1), source.slice(best.index));
  const typeUse = /\bextends\s*\(?\s*$/.test(before) ||
    names.some((n) => new RegExp(`\\b(?:extends|instanceof)\\s+${escape(n)}\\b`).test(source));
  return { line, request: best.request, form: best.form, typeUse };
}

/** The names a require/import statement binds (`const X = require`, `const { a, b: c } =`, `import X, { y as z } from`). */
function bindingNames(lineBefore, rest) {
  let m = /\b(?:const|let|var)\s+([\w$]+)\s*=\s*(?:await\s+)?$/.exec(lineBefore);
  if (m) return [m[1]];
  m = /\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*(?:await\s+)?$/.exec(lineBefore);
  if (m) return m[1].split(',').map((p) => p.split(':').pop().split('=')[0].trim()).filter(Boolean);
  m = /\bimport\s+([\s\S]*?)\s*$/.exec(lineBefore);
  if (m && /^from\b/.test(rest)) {
    return m[1].replace(/[{}]/g, ',').split(',').map((p) => p.trim().split(/\s+as\s+/).pop().replace(/^\*\s*/, '').trim())
      .filter((n) => /^[\w$]+$/.test(n));
  }
  return [];
}

module.exports = { lazyCandidates, requireSite };
