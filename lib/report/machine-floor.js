'use strict';
// A baseline recorded on one machine (or at one quiet moment) and a check on another must not
// differ by the machine. Each timed run of the app is paired with a run of the machine's floor -- a
// bare Node of the same binary that listens, started right after it -- and the app is compared
// two ways:
// - as a multiple of its floor, in milliseconds at the baseline's floor: a slower or busier
//   machine stretches the app's own work and Node's start alike, so the ratio stays;
// - as its time above its floor: what a busy machine adds to every start cancels out.
// Neither model is the whole truth (measured: on a busy machine the multiple of an express app
// stayed while its time above the floor grew by 40-126 ms; the multiple of a one-file app rose by
// 20%, its time above the floor did not), so a check calls a regression only when both see it.
// Pure: samples in, samples out.
const { median } = require('../stats.js');

// Both runs of a pair are needed: a floor without its app run (or the reverse) says nothing.
const paired = (side) => Array.isArray(side.control) && side.control.length === side.samples.length &&
  side.samples.length > 0 && side.control.every((c) => c > 0);

/**
 * The samples to compare for a baseline check.
 * @param {{ samples: number[], control?: number[] }} baseline times to ready, and of the floor run
 *   paired with each
 * @param {{ samples: number[], control?: number[] }} measured
 * @returns {{ method: 'floor'|'raw', before: number[], after: number[], above: ?{ before: number[],
 *   after: number[] }, floorBefore: ?number, floorAfter: ?number }} 'floor' when both sides have a
 *   floor run per app run: before/after are each run's time to ready divided by its floor run's,
 *   times the baseline's median floor, and above the time to ready minus the floor run's; 'raw'
 *   (the times to ready themselves, above null) otherwise
 */
function floorAdjusted(baseline, measured) {
  if (!paired(baseline) || !paired(measured)) {
    return { method: 'raw', before: baseline.samples, after: measured.samples, above: null, floorBefore: null, floorAfter: null };
  }
  const floor = median(baseline.control);
  const onBaselineFloor = (side) => side.samples.map((x, i) => (x / side.control[i]) * floor);
  const aboveFloor = (side) => side.samples.map((x, i) => x - side.control[i]);
  return {
    method: 'floor',
    before: onBaselineFloor(baseline),
    after: onBaselineFloor(measured),
    above: { before: aboveFloor(baseline), after: aboveFloor(measured) },
    floorBefore: floor,
    floorAfter: median(measured.control),
  };
}

/**
 * Runs of a busier or slower machine brought to the baseline's floor: every time multiplied by
 * `factor` (the baseline's median floor over this run's).
 * @param {object} runs in the shape of runSamples()
 * @param {number} factor
 * @returns {object} the same shape, times scaled (readyAt left as it is)
 */
function scaleRuns(runs, factor) {
  const scale = (byName) => byName && Object.fromEntries(Object.entries(byName).map(([k, xs]) => [k, xs.map((x) => Math.round(x * factor * 100) / 100)]));
  return { ...runs, moduleSelfMs: scale(runs.moduleSelfMs), packageSelfMs: scale(runs.packageSelfMs), categoryMs: scale(runs.categoryMs) };
}

module.exports = { floorAdjusted, scaleRuns };
