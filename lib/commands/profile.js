'use strict';
// coldstart profile -- <command>: the flags parsed, the workflow of lib/profile/ called (on this
// machine or in a container), its report printed.
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
    // verifyStarts and keepAppRunning: internal values of old flags (lib/deprecated-flags.js).
    const verifyRuns = !argv.verifyAdvice ? 0 : argv.verifyStarts ?? require('../capture/verify-lazy.js').VERIFY_RUNS;
    const runs = parseCount(argv.runs, '--runs', 1);
    if (argv.docker != null && runs > 1) throw new UsageError('--runs does not apply to --docker: run profile --docker again to compare');
    if (argv.docker == null && argv.runtime != null) throw new UsageError('--runtime is the container runtime of --docker: give --docker IMAGE too');
    const made = ensureWritableDir(outDir);
    try {
      const lock = require('../output-lock.js').lockOutput(outDir); // one run's artifacts, not a mix of several
      try {
        const profiling = { interval, after, coverage: argv.coverage || argv.verifyAdvice, keepRunning: argv.keepAppRunning };
        return argv.docker != null
          ? await profileDocker(argv, ctx, outDir, { after, verifyRuns, timeoutMs: options.timeoutMs })
          : await profileHere(argv, ctx, outDir, { captureOptions: options, profiling, verifyRuns, runs });
      } finally {
        lock.release(); // before a failed run's directories are taken away
      }
    } catch (err) {
      require('../make-dir.js').removeMadeDirs(made); // a failed run leaves nothing behind
      throw err;
    }
  },
};

/** The workflow on this machine (lib/profile/profile-app.js), its report printed. */
async function profileHere(argv, ctx, outDir, { captureOptions, profiling, verifyRuns, runs }) {
  const progress = require('../report/terminal-format.js').progress({ stream: ctx.stderr, quiet: argv.quiet || argv.json, env: ctx.env });
  const { report, interrupted, invocationFailure } = await require('../profile/profile-app.js').profileApp({
    captureOptions, profiling, runs, verifyRuns, outDir, cwd: ctx.cwd, interrupts: require('../interrupt.js').withInterrupts, onProgress: progress.phase,
  }).finally(progress.done);
  printReport(report, argv, ctx);
  if (interrupted) return 130;
  if (invocationFailure) {
    ctx.stderr.write(`coldstart: the first invocation failed (${invocationFailure}); the profile of init and the invocation is written\n`);
    return 1;
  }
  return 0;
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

/** The flags of this profile that the capture inside the container takes as they are. */
function innerProfileArgs(argv) {
  const args = ['--until', argv.until, '--timeout', argv.timeout, '--interval', argv.interval, '--esm', argv.esm];
  if (argv.root) args.push('--root', argv.root);
  if (argv.coverage) args.push('--coverage');
  if (argv.verifyAdvice) args.push('--verify-advice');
  if (argv.after != null) args.push('--after', argv.after);
  for (const request of [].concat(argv.request || [])) args.push('--request', request);
  // No flag has these now: the capture inside, this coldstart too, takes them by their old names.
  if (argv.verifyStarts != null) args.push('--verify-runs', String(argv.verifyStarts));
  if (argv.requestRate != null) args.push('--rate', String(argv.requestRate));
  // A Lambda function: its handler and event are the image's files, found in its WORKDIR.
  if (argv.lambda != null) args.push('--lambda', argv.lambda);
  if (argv.event != null) args.push('--event', argv.event);
  return args;
}

/** profile --docker IMAGE: the workflow in a container (lib/profile/profile-container.js), its report printed. */
async function profileDocker(argv, ctx, outDir, { after, verifyRuns, timeoutMs }) {
  // --cpus: the container's share (coldstart's capture inside waits while the app starts). --memory
  // is refused: the capture's own memory would count against the limit there.
  const limits = require('../options.js').parseLimits(argv);
  if (limits && limits.memoryBytes) throw new UsageError('--memory with --docker: coldstart\'s capture runs inside the container and its own memory would count against the limit; profile on this machine with --memory, or run the image with docker run --memory');
  // Room for the engine to start the container (gVisor is slower) and for every run inside.
  const containerMs = 120_000 + timeoutMs * (1 + 4 * verifyRuns) + (after ? after.ms : 0);
  const { report, appOutput } = await require('../interrupt.js').withInterrupts((traps) => require('../profile/profile-container.js').profileContainer({
    image: argv.docker, runtime: argv.runtime || 'runc', command: argv.appCommand || [], lambda: argv.lambda != null, profileArgs: innerProfileArgs(argv),
    outDir, cwd: ctx.cwd, timeoutMs: containerMs, cpus: limits ? limits.cpus : null, signal: traps.signal,
  }));
  if (appOutput && !argv.quiet) ctx.stderr.write(appOutput.endsWith('\n') ? appOutput : `${appOutput}\n`);
  printReport(report, argv, ctx);
  return report.partial ? 130 : 0;
}
