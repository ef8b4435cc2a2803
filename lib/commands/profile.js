'use strict';
// coldstart profile -- <command>: capture + analyse + report.
const path = require('path');
const { afterWindowFromArgv, parseCount, parseInterval, captureOptions, lambdaOptions, captureOptionsFromArgv } = require('../options.js');
const { ensureWritableDir } = require('../output-target.js');
const { UsageError } = require('../errors.js');

module.exports = {
  command: 'profile [app..]',
  describe: 'run an app from process start until it listens; write a CPU profile, the files it read and a require-time report',
  builder: (yargs) => lambdaOptions(captureOptions(yargs))
    .option('interval', { type: 'string', default: '1000', describe: 'CPU sampling interval in microseconds' })
    .option('runs', { type: 'string', default: '1', describe: 'profile the app this many times; advice then holds only what most runs found, with the median estimate and its interval (the artifacts are the median run\'s)' })
    .option('coverage', { type: 'boolean', default: false, describe: 'record which functions ran before ready and advise modules to load lazily (measured at up to 1.09x the time to ready)' })
    .option('verify-advice', { type: 'boolean', default: false, describe: 'prove the lazy-load advice (implies --coverage): start the app again, 7 times alternately as it is and with each of the top 3 proposed requires made lazy, and report the measured saving; drop a proposal the app does not start with, touches at startup anyway, or answers a --request differently with' })
    .option('after', { type: 'string', describe: 'keep profiling this long after the ready moment (e.g. 10s): CPU in and outside requests, what the app waited on, connection reuse' })
    .option('request', { type: 'string', array: true, describe: 'send this request to the app twice a second during --after, e.g. "GET /"; repeatable: the requests in turn, each twice a second (one given twice: 4 a second); a 5 s window without --after' })
    .option('docker', { type: 'string', requiresArg: true, describe: 'profile inside a container of this image (coldstart mounted read-only, no network); the app command defaults to the image\'s ENTRYPOINT + CMD' })
    .option('runtime', { type: 'string', requiresArg: true, describe: 'container runtime for --docker: any the Docker engine has: runc (default), runsc (gVisor, as Cloud Run\'s first generation), a second gVisor build such as runsc-2024' })
    .example('$0 profile -- node server.js', '')
    .example('# also advise which requires to make lazy', '').example('$0 profile --coverage -- node server.js', '')
    .example('# CPU in and outside requests for 10 s after listen, GET / twice a second', '').example('$0 profile --after 10s --request "GET /" -- node server.js', '')
    .example('# measure what loading the proposed modules lazily saves, checking GET / still answers the same', '').example('$0 profile --verify-advice --request "GET /" -- node server.js', '')
    .example('# inside a container of the image, under gVisor', '').example('$0 profile --docker my-service:latest --runtime runsc', '')
    .example('$0 profile --until exit -- node build.js', '')
    .example('$0 profile --json -- npm start', ''),
  async run(argv, ctx) {
    const interval = parseInterval(argv.interval);
    const outDir = path.resolve(ctx.cwd, argv.out || '.coldstart');
    const options = captureOptionsFromArgv(argv, ctx); // validates before the out dir is made
    const after = afterWindowFromArgv(argv);
    // --verify-runs, --rate and --keep-running are old flags (lib/deprecated-flags.js), read for one more release.
    const verifyRuns = !argv.verifyAdvice ? 0 : argv.verifyRuns === undefined ? require('../capture/verify-lazy.js').VERIFY_RUNS : parseCount(argv.verifyRuns, '--verify-runs', 2);
    const runs = parseCount(argv.runs, '--runs', 1);
    if (argv.docker != null && runs > 1) throw new UsageError('--runs does not apply to --docker: run profile --docker again to compare');
    if (argv.keepRunning && runs > 1) throw new UsageError('--keep-running leaves one app running: give it without --runs');
    if (argv.docker == null && argv.runtime != null) throw new UsageError('--runtime is the container runtime of --docker: give --docker IMAGE too');
    if (argv.docker != null && argv.keepRunning) throw new UsageError('--keep-running does not work with --docker: the container ends with the capture');
    const made = ensureWritableDir(outDir);
    try {
      const lock = require('../output-lock.js').lockOutput(outDir); // one run's artifacts, not a mix of several
      try {
        return argv.docker != null
          ? await profileDocker(argv, ctx, outDir, { after, verifyRuns, timeoutMs: options.timeoutMs })
          : await profileHere(argv, ctx, outDir, { options, interval, after, verifyRuns, runs });
      } finally {
        lock.release(); // before a failed run's directories are taken away
      }
    } catch (err) {
      require('../make-dir.js').removeMadeDirs(made); // a failed run leaves nothing behind
      throw err;
    }
  },
};

