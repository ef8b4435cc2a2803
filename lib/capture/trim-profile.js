'use strict';
// The app is held twice by the agent: right after Node's bootstrap, until the profiler runs,
// and at its ready moment, until the CLI has stopped the profiler. Samples taken while held
// show only the hold (holdForCli and its short sleeps); they are the measurement's,
// not the app's. Cut them so the profile spans the resume to the ready moment. Pure.

// The agent's hold, as it appears in a stack.
const HOLD_FRAME = 'holdForCli';

/**
 * @param {object} profile V8 CPU profile (µs timestamps)
 * @param {number} fromUs the moment the start hold ended (same clock as the profile)
 * @param {number} toUs the ready moment
 * @returns {object} a new profile: samples stamped in [fromUs, toUs], none inside a hold
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
  const inHold = holdNodes(profile.nodes);
  // A sample stands for the time up to the next one, so one stamped before the resume is the hold's.
  let first = 0;
  while (first < samples.length && (stamps[first] < fromUs || inHold.has(samples[first]))) first++;
  let last = samples.length - 1;
  while (last >= first && (stamps[last] > toUs || inHold.has(samples[last]))) last--;
  const keptSamples = samples.slice(first, last + 1);
  const keptStamps = stamps.slice(first, last + 1);
  const startTime = Math.max(profile.startTime, Math.min(fromUs, keptStamps.length ? keptStamps[0] : fromUs));
  const deltas = keptStamps.map((s, i) => (i === 0 ? s - startTime : s - keptStamps[i - 1]));
  const hits = new Map();
  for (const id of keptSamples) hits.set(id, (hits.get(id) || 0) + 1);
  const nodes = profile.nodes.map((n) => recount(n, hits.get(n.id) || 0));
  const lastStamp = keptStamps.length ? keptStamps[keptStamps.length - 1] : startTime;
  return {
    ...profile,
    nodes,
    startTime,
    endTime: Math.max(lastStamp, Math.min(profile.endTime, toUs)),
    samples: keptSamples,
    timeDeltas: deltas,
  };
}

/**
 * A node with the hit count of the samples kept; its per-line ticks scaled to it (V8 counts them
 * over the whole profile: where the lines' shares are all there is, they are kept).
 */
function recount(node, hitCount) {
  const before = node.hitCount || 0;
  if (before === hitCount) return node;
  const { positionTicks, ...rest } = node;
  if (!positionTicks || !before || !hitCount) return { ...rest, hitCount };
  const scaled = positionTicks.map((t) => ({ line: t.line, ticks: Math.round((t.ticks * hitCount) / before) })).filter((t) => t.ticks > 0);
  return { ...rest, hitCount, ...(scaled.length ? { positionTicks: scaled } : {}) };
}

/** Ids of the nodes at or below a hold frame. */
function holdNodes(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out = new Set();
  const mark = (id) => {
    if (out.has(id)) return;
    out.add(id);
    for (const child of byId.get(id)?.children || []) mark(child);
  };
  for (const n of nodes) if (n.callFrame && n.callFrame.functionName === HOLD_FRAME) mark(n.id);
  return out;
}

module.exports = { trimProfile };
