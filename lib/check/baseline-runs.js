'use strict';
// A baseline against this check's runs: what the baseline holds of its runs, and the diff of the
// two, run against run where both kept their runs. The diff shows the times as they were measured:
// every median it prints is the one the check and the baseline print for the same runs.

/** What a baseline holds of its runs: every timed run and its control run when recorded by check, else its one figure. */
function baselineRuns(baseline) {
  const check = baseline.check || {};
  if (Array.isArray(check.samples) && check.samples.length) return { samples: check.samples, control: check.control || undefined };
  return { samples: [baseline.readyAt] };
}

/** The baseline against this run: run against run when the baseline kept its runs. */
function diffWithBaseline(baseline, report) {
  const { diffReports } = require('../report/diff.js');
  const { keptRuns } = require('../report/run-samples.js');
  const before = keptRuns(baseline);
  const samples = before ? { before, after: keptRuns(report) } : null;
  return { diff: diffReports(baseline, report, { top: 5, samples }) };
}

module.exports = { baselineRuns, diffWithBaseline };
