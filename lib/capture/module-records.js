'use strict';
// Turns the agent's raw CommonJS and ES module records into one list of modules with self and
// inclusive times (DESIGN.md's CaptureResult.modules). A module's self time is the part of
// startup its own windows own (analyze/own-segments.js): never two modules' time counted twice.
// Pure: records (and the CPU profile, where ES module evaluation was not marked) in, modules out.
const { pathToFileURL } = require('url');
const { packageOf } = require('../package-name.js');
const { ownSegments, ownTotals } = require('../analyze/own-segments.js');
const { msSinceStart } = require('../in-app/ready-moment.cjs');

const round = (n) => Math.round(n * 1000) / 1000;

/**
 * @param {object} payload what the agent handed over at the ready moment
 * @param {{ profile?: object, clock?: { startUs: number, pausedUs: number } }} [sampled] the CPU
 *   profile and its clock: ES modules whose evaluation no hook marked (require(esm) on Node 20)
 *   get it from the samples where their top-level code was the innermost module code running
 * @returns {Array<{file, kind, package, parent, resolveMs, loadMs, selfMs, cpuSelfMs?, inclusiveMs,
 *   startMs, windows}>} windows: [from, to] ms on the readyAt clock, on the app's thread
 */
function moduleRecords(payload, sampled = {}) {
  const byFile = new Map();
  const esmParent = new Map();
  for (const e of payload.esm || []) if (e.parent) esmParent.set(e.file, e.parent);
  for (const m of payload.modules || []) {
    if (byFile.has(m.file)) continue; // a module is loaded once; a second record is a re-entry
    byFile.set(m.file, commonJsRecord(m, esmParent));
  }
  const esm = esmRecords(payload.esm || [], byFile);
  const unmarked = unmarkedEsmRecords(payload.esmReads || [], byFile);
  esm.push(...unmarked);
  if (unmarked.length && sampled.profile && sampled.clock) addSampledEvaluation(unmarked, sampled.profile, sampled.clock);
  const records = [...byFile.values()];
  addSelfTimes(records, esm);
  addEsmInclusive(records, esm, byFile);
  return records.sort((a, b) => a.startMs - b.startMs || a.file.localeCompare(b.file));
}

function commonJsRecord(m, esmParent) {
  return {
    file: m.file,
    kind: m.kind,
    package: packageOf(m.file),
    parent: m.parent || esmParent.get(m.file) || null,
    resolveMs: round(m.resolveMs),
    loadMs: round(m.inclusiveMs - m.resolveMs),
    selfMs: 0,
    // The CPU its own load used (its resolution included, modules it loaded excluded): selfMs
    // minus the time it was not running. Absent from agents that do not measure it.
    ...(Number.isFinite(m.cpuMs) ? { cpuSelfMs: round(Math.max(0, m.cpuMs - (m.childCpuMs || 0))), cpuInclusiveMs: round(Math.max(0, m.cpuMs)) } : {}),
    inclusiveMs: round(m.inclusiveMs),
    startMs: round(m.startMs),
    windows: [[m.startMs, m.startMs + m.inclusiveMs]],
  };
}

// ES modules: fetched (resolve + load: on the app's thread with in-thread hooks, else on the
// hooks thread beside it), then evaluated. Inclusive adds what they imported first.
function esmRecords(hooked, byFile) {
  const esm = [];
  for (const e of hooked) {
    const evaluated = e.evalStartMs != null && e.evalMs > 0 ? [[e.evalStartMs, e.evalStartMs + e.evalMs]] : [];
    const required = byFile.get(e.file);
    if (required) {
      // require() of an ES module: the CommonJS record's window holds its whole graph's load.
      if (e.format === 'module') Object.assign(required, { kind: 'esm', evalStartMs: e.evalStartMs == null ? null : round(e.evalStartMs), evalMs: e.evalMs == null ? null : round(e.evalMs) });
      required.windows.push(...(e.importWindows || []));
      continue;
    }
    if (e.format === 'commonjs' || e.format === 'builtin') continue;
    // On the app's thread its load runs on until it is compiled (esm-timing.cjs's cut).
    const fetched = e.thread === 'main' ? [[e.resolveStartMs, e.resolveStartMs + e.resolveMs], [e.loadStartMs, e.loadStartMs + Math.max(e.loadMs, e.compiledMs || 0)]] : [];
    const rec = {
      file: e.file,
      kind: e.format === 'json' ? 'json' : e.format === 'wasm' ? 'wasm' : 'esm',
      package: packageOf(e.file),
      parent: e.parent || null,
      resolveMs: round(e.resolveMs),
      loadMs: round(Math.max(e.loadMs, e.compiledMs || 0) + (e.evalMs || 0)),
      selfMs: 0,
      inclusiveMs: 0,
      startMs: round(e.startMs),
      // Its evaluation, on the main thread: where GC inside its own time can be found.
      evalStartMs: e.evalStartMs == null ? null : round(e.evalStartMs),
      evalMs: e.evalMs == null ? null : round(e.evalMs),
      evalCpuMs: e.evalCpuMs ?? null,
      // Its resolve, load, compile and imports' resolutions on the app's thread, on both clocks.
      ...(e.thread === 'main' && Number.isFinite(e.fetchCpuUs) ? {
        fetchCpuMs: e.fetchCpuUs / 1000,
        fetchWallMs: (e.resolveMs || 0) + Math.max(e.loadMs, e.compiledMs || 0) + (e.importWindows || []).reduce((sum, [from, to]) => sum + (to - from), 0),
      } : {}),
      windows: [...fetched.filter(([from]) => Number.isFinite(from)), ...(e.importWindows || []), ...evaluated],
    };
    byFile.set(e.file, rec);
    esm.push(rec);
  }
  return esm;
}

