'use strict';
// Garbage collection and idle time inside each module's own load window. A collection runs
// whenever the heap fills up, so it lands on whichever module happens to be loading: a 1 kB
// file can show 14 ms of "self time" that is a GC of everything allocated before it. With these
// figures apart, a module's self time is its own work. Pure: records and a profile in, figures out.
const { timedSamples } = require('./cpuprofile-categories.js');
const { ownSegments } = require('./own-segments.js');

// Leaf frames V8 gives the time that is not the app's work.
const APART = new Map([['(garbage collector)', 'gcMs'], ['(idle)', 'idleMs']]);

/** A module's windows on the readyAt clock (ms): as captured, or from a report's figures. */
function windowsOf(m) {
  if (Array.isArray(m.windows)) return m.windows;
  if (m.kind === 'esm' || m.kind === 'wasm') return m.evalStartMs != null && m.evalMs > 0 ? [[m.evalStartMs, m.evalStartMs + m.evalMs]] : [];
  return m.inclusiveMs > 0 ? [[m.startMs, m.startMs + m.inclusiveMs]] : [];
}

/**
 * @param {Array<object>} modules CaptureResult.modules (windows, else startMs, inclusiveMs and for
 *   ES modules evalStartMs, evalMs), times in ms on the readyAt clock
 * @param {object} profile the trimmed V8 CPU profile
 * @param {(ms: number) => number} toProfileUs maps a readyAt-clock time to the profile clock
 * @returns {Map<string, { gcMs: number, idleMs: number }>} for every module (zero when none)
 */
function gcByModule(modules, profile, toProfileUs) {
  const out = new Map(modules.map((m) => [m.file, { gcMs: 0, idleMs: 0 }]));
  const segments = ownSegments(modules.flatMap((m) => windowsOf(m).map(([from, to]) => ({ from: toProfileUs(from), to: toProfileUs(to), file: m.file }))));
  if (!segments.length) return out;
  const leafName = new Map((profile.nodes || []).map((n) => [n.id, n.callFrame && n.callFrame.functionName]));
  for (const s of timedSamples(profile)) {
    const field = APART.get(leafName.get(s.id));
    if (!field || !(s.weight > 0)) continue;
    // A collection is work on the CPU: a gap after its sample is the machine's, not the collection's.
    const end = s.t + (field === 'gcMs' ? s.onCpu : s.weight);
    // First segment that ends after the sample starts; walk while they overlap it.
    let lo = 0;
    let hi = segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (segments[mid].to <= s.t) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < segments.length && segments[i].from < end; i++) {
      const overlap = Math.min(end, segments[i].to) - Math.max(s.t, segments[i].from);
      if (overlap > 0) out.get(segments[i].file)[field] += overlap / 1000;
    }
  }
  return out;
}

module.exports = { gcByModule };
