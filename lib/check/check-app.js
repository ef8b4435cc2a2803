'use strict';
// The check as one workflow: the app's runs to ready (beside the control app, or the baseline
// command), judged against the limits and the baseline, and the diff against the baseline. The
// command (lib/commands/check.js) parses its flags, calls this and prints; lib/index.js's check()
// is this too.
const { baselineRuns, judgedRuns, diffWithBaseline } = require('./baseline-runs.js');

// Profiled runs with coverage for --budget advice=: enough to see a finding move with the machine.
const ADVICE_RUNS = 3;

/**
 * @typedef {{ budgetMs?: ?number, maxModules?: ?number, maxAdviceMs?: ?number, maxRssBytes?: ?number,
 *   maxHeapBytes?: ?number, tolerance: object, minEffectMs?: number }} CheckLimits tolerance: options.js parseTolerance
 */

/**
 * @param {object} options
 * @param {object} options.runOptions capture options of every run (command, cwd, env, until, timeoutMs, limits, ...)
 * @param {number} options.runs runs first
 * @param {number} options.maxRuns going on while the runs cannot decide, up to this many
 * @param {CheckLimits} options.limits
 * @param {?object} [options.baseline] a saved baseline (a report.json check wrote)
 * @param {?string[]} [options.baselineCommand] the baseline revision's command, run alongside instead
 * @param {boolean} [options.updateBaseline] this measurement is to become the baseline: none is judged
 * @param {(text: string) => void} [options.onProgress]
 * @returns {Promise<{ ok: boolean, report: object, verdict: object, warnings: object[], compared: ?object, diff: ?object, lessCpuWait: boolean }>}
 *   report: the check's report.json (check.samples: every timed run); verdict: verdict.js
 *   evaluateChecks; warnings: one CHECK_INCONCLUSIVE for each check the runs could not decide (ok
 *   only without a failure or one of them); compared: the baseline judged against (null when
 *   updating it); diff: against the baseline, the old one too when updating
 */
async function checkApp({ runOptions, runs, maxRuns, limits, baseline = null, baselineCommand = null, updateBaseline = false, onProgress = () => {} }) {
  const { evaluateChecks, moreRunsWouldDecide, sequentialLooks } = require('./verdict.js');
  const { measureRuns } = require('./measure-runs.js');
  const looks = sequentialLooks(runs, maxRuns);
  const saved = baseline && !updateBaseline ? baselineRuns(baseline) : null;
  const timeLimits = (base) => ({ budgetMs: limits.budgetMs, maxModules: null, tolerance: limits.tolerance, minEffectMs: limits.minEffectMs, baseline: base, confidence: looks.confidence });
  const measured = await measureRuns({
    runOptions, runs, baselineCommand, adviceRuns: limits.maxAdviceMs != null ? ADVICE_RUNS : 0,
    more: maxRuns > runs ? {
      atMost: maxRuns,
      // Between two looks the runs go on unjudged.
      inconclusive: (app, alongside) => {
        if (!looks.at.includes(app.samples.length)) return true;
        const judged = judgedRuns(app, alongside || saved);
        return moreRunsWouldDecide({ ...judged.now, lessCpuWait: judged.lessCpuWait, modules: 0 }, timeLimits(judged.baseline && { ...judged.baseline, alternated: Boolean(alongside) }));
      },
    } : null,
    onProgress,
  });
  const { report } = measured;
  const against = baselineCommand ? measured.baseline : baseline;
  const compared = updateBaseline ? null : against;
  // Judged less what the runs waited for a CPU where both sides read it (baseline-runs.js).
  const judged = judgedRuns(report.check, compared && baselineRuns(compared));
  const verdict = evaluateChecks(
    { ...judged.now, lessCpuWait: judged.lessCpuWait, modules: report.modules.length, advice: report.adviceCheck, memory: report.check.memory, starts: report.check.starts, heldBy: report.memory && report.memory.sampled && report.memory.sampled.packages },
    { ...timeLimits(judged.baseline && { ...judged.baseline, alternated: Boolean(baselineCommand) }), maxModules: limits.maxModules, maxAdviceMs: limits.maxAdviceMs, maxRssBytes: limits.maxRssBytes, maxHeapBytes: limits.maxHeapBytes },
  );
  const baselineCheck = verdict.checks.find((c) => c.name === 'baseline');
  const diff = against ? diffWithBaseline(against, report, baselineCheck && baselineCheck.control).diff : null;
  // Runs that cannot decide are a warning: exit 3, and --strict makes it a failure.
  const { warning } = require('../warnings.js');
  const warnings = verdict.checks.filter((c) => c.verdict === 'inconclusive').map((c) => warning('CHECK_INCONCLUSIVE', c.message, { check: c.name }));
  return { ok: verdict.ok && !warnings.length, report, verdict, warnings, compared, diff, lessCpuWait: judged.lessCpuWait };
}

module.exports = { checkApp };
