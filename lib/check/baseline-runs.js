'use strict';
// A baseline against this check's runs: what the baseline holds of its runs, and the diff of the
// two, run against run where both kept their runs, at the baseline's machine floor.

/** What a baseline holds of its runs: every timed run and its floor when recorded by check, else its one figure. */
function baselineRuns(baseline) {
  const check = baseline.check || {};
  if (Array.isArray(check.samples) && check.samples.length) return { samples: check.samples, control: check.control || undefined };
  return { samples: [baseline.readyAt] };
}

/**
 * The baseline against this run: run against run when the baseline kept its runs, with this run's
 * times brought to the baseline's machine floor when both measured it (as the baseline check does).
 */
function diffWithBaseline(baseline, report) {
  const { diffReports } = require('../report/diff.js');
  const { keptRuns } = require('../report/run-samples.js');
  const { floorAdjusted, scaleRuns } = require('../report/machine-floor.js');
  const before = keptRuns(baseline);
  if (!before) return { diff: diffReports(baseline, report, { top: 5 }), scale: null };
  const floor = floorAdjusted(baselineRuns(baseline), { samples: report.check.samples, control: report.check.control });
  const scale = floor.method === 'floor' ? floor.floorBefore / floor.floorAfter : null;
  const after = keptRuns(report);
  const samples = scale == null
    ? { before, after }
    : { before: { ...before, readyAt: floor.before }, after: { ...scaleRuns(after, scale), readyAt: floor.after } };
  return { diff: diffReports(baseline, report, { top: 5, samples }), scale };
}

module.exports = { baselineRuns, diffWithBaseline };
