'use strict';
// V8's sampler does not always see a frame of baseline (Sparkplug) code: such a sample stops at
// the caller. A module's top-level code that runs a while in baseline code (a long loop whose
// optimized code is not ready yet, which takes longer on a busy machine) then gives most of its
// samples to the loader's frame that ran the module: a `node --max-opt=1` run of a 50 ms loop
// showed 29 of 41 samples there. That frame also has samples of its own in the module's window,
// before the top level runs: at its lines that compile the module and make its require (whose
// frames V8 misses the same way; seen on NestJS, googleapis and firebase-admin apps).
// A sample that stops at a frame of Node's own code which called a module's top level, taken while
// that module was the one loading (module-gc.js's windows) and after its top level was first seen
// running, is given back to the module's top-level frame. Pure.
const { fileOfUrl, isUserFrame, timedSamples } = require('./cpuprofile-categories.js');
const { firstEndingAfter } = require('./own-segments.js');
const { segmentsOnProfile } = require('./module-gc.js');

/** A module's top-level code: the anonymous function V8 reports at line 0, column 0. */
const isTopLevel = (frame) => frame.functionName === '' && frame.lineNumber === 0 && frame.columnNumber === 0;

/**
 * @param {object} profile the trimmed V8 CPU profile
 * @param {Array<object>} modules CaptureResult.modules (windows on the readyAt clock, ms)
 * @param {(ms: number) => number} toProfileUs maps a readyAt-clock time to the profile clock
 * @param {Array<{id: number, t: number}>} [samples] the profile's timedSamples, where the caller has them
 * @returns {(sample: {id: number, t: number}) => ?object} the top-level node a sample stopped short
 *   of, or null when it did not
 */
function lostTopFrames(profile, modules, toProfileUs, samples = timedSamples(profile)) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Node's frame -> the files whose top level it called, each with that top level's node.
  const calledTopLevels = new Map();
  for (const parent of profile.nodes) {
    if (isUserFrame(parent.callFrame)) continue;
    for (const id of parent.children || []) {
      const child = byId.get(id);
      if (!child || !isUserFrame(child.callFrame) || !isTopLevel(child.callFrame)) continue;
      if (!calledTopLevels.has(parent.id)) calledTopLevels.set(parent.id, new Map());
      calledTopLevels.get(parent.id).set(fileOfUrl(child.callFrame.url), child);
    }
  }
  if (!calledTopLevels.size || !Array.isArray(modules)) return () => null;
  const segments = segmentsOnProfile(modules, toProfileUs);
  const running = firstSeenRunning(profile, samples, byId, calledTopLevels);
  return (sample) => {
    const called = calledTopLevels.get(sample.id);
    if (!called) return null;
    const segment = segments[firstEndingAfter(segments, sample.t)];
    const topLevel = segment && segment.from <= sample.t ? called.get(segment.file) : null;
    return topLevel && running.get(topLevel.id) <= sample.t ? topLevel : null;
  };
}

/** Each top-level node's first sample time with it on the stack (samples come sorted by time). */
function firstSeenRunning(profile, samples, byId, calledTopLevels) {
  const topLevels = new Set();
  for (const called of calledTopLevels.values()) for (const node of called.values()) topLevels.add(node.id);
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parentOf.set(c, n.id);
  const first = new Map();
  for (const sample of samples) {
    for (let id = sample.id; id !== undefined && byId.has(id); id = parentOf.get(id)) {
      if (topLevels.has(id) && !first.has(id)) first.set(id, sample.t);
    }
  }
  return first;
}

module.exports = { lostTopFrames, isTopLevel };
