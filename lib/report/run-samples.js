'use strict';
// Several runs of one app, as samples to compare: per run, the time to ready and the self time of
// every module and package. A module that one run did not load counts 0 ms there. Pure: reports in,
// plain data out (this is also what a check baseline keeps of its detailed runs).
const { CATEGORIES } = require('../analyze/cpuprofile-categories.js');

const round = (n) => Math.round(n * 100) / 100;

function selfTimes(reports, list, key) {
  const out = {};
  reports.forEach((report, i) => {
    for (const item of report[list]) {
      const name = item[key];
      if (!Object.prototype.hasOwnProperty.call(out, name)) out[name] = new Array(reports.length).fill(0);
      out[name][i] = round(Number(item.selfMs) || 0);
    }
  });
  return out;
}

/** Per category of the CPU profile, its time in each run; null when a run has no categories. */
function categoryTimes(reports) {
  if (!reports.every((r) => r.categories)) return null;
  const out = {};
  for (const name of CATEGORIES) out[name] = reports.map((r) => round(Number(r.categories[name]) || 0));
  return out;
}

/**
 * @param {object[]} reports report.json documents of runs of the same app
 * @returns {{ runs: number, readyAt: number[], moduleSelfMs: Object<string, number[]>,
 *   packageSelfMs: Object<string, number[]>, categoryMs: ?Object<string, number[]> }} one sample per report in each array, in report order
 */
function runSamples(reports) {
  return {
    runs: reports.length,
    readyAt: reports.map((r) => round(r.readyAt)),
    moduleSelfMs: selfTimes(reports, 'modules', 'file'),
    packageSelfMs: selfTimes(reports, 'packages', 'name'),
    categoryMs: categoryTimes(reports),
  };
}

/**
 * The runs a report written by `coldstart check` kept (a baseline): the timed runs' times to ready
 * and the detailed runs' self times. Null for a report of a single run.
 * @param {object} report
 * @returns {?object} in the shape of runSamples()
 */
function keptRuns(report) {
  const check = report.check;
  if (!check || !check.detail || !check.detail.moduleSelfMs || !Array.isArray(check.samples) || !check.samples.length) return null;
  return { ...check.detail, readyAt: check.samples };
}

module.exports = { runSamples, keptRuns };
