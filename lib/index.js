'use strict';
// The programmatic API. Everything the CLI does is available here without a terminal.

/**
 * Runs an app up to its ready moment and returns a CaptureResult
 * ({ readyAt, modules, files, outsideRoot, resolutions, profile, ... }).
 * @type {typeof import('./capture/capture.js').capture}
 */
function capture(options) {
  return require('./capture/capture.js').capture(options);
}

/**
 * `coldstart profile` as a function, its engine (lib/profile/profile-app.js): the app captured to
 * its ready moment `runs` times, the median run reported with the advice most runs found, the
 * machine's floor beside it; ready, as for the CLI, at its first answer unless `until` says otherwise.
 * Resolves to the report.json document the CLI writes (and the raw profile); the artifacts are
 * written only when `outDir` is given. Nothing is printed.
 * @param {Parameters<typeof capture>[0] & { runs?: number, verifyRuns?: number, outDir?: string }} options
 *   verifyRuns: prove the lazy-load advice in this many alternated runs a variant (the CLI's
 *   --verify-advice: 7; it needs coverage: true)
 * @returns {Promise<{ report: object, profile: object|undefined, result: object }>}
 */
async function profile(options) {
  const { runs = 1, verifyRuns = 0, outDir = null, interval, coverage, after, keepRunning, ...captureOptions } = options;
  const cwd = captureOptions.cwd || process.cwd();
  const out = outDir && require('node:path').resolve(cwd, outDir);
  if (out) require('./output-target.js').ensureWritableDir(out);
  const { report, result } = await require('./profile/profile-app.js').profileApp({
    captureOptions: { profile: true, until: require('./options.js').parseUntil('answer'), ...captureOptions }, runs, verifyRuns, outDir: out, cwd,
    profiling: { interval, coverage, after, keepRunning },
  });
  return { report, profile: result.profile, result };
}

/**
 * Writes the deterministic startup archive for a list of root-relative files. A file whose
 * real path is outside root (a link leading out, or under a directory that does) is never
 * stored: it throws an error with code PACK_PATH_ESCAPES.
 * @param {{ root: string, files: string[], out: string, extraEntries?: {path: string, data: Buffer}[] }} options
 */
function pack(options) {
  return require('./pack/archive.js').writeArchive(options);
}

/**
 * `coldstart check` as a function, its engine: the app run to ready `runs` times beside the control
 * app (or `baselineCommand`), judged against the limits given and a baseline. Resolves to the
 * document `coldstart check --json` prints; nothing is printed or written.
 * @param {object} options the app's capture options (command, cwd, env, until (default: its first
 *   answer, as the CLI), timeoutMs, ...) and: runs (default 6), maxRuns (default 3 x runs), budgetMs,
 *   maxModules, maxAdviceMs, maxRssBytes, maxHeapBytes, tolerance ('10%' or '25ms'), baseline (a
 *   report.json check wrote, or its file), baselineCommand (the baseline revision's command)
 */
async function check(options) {
  const { runs = 6, maxRuns = 3 * runs, budgetMs = null, maxModules = null, maxAdviceMs = null, maxRssBytes = null, maxHeapBytes = null, tolerance, baseline = null, baselineCommand = null, ...app } = options;
  const cwd = app.cwd || process.cwd();
  const saved = typeof baseline === 'string' ? require('./report/read-report.js').readReport(baseline, cwd) : baseline;
  const result = await require('./check/check-app.js').checkApp({
    runOptions: { until: require('./options.js').parseUntil('answer'), ...app, cwd, profile: false },
    runs, maxRuns, baseline: saved, baselineCommand,
    limits: { budgetMs, maxModules, maxAdviceMs, maxRssBytes, maxHeapBytes, tolerance: require('./check/verdict.js').parseTolerance(tolerance) },
  });
  const shown = { baseline: typeof baseline === 'string' ? baseline : null, baselineCommand: baselineCommand && require('./shell-words.js').shellLine(baselineCommand), baselineWritten: false };
  return require('./report/check-summary.js').checkJson(result, shown);
}

/** Statistics over timing samples: n, min, max, mean, median, stddev, p90/p95/p99, top 1% stripped. */
function summarize(samples) {
  return require('./stats.js').summarize(samples);
}

module.exports = { capture, profile, check, pack, summarize };
