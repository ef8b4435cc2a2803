'use strict';
// Garbage collection, idle time and the profile's gaps inside each module's own load window. A
// collection runs whenever the heap fills up, so it lands on whichever module happens to be
// loading: a 1 kB file can show 14 ms of "self time" that is a GC of everything allocated before
// it. A gap between samples is time the thread was not running (a busy machine, a slow syscall):
// where the kernel's CPU clock cannot be trusted (gVisor counts a thread's waits as its CPU) it is
// what tells a module's own work from the machine's. With these figures apart, a module's self
// time is its own work. Pure: records and a profile in, figures out.
const { timedSamples } = require('./cpuprofile-categories.js');
const { ownSegments, firstEndingAfter } = require('./own-segments.js');

// Leaf frames V8 gives the time that is not the app's work.
const APART = new Map([['(garbage collector)', 'gcMs'], ['(idle)', 'idleMs']]);

/** A module's windows on the readyAt clock (ms): as captured, or from a report's figures. */
function windowsOf(m) {
  if (Array.isArray(m.windows)) return m.windows;
  if (m.kind === 'esm' || m.kind === 'wasm') return m.evalStartMs != null && m.evalMs > 0 ? [[m.evalStartMs, m.evalStartMs + m.evalMs]] : [];
  return m.inclusiveMs > 0 ? [[m.startMs, m.startMs + m.inclusiveMs]] : [];
}

/** Whose each moment of startup was (own-segments.js), on the CPU profile's clock. */
function segmentsOnProfile(modules, toProfileUs) {
  return ownSegments(modules.flatMap((m) => windowsOf(m).map(([from, to]) => ({ from: toProfileUs(from), to: toProfileUs(to), file: m.file }))));
}

/**
 * @param {Array<object>} modules CaptureResult.modules (windows, else startMs, inclusiveMs and for
 *   ES modules evalStartMs, evalMs), times in ms on the readyAt clock
 * @param {object} profile the trimmed V8 CPU profile
 * @param {(ms: number) => number} toProfileUs maps a readyAt-clock time to the profile clock
 * @returns {Map<string, { gcMs: number, idleMs: number, gapMs: number }>} for every module (zero
 *   when none); gapMs: the time after its samples the profile saw the thread not running
 */
function gcByModule(modules, profile, toProfileUs) {
  const out = new Map(modules.map((m) => [m.file, { gcMs: 0, idleMs: 0, gapMs: 0 }]));
  const segments = segmentsOnProfile(modules, toProfileUs);
  if (!segments.length) return out;
  const leafName = new Map((profile.nodes || []).map((n) => [n.id, n.callFrame && n.callFrame.functionName]));
  const add = (field, from, to) => {
    // From the first segment that ends after `from`, while they overlap [from, to).
    for (let i = firstEndingAfter(segments, from); i < segments.length && segments[i].from < to; i++) {
      const overlap = Math.min(to, segments[i].to) - Math.max(from, segments[i].from);
      if (overlap > 0) out.get(segments[i].file)[field] += overlap / 1000;
    }
  };
  for (const s of timedSamples(profile)) {
    if (!(s.weight > 0)) continue;
    const field = APART.get(leafName.get(s.id));
    // A collection is work on the CPU: a gap after its sample is the machine's, not the collection's.
    if (field) add(field, s.t, s.t + (field === 'gcMs' ? s.onCpu : s.weight));
    if (field !== 'idleMs' && s.offCpu > 0) add('gapMs', s.t + s.onCpu, s.t + s.weight);
  }
  return out;
}

module.exports = { gcByModule, segmentsOnProfile };
