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
 * `coldstart pack` as a function, its engine (lib/pack/pack-app.js): the app run to its ready moment
 * (its first answer unless `until` says otherwise), or the files a manifest lists, written to the
 * startup archive `out`, then started once from the archive's files alone unless `verify` is false.
 * Resolves to the summary `coldstart pack --json` prints; nothing is printed.
 * @param {Parameters<typeof capture>[0] & { out: string, manifest?: string, codeCache?: 'run'|'compile'|null,
 *   snapshotBlob?: string, verify?: boolean, settleMs?: number }} options
 */
async function pack(options) {
  const { out, manifest, root, codeCache = null, snapshotBlob, verify = true, settleMs = 0, ...app } = options;
  const cwd = app.cwd || process.cwd();
  const at = (file) => file && require('node:path').resolve(cwd, file);
  return require('./pack/pack-app.js').packApp({
    out: at(out), manifest: at(manifest), root, cwd, codeCache, snapshot: at(snapshotBlob), check: verify,
    capture: manifest ? null : { until: require('./options.js').parseUntil('answer'), ...app, root, cwd, settleMs },
  });
}

/**
 * Writes the deterministic startup archive for a list of root-relative files. A file whose
 * real path is outside root (a link leading out, or under a directory that does) is never
 * stored: it throws an error with code PACK_PATH_ESCAPES.
 * @param {{ root: string, files: string[], out: string, extraEntries?: {path: string, data: Buffer}[] }} options
 */
function writeArchive(options) {
  return require('./pack/archive.js').writeArchive(options);
}

/**
 * `coldstart bundle` as a function, its engine (lib/bundle/bundle-app.js): the app bundled with ncc
 * into `out`, what require hooks, addons and file reads need kept outside, then the bundle started
 * beside the app and compared (`verify`, `runs`, `requests`). Resolves to the summary `coldstart
 * bundle --json` prints; nothing is printed.
 * @param {Parameters<typeof capture>[0] & { out: string, externals?: string[], autoExternal?: boolean,
 *   verify?: boolean, runs?: number, requests?: Array<{ method: string, path: string }> }} options
 */
function bundle(options) {
  const { out, externals = [], autoExternal = true, verify = true, runs = require('./stats.js').ENOUGH_RUNS, requests = [], ...app } = options;
  const cwd = app.cwd || process.cwd();
  return require('./bundle/bundle-app.js').bundleApp({
    until: require('./options.js').parseUntil('answer'), timeoutMs: 60000, env: process.env, ...app, cwd, out: require('node:path').resolve(cwd, out), externals, autoExternal, verify, runs, requests,
  });
}

/**
 * `coldstart bench` as a function, its engine (lib/bench/bench-plan.js): each command started
 * `runs` times after one warm-up round, here or in fresh containers under each of `containers`
 * (runtimes), alternated. Resolves to the result `coldstart bench --json` prints; nothing is printed.
 * @param {{ commands: string[][], cwd?: string, env?: object, runs?: number, until?: string,
 *   timeoutMs?: number, containers?: string[], baseImage?: string, limits?: { cpus: ?number, memoryBytes: ?number } }} options
 *   until: as the CLI's --until (listen, exit, http:/path, line:/REGEX/ in containers); limits: as --cpus and --memory
 */
function bench(options) {
  const { commands, cwd = process.cwd(), env = process.env, runs = 20, until = 'listen', timeoutMs = 60000, containers = null, baseImage = 'coldstart-node:local', limits = null } = options;
  const { parseBenchUntil, containerReadyLine } = require('./options.js');
  const ready = parseBenchUntil(until);
  return require('./bench/bench-plan.js').runBenchPlan({
    commands, nodes: [], scenarios: [], inDocker: Boolean(containers), runtimes: containers || [], baseImage, readyLine: containerReadyLine(ready),
    cwd, env, runs, warmup: 1, until: ready.mode === 'line' ? { mode: 'listen' } : ready, timeoutMs, limits,
  });
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
    limits: { budgetMs, maxModules, maxAdviceMs, maxRssBytes, maxHeapBytes, tolerance: require('./options.js').parseTolerance(tolerance) },
  });
  const shown = { baseline: typeof baseline === 'string' ? baseline : null, baselineCommand: baselineCommand && require('./shell-words.js').shellLine(baselineCommand), baselineWritten: false };
  return require('./report/check-summary.js').checkJson(result, shown);
}

/** Statistics over timing samples: n, min, max, mean, median, stddev, p90/p95/p99, top 1% stripped. */
function summarize(samples) {
  return require('./stats.js').summarize(samples);
}

module.exports = { capture, profile, check, pack, bundle, bench, writeArchive, summarize };