/**
 * The capture on this machine (runs times: the run with the median time to ready is the one
 * reported, its advice what most runs found), the advice verified when asked, the artifacts and
 * the summary.
 */
async function profileHere(argv, ctx, outDir, { options, interval, after, verifyRuns, runs }) {
  const { capture } = require('../capture/capture.js');
  const { withInterrupts } = require('../interrupt.js');
  const { buildReport, busyShare } = require('../analyze/startup-report.js');
  const { readSource } = require('../report/profile-artifacts.js');
  const progress = runs > 1 ? require('../report/terminal-format.js').progress({ stream: ctx.stderr, quiet: argv.quiet || argv.json, env: ctx.env }) : null;
  const results = [];
  let stopped = false; // interrupted before a run had anything: the runs before it stand
  try {
    for (let i = 0; i < runs; i++) {
      if (progress) progress.phase(`run ${i + 1}/${runs}…`);
      const result = await withInterrupts((traps) => capture({
        ...options,
        interval,
        coverage: argv.coverage || argv.verifyAdvice,
        after,
        keepRunning: argv.keepRunning,
        // The app's output once is enough.
        ...(i > 0 ? { stdout: undefined, stderr: undefined } : {}),
        signal: traps.signal,
        force: traps.force,
      })).catch((err) => {
        if (err.exitCode !== 130 || !results.length) throw err;
        stopped = true;
        return null;
      });
      if (!result) break;
      results.push(result);
      if (result.partial) break;
    }
  } finally {
    if (progress) progress.done();
  }
  const byReady = results.filter((r) => !r.partial).sort((a, b) => a.readyAt - b.readyAt);
  const result = byReady.length ? byReady[(byReady.length - 1) >> 1] : results[results.length - 1];
  const { adviceAcrossRuns } = require('../analyze/advice-across-runs.js');
  const ordered = [result, ...results.filter((r) => r !== result)];
  const drafts = ordered.map((r) => buildReport(r, { readSource }));
  const across = adviceAcrossRuns(drafts.map((d) => d.advice));
  // Interrupted: what the finished runs found is written, marked partial (fewer runs than asked).
  const interrupted = stopped || results.some((r) => r.partial);
  const verification = verifyRuns && !interrupted ? await verifyAdvice(drafts[0], options, verifyRuns, after, argv, ctx) : null;
  const floorMs = interrupted ? null : await machineFloorMs(options);
  const { writeProfileArtifacts } = require('../report/profile-artifacts.js');
  const report = writeProfileArtifacts(interrupted ? { ...result, partial: true } : result, outDir, ctx.cwd, {
    verification,
    floorMs,
    advice: across.advice,
    runs: {
      count: results.length,
      asked: runs,
      finished: byReady.length,
      readyAt: ordered.map((r) => Math.round(r.readyAt * 100) / 100), // the reported run first
      // How busy the machine was in each run: its share of the time the app waited for a CPU.
      busyShare: drafts.map((d) => busyShare(d.machine)),
      unstable: across.unstable,
    },
  });
  printReport(report, argv, ctx);
  if (interrupted) return 130;
  const failed = require('../analyze/startup-report.js').invocationFailure(result.lambda);
  if (failed) {
    ctx.stderr.write(`coldstart: the first invocation failed (${failed}); the profile of init and the invocation is written\n`);
    return 1;
  }
  return 0;
}

/**
 * The machine's floor now: a bare Node of the app's binary reaching the same ready moment, timed
 * once right after the capture (as check pairs each run with one). Beside the app's own start it
 * tells a slow Node start from a slow app; null when there is none to run or it failed.
 */
async function machineFloorMs(options) {
  const { bareNodeCommand } = require('../check/control.js');
  const command = bareNodeCommand(options.command, options.until || { mode: 'listen' });
  if (!command) return null;
  const { capture } = require('../capture/capture.js');
  try {
    const r = await capture({ ...options, command, timingOnly: true, stdout: undefined, stderr: undefined });
    return Number.isFinite(r.readyAt) ? r.readyAt : null;
  } catch {
    return null;
  }
}

/** The report as one JSON document (--json) or the terminal summary. */
function printReport(report, argv, ctx) {
  if (argv.json) {
    ctx.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } else if (!argv.quiet) {
    const { renderProfileSummary } = require('../report/terminal.js');
    ctx.stdout.write(renderProfileSummary(report, { color: ctx.color, artifacts: report.artifacts }));
  }
}