// ES modules Node's loader read on the app's thread with no hook timing them: their read is
// their load; their evaluation comes from the CPU profile.
function unmarkedEsmRecords(reads, byFile) {
  const unmarked = [];
  for (const r of reads) {
    if (byFile.has(r.file)) continue;
    const rec = {
      file: r.file,
      kind: 'esm',
      package: packageOf(r.file),
      parent: r.parent || null,
      resolveMs: 0,
      loadMs: round(r.loadMs),
      selfMs: 0,
      inclusiveMs: 0,
      startMs: round(r.startMs),
      evalStartMs: null,
      evalMs: null,
      windows: [[r.startMs, r.startMs + r.loadMs]],
    };
    byFile.set(r.file, rec);
    unmarked.push(rec);
  }
  // The module that required such a graph is an ES module itself (require(esm)): the graph's
  // reads happened inside its load.
  for (const rec of unmarked) {
    const top = rec.parent && byFile.get(rec.parent);
    if (top && top.kind === 'cjs') top.kind = 'esm';
  }
  return unmarked;
}

/** Each module's self time: the part of startup its own windows own (analyze/own-segments.js). */
function addSelfTimes(records, esm) {
  const own = ownTotals(ownSegments(records.flatMap((m) => m.windows.map(([from, to]) => ({ from: Math.max(0, from), to, file: m.file })))));
  for (const m of records) m.selfMs = round(own.get(m.file) || 0);
  // An ES module's evaluation, and its fetch on the app's thread, are timed on both clocks: what
  // it waited off the CPU is not its own (as a CommonJS module's CPU time says). The process's CPU
  // clock counts V8's helper threads too: each part capped at its wall time.
  const offCpu = (wallMs, cpuMs) => (wallMs > 0 && cpuMs != null ? wallMs - Math.min(cpuMs, wallMs) : 0);
  for (const m of esm) {
    if (m.evalCpuMs == null && m.fetchCpuMs == null) continue;
    m.cpuSelfMs = round(Math.max(0, m.selfMs - offCpu(m.evalMs, m.evalCpuMs) - offCpu(m.fetchWallMs, m.fetchCpuMs)));
  }
}

/** An ES module's inclusive time: its self time and that of the modules it imported (each counted once). */
function addEsmInclusive(records, esm, byFile) {
  const children = new Map();
  for (const rec of records) {
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
    for (const c of children.get(rec.file) || []) sum += inclusive(c);
    visiting.delete(rec.file);
    rec.inclusiveMs = round(sum);
    return rec.inclusiveMs;
  };
  for (const rec of esm) inclusive(rec);
}

/**
 * Evaluation windows from the CPU profile: each sample belongs to the innermost module top-level
 * code on its stack (a module's code runs as a function at line 0, column 0 of its file); runs of
 * samples of one unmarked ES module become its windows, and their sum its evaluation time.
 */
function addSampledEvaluation(unmarked, profile, clock) {
  const { timedSamples } = require('../analyze/cpuprofile-categories.js');
  const byUrl = new Map(unmarked.map((rec) => [pathToFileURL(rec.file).href, rec]));
  const nodes = new Map((profile.nodes || []).map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of nodes.values()) for (const c of n.children || []) parentOf.set(c, n.id);
  const owners = new Map(); // node id -> unmarked record or null
  const ownerOf = (id) => {
    if (owners.has(id)) return owners.get(id);
    const n = nodes.get(id);
    const f = n && n.callFrame;
    let owner;
    if (!n) owner = null;
    else if (f && f.url && f.functionName === '' && f.lineNumber === 0 && f.columnNumber === 0) owner = byUrl.get(f.url) || null;
    else owner = parentOf.has(id) ? ownerOf(parentOf.get(id)) : null;
    owners.set(id, owner);
    return owner;
  };
  const toMs = (us) => msSinceStart(us, clock.startUs, clock.pausedUs);
  let last = null;
  for (const s of timedSamples(profile)) {
    const rec = ownerOf(s.id);
    if (!rec || !(s.weight > 0)) { last = null; continue; }
    const from = toMs(s.t);
    const to = toMs(s.t + s.weight);
    if (last && last.rec === rec) last.window[1] = to;
    else {
      last = { rec, window: [from, to] };
      rec.windows.push(last.window);
      if (rec.evalStartMs == null) rec.evalStartMs = round(from);
    }
    rec.evalMs = round((rec.evalMs || 0) + s.weight / 1000);
  }
  for (const rec of unmarked) rec.loadMs = round(rec.loadMs + (rec.evalMs || 0));
}

module.exports = { moduleRecords };
