'use strict';
// A baseline against this check's runs: what the baseline holds of its runs, and the diff of the
// two, run against run where both kept their runs. The diff shows the times as they were measured:
// every median it prints is the one the check and the baseline print for the same runs.

/**
 * What a baseline holds of its runs: every timed run and its control run when recorded by check
 * (with what each waited for a CPU, when recorded), else its one figure.
 */
function baselineRuns(baseline) {
  const check = baseline.check || {};
  if (!Array.isArray(check.samples) || !check.samples.length) return { samples: [baseline.readyAt] };
  return { samples: check.samples, runQueue: check.runQueue, control: check.control || undefined, controlRunQueue: check.controlRunQueue };
}

// Every run of a side says what it waited for a CPU (Linux; a baseline recorded before check read it does not).
const waitsKnown = (xs, waits) => !xs || (Array.isArray(waits) && waits.length === xs.length && waits.every(Number.isFinite));
const knowsCpuWait = (side) => waitsKnown(side.samples, side.runQueue) && waitsKnown(side.control, side.controlRunQueue);

/**
 * The figures check judges of its runs and of the baseline's: time to ready less what the app's
 * main thread waited for a CPU, when every run of both sides read it, so that a machine busier in
 * one than in the other does not move the verdict; else the times as measured.
 * @param {import('./measure-runs.js').TimedRuns} now
 * @param {?import('./measure-runs.js').TimedRuns} [baseline]
 * @returns {{ now: { samples: number[], control: ?number[] }, baseline: ?{ samples: number[], control: ?number[] }, lessCpuWait: boolean }}
 */
function judgedRuns(now, baseline = null) {
  const lessCpuWait = knowsCpuWait(now) && (!baseline || knowsCpuWait(baseline));
  const less = (xs, waits) => xs && (lessCpuWait ? xs.map((x, i) => Math.round(Math.max(0, x - waits[i]) * 100) / 100) : xs);
  const side = (s) => s && { samples: less(s.samples, s.runQueue), control: less(s.control || null, s.controlRunQueue) };
  return { now: side(now), baseline: side(baseline), lessCpuWait };
}

/**
 * The baseline against this run: run against run when the baseline kept its runs. When the
 * control app moved (the machine changed), every package's and module's time moved with it, and
 * the many comparisons select by the machine: a mover is then listed only when it moved both as
 * measured and with this run's times scaled by the control's slowdown.
 * @param {object} baseline
 * @param {object} report this check's
 * @param {?{ before: number, after: number, moved: string }} control as the baseline check saw it
 */
function diffWithBaseline(baseline, report, control = null) {
  const { diffReports } = require('../report/diff.js');
  const { keptRuns } = require('../report/run-samples.js');
  const before = keptRuns(baseline);
  const samples = before ? { before, after: keptRuns(report) } : null;
  const diff = diffReports(baseline, report, { top: 5, samples });
  if (!samples || !control || (control.moved !== 'slower' && control.moved !== 'faster')) return { diff };
  const scaled = diffReports(baseline, report, { top: 5, samples: { before, after: scaleRuns(samples.after, control.before / control.after) } });
  const alsoScaled = (rows, key) => rows.filter((row) => scaled[key].some((x) => x.name === row.name && x.file === row.file && x.verdict === row.verdict));
  return {
    diff: { ...diff, packageMovers: alsoScaled(diff.packageMovers, 'packageMovers'), moduleMovers: alsoScaled(diff.moduleMovers, 'moduleMovers'), machineChanged: true },
  };
}

/** Runs with every module's, package's and category's time multiplied by `factor`. */
function scaleRuns(runs, factor) {
  const scale = (byName) => byName && Object.fromEntries(Object.entries(byName).map(([k, xs]) => [k, xs.map((x) => x * factor)]));
  return { ...runs, moduleSelfMs: scale(runs.moduleSelfMs), packageSelfMs: scale(runs.packageSelfMs), categoryMs: scale(runs.categoryMs) };
}

module.exports = { baselineRuns, judgedRuns, diffWithBaseline };
