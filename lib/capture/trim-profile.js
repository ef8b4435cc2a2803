'use strict';
// The app is held twice by the agent: at start, until the profiler runs, and at
// its ready moment, until the CLI has stopped the profiler. Samples taken while
// held show only the hold; cut them so the profile spans start to ready. Pure.

/**
 * @param {object} profile V8 CPU profile (µs timestamps)
 * @param {number} fromUs resume time after the start hold (keep one sample before it)
 * @param {number} toUs the ready moment
 * @returns {object} a new profile
 */
function trimProfile(profile, fromUs, toUs) {
  const { samples, timeDeltas } = profile;
  if (!samples || !samples.length) return profile;
  const stamps = new Array(samples.length);
  let t = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i];
    stamps[i] = t;
  }
  let first = 0;
  while (first + 1 < samples.length && stamps[first + 1] <= fromUs) first++;
  let last = samples.length - 1;
  while (last > first && stamps[last] > toUs) last--;
  const keptSamples = samples.slice(first, last + 1);
  const keptStamps = stamps.slice(first, last + 1);
  const startTime = Math.min(keptStamps[0], Math.max(profile.startTime, fromUs));
  const deltas = keptStamps.map((s, i) => (i === 0 ? s - startTime : s - keptStamps[i - 1]));
  const used = new Set(keptSamples);
  const nodes = profile.nodes.map((n) => (used.has(n.id) || !n.hitCount ? n : { ...n, hitCount: 0 }));
  return {
    ...profile,
    nodes,
    startTime,
    endTime: Math.max(keptStamps[keptStamps.length - 1], Math.min(profile.endTime, toUs)),
    samples: keptSamples,
    timeDeltas: deltas,
  };
}

module.exports = { trimProfile };
