'use strict';
// Turns the agent's raw CommonJS and ESM records into one list of modules with
// self and inclusive times (DESIGN.md's CaptureResult.modules). Pure.
const path = require('path');

/** Package a file belongs to: the last node_modules segment decides. */
function packageOf(file) {
  const parts = file.split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  if (i === -1 || i + 1 >= parts.length) return '(app)';
  const name = parts[i + 1];
  if (name.startsWith('@') && i + 2 < parts.length) return `${name}/${parts[i + 2]}`;
  return name;
}

/** The package a bare specifier names: 'express/lib/x' -> 'express', '@scope/pkg/x' -> '@scope/pkg'. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return parts[0].startsWith('@') && parts.length > 1 ? `${parts[0]}/${parts[1]}` : parts[0];
}

const round = (n) => Math.round(n * 1000) / 1000;

/**
 * @param {object} payload what the agent handed over at the ready moment
 * @returns {Array<{file, kind, package, parent, resolveMs, loadMs, selfMs, inclusiveMs, startMs}>}
 */
function moduleRecords(payload) {
  const byFile = new Map();
  const esmParent = new Map();
  for (const e of payload.esm || []) if (e.parent) esmParent.set(e.file, e.parent);

  for (const m of payload.modules || []) {
    if (byFile.has(m.file)) continue; // a module is loaded once; a second record is a re-entry
    byFile.set(m.file, {
      file: m.file,
      kind: m.kind,
      package: packageOf(m.file),
      parent: m.parent || esmParent.get(m.file) || null,
      resolveMs: round(m.resolveMs),
      loadMs: round(m.inclusiveMs - m.resolveMs),
      selfMs: round(Math.max(0, m.inclusiveMs - m.childMs)),
      inclusiveMs: round(m.inclusiveMs),
      startMs: round(m.startMs),
    });
  }

  // ES modules: fetched (resolve + load) on the hooks thread, then evaluated.
  // Their own cost is resolve + load + evaluation; inclusive adds what they imported first.
  const esm = [];
  for (const e of payload.esm || []) {
    if (byFile.has(e.file)) continue; // CommonJS loaded through import: timed as CommonJS
    if (e.format === 'commonjs' || e.format === 'builtin') continue;
    const kind = e.format === 'json' ? 'json' : e.format === 'wasm' ? 'wasm' : 'esm';
    const rec = {
      file: e.file,
      kind,
      package: packageOf(e.file),
      parent: e.parent || null,
      resolveMs: round(e.resolveMs),
      loadMs: round(e.loadMs + (e.evalMs || 0)),
      selfMs: round(e.resolveMs + e.loadMs + (e.evalMs || 0)),
      inclusiveMs: 0,
      startMs: round(e.startMs),
    };
    byFile.set(e.file, rec);
    esm.push(rec);
  }
  const children = new Map();
  for (const rec of byFile.values()) {
    if (!rec.parent || !byFile.has(rec.parent) || byFile.get(rec.parent).kind !== 'esm') continue;
    if (!children.has(rec.parent)) children.set(rec.parent, []);
    children.get(rec.parent).push(rec);
  }
  const visiting = new Set();
  const inclusive = (rec) => {
    if (rec.inclusiveMs) return rec.inclusiveMs;
    if (visiting.has(rec.file)) return 0; // import cycles: count each module once
    visiting.add(rec.file);
    let sum = rec.selfMs;
    for (const c of children.get(rec.file) || []) sum += c.kind === 'esm' ? inclusive(c) : c.inclusiveMs;
    visiting.delete(rec.file);
    rec.inclusiveMs = round(sum);
    return rec.inclusiveMs;
  };
  for (const rec of esm) inclusive(rec);

  return [...byFile.values()].sort((a, b) => a.startMs - b.startMs || a.file.localeCompare(b.file));
}

/** Posix path of `file` relative to `root`, or null when it is outside. */
function relativeInside(root, file) {
  const rel = path.relative(root, file);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

/** How messages show a file: relative to root when inside it ('.' for root itself), else as given. */
function displayPath(root, file) {
  if (path.resolve(root) === path.resolve(file)) return '.';
  return relativeInside(root, file) || file;
}

module.exports = { moduleRecords, packageOf, packageName, relativeInside, displayPath };
