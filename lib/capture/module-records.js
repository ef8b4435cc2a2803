'use strict';
// Turns the agent's raw CommonJS and ESM records into one list of modules with
// self and inclusive times (DESIGN.md's CaptureResult.modules). Pure.
const { packageOf } = require('../package-name.js');

const round = (n) => Math.round(n * 1000) / 1000;

/**
 * @param {object} payload what the agent handed over at the ready moment
 * @returns {Array<{file, kind, package, parent, resolveMs, loadMs, selfMs, cpuSelfMs?, inclusiveMs, startMs}>}
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
      // The CPU its own load used (its resolution included, modules it loaded excluded): selfMs
      // minus the time it was not running. Absent from agents that do not measure it.
      ...(Number.isFinite(m.cpuMs) ? { cpuSelfMs: round(Math.max(0, m.cpuMs - (m.childCpuMs || 0))), cpuInclusiveMs: round(Math.max(0, m.cpuMs)) } : {}),
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
      // Its evaluation, on the main thread: where GC inside its own time can be found.
      evalStartMs: e.evalStartMs == null ? null : round(e.evalStartMs),
      evalMs: e.evalMs == null ? null : round(e.evalMs),
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

module.exports = { moduleRecords };