/** --verify-advice: the lazy-load advice of the reported capture (its draft report), measured in alternating timed runs. */
async function verifyAdvice(draft, options, runs, after, argv, ctx) {
  if (!draft.advice.some((a) => a.kind === 'lazy-load')) return [];
  const { verifyLazyAdvice } = require('../capture/verify-lazy.js');
  const { progress: phaseProgress } = require('../report/terminal-format.js');
  const { withInterrupts } = require('../interrupt.js');
  const progress = phaseProgress({ stream: ctx.stderr, quiet: argv.quiet || argv.json, env: ctx.env });
  try {
    return await withInterrupts((traps) => verifyLazyAdvice({
      report: draft,
      runOptions: { ...options, stdout: undefined, stderr: undefined }, // the app's output once is enough
      runs,
      requests: after ? after.requests : [],
      signal: traps.signal,
      force: traps.force,
      onProgress: (text) => progress.phase(text),
    }));
  } finally {
    progress.done();
  }
}

/** The flags of this profile that the capture inside the container takes as they are. */
function innerProfileArgs(argv) {
  const args = ['--until', argv.until, '--timeout', argv.timeout, '--interval', argv.interval, '--esm', argv.esm];
  if (argv.root) args.push('--root', argv.root);
  if (argv.coverage) args.push('--coverage');
  if (argv.verifyAdvice) args.push('--verify-advice');
  if (argv.verifyRuns !== undefined) args.push('--verify-runs', argv.verifyRuns);
  if (argv.after != null) args.push('--after', argv.after);
  for (const request of [].concat(argv.request || [])) args.push('--request', request);
  if (argv.rate != null) args.push('--rate', argv.rate);
  // A Lambda function: its handler and event are the image's files, found in its WORKDIR.
  if (argv.lambda != null) args.push('--lambda', argv.lambda);
  if (argv.event != null) args.push('--event', argv.event);
  return args;
}

/** profile --docker IMAGE: the capture inside a container; the artifacts and summary here. */
async function profileDocker(argv, ctx, outDir, { after, verifyRuns, timeoutMs }) {
  const { profileInContainer } = require('../capture/in-container.js');
  const { withInterrupts } = require('../interrupt.js');
  // --cpus: the container's share (coldstart's capture inside waits while the app starts). --memory
  // is refused: the capture's own memory would count against the limit there.
  const limits = require('../options.js').parseLimits(argv);
  if (limits && limits.memoryBytes) throw new UsageError('--memory with --docker: coldstart\'s capture runs inside the container and its own memory would count against the limit; profile on this machine with --memory, or run the image with docker run --memory');
  const runtime = argv.runtime || 'runc';
  await require('../docker.js').checkRuntimes([runtime]);
  // Room for the engine to start the container (gVisor is slower) and for every run inside.
  const containerMs = 120_000 + timeoutMs * (1 + 4 * verifyRuns) + (after ? after.ms : 0);
  const got = await withInterrupts((traps) => profileInContainer({
    image: argv.docker, runtime, command: argv.appCommand || [], lambda: argv.lambda != null, profileArgs: innerProfileArgs(argv), outDir, timeoutMs: containerMs, signal: traps.signal,
    cpus: limits ? limits.cpus : null,
  }));
  if (got.appOutput && !argv.quiet) ctx.stderr.write(got.appOutput.endsWith('\n') ? got.appOutput : `${got.appOutput}\n`);
  const shown = (name) => path.relative(ctx.cwd, path.join(outDir, name)) || name;
  // Inside gVisor the load average is the sandbox's own (0 whatever the host runs): the host's instead.
  const machine = got.report.machine && require('../gvisor.js').isGvisor(runtime)
    ? { ...got.report.machine, loadAverage: require('../capture/capture-result.js').loadAverage(), loadAverageOf: 'the host' }
    : got.report.machine;
  const report = {
    ...got.report,
    ...(machine ? { machine } : {}),
    ...(limits ? { limits: { cpus: limits.cpus, memoryBytes: null, how: `docker run --cpus ${limits.cpus}` } } : {}),
    container: { image: argv.docker, runtime, command: got.command },
    artifacts: Object.fromEntries(Object.entries(got.report.artifacts || {}).map(([k, v]) => [k, shown(path.posix.basename(v))])),
  };
  // What only a start in a container says: files served from memory, a code cache.
  const { containerAdvice } = require('../analyze/container-advice.js');
  report.advice = [...(report.advice || []), ...containerAdvice(report)].sort((a, b) => b.estimatedMs - a.estimatedMs);
  // report.json and report.html say where the profile was taken.
  require('../report/profile-artifacts.js').writeReportFiles(report, outDir);
  printReport(report, argv, ctx);
  return report.partial ? 130 : 0;
}
