'use strict';
// coldstart bench: many cold starts of one or more ways to start an app, timed to the ready
// moment, with statistics, a terminal histogram, and raw samples / a chart on request.
const path = require('node:path');
const { parseCount, parseBenchUntil, parseDuration, parseLimits, DEFAULT_RUNTIMES, parseCompareCommand, parseRuntimes, containerReadyLine, savedFromArgv } = require('../options.js');
const { UsageError } = require('../errors.js');

const DEFAULT_BASE_IMAGE = 'coldstart-node:local';

/** --node goes with one app command, run on this machine; its entries, not yet resolved. */
function checkNodeUse(argv, commands, inDocker, ctx) {
  if (argv.compare !== undefined) throw new UsageError('--node compares Node versions on one app command: use it without --compare');
  if (inDocker) throw new UsageError('--node runs on this machine: with --containers, build --base-image from the node binary to time');
  if (!commands.length) throw new UsageError('--node needs the app command after --, e.g. coldstart bench --node 22,24 -- node server.js');
  const { parseNodeList, checkStartsNode } = require('../bench/node-versions.js');
  const list = parseNodeList(argv.node, ctx.cwd);
  checkStartsNode(commands[0], ctx.cwd, ctx.env);
  return list;
}

/** Binaries and versions of --node, registry versions installed first (Ctrl-C ends an install). */
async function resolveNodeList(list, argv, ctx) {
  const { resolveNodes } = require('../bench/node-versions.js');
  const { nodeCacheDir } = require('../bench/node-install.js');
  const progress = benchProgress(argv, ctx);
  try {
    return await require('../interrupt.js').withInterrupts((traps) => resolveNodes(list, { cacheDir: nodeCacheDir(ctx.env), env: ctx.env, onProgress: progress.phase, signal: traps.signal }));
  } finally {
    progress.done();
  }
}

// ---------------------------------------------------------------------------------------------
// Output

const { progress: phaseProgress } = require('../report/terminal-format.js');
const { renderText, renderCsv } = require('../report/bench-summary.js');

/** The result as a file of this format: html (bench/chart.js), csv or json. */
function renderFile(result, format) {
  if (format === 'html') return require('../bench/chart.js').renderBenchHtml(result);
  if (format === 'csv') return renderCsv(result);
  return JSON.stringify(result, null, 2) + '\n';
}

/** Installs, image builds and runs as progress phases (lib/report/terminal-format.js). */
function benchProgress(argv, ctx) {
  return phaseProgress({ stream: ctx.stderr, quiet: argv.quiet || argv.json, env: ctx.env });
}

// ---------------------------------------------------------------------------------------------

module.exports = {
  command: 'bench [app..]',
  describe: 'time many cold starts of an app, locally or in containers under runc and gVisor',
  builder(yargs) {
    return yargs
      .option('runs', { alias: 'n', requiresArg: true, default: 20, describe: 'cold starts per series (each a fresh process or container), after one warm-up round (not counted)' })
      .option('until', { type: 'string', requiresArg: true, default: 'listen', describe: 'ready moment: listen (or tcp) | exit | http:/healthz (the first 2xx of a readiness URL, local runs) | line:/REGEX/ (with --containers: the first line of the app\'s output that matches, case-insensitive; listen there is line:/listening/)' })
      .option('timeout', { type: 'string', requiresArg: true, default: '60s', describe: 'a run that is not ready after this long fails' })
      .option('compare', { type: 'array', string: true, describe: 'commands to compare, each one quoted string' })
      .option('node', { type: 'string', requiresArg: true, describe: 'time the app on each Node, comma separated: versions from the npm registry (22, 24.13.1; installed once into ~/.cache/coldstart/node) or paths of node binaries' })
      .option('cpus', { type: 'string', requiresArg: true, describe: 'every run with this share of one CPU, as a platform gives it (0.5): a cgroup made for each run, or docker run --cpus with --containers' })
      .option('memory', { type: 'string', requiresArg: true, describe: 'every run under this memory limit (256MiB, 512Mi, 64m): a cgroup, or docker run --memory with --containers' })
      .option('containers', { type: 'string', requiresArg: true, describe: `run every sample in a fresh container (--network none) under each of these runtimes the Docker engine has (runc, runsc = gVisor, a second gVisor build such as runsc-2024), e.g. ${DEFAULT_RUNTIMES}` })
      .option('base-image', { type: 'string', requiresArg: true, default: DEFAULT_BASE_IMAGE, describe: 'image with node to build on (--containers); .ci/docker-up.sh builds the default' })
      .option('out', { type: 'string', requiresArg: true, describe: 'also write the result to this file, its extension picks the form: .html a self-contained chart, .csv the samples, .json the whole result (as --json prints it)' })
      .example('# time to ready, 50 cold starts', '').example('$0 bench -n 50 -- node index.js', '')
      .example('# the samples charted in one HTML file', '').example('$0 bench -n 50 -o bench.html -- node index.js', '')
      .example('# in containers, under runc and gVisor', '').example('$0 bench -n 20 --containers runc,runsc -- node index.js', '')
      .example('$0 bench -n 20 --compare "node index.js" "coldstart start --archive s.tar -- node index.js"', '')
      .example('# which Node starts the app faster', '').example('$0 bench -n 20 --node 22,24,26 -- node index.js', '');
  },
  async run(argv, ctx) {
    const plan = await benchFlags(argv, ctx);
    const progress = benchProgress(argv, ctx);
    const result = await require('../bench/bench-plan.js').runBenchPlan({ ...plan.run, onProgress: progress.phase }).finally(progress.done);
    const { writeFileAtomic } = require('../write-atomic.js');
    for (const w of plan.written) writeFileAtomic(w.file, renderFile(result, w.format));
    if (argv.json) {
      ctx.stdout.write(JSON.stringify(result, null, 2) + '\n');
    } else if (!argv.quiet) {
      ctx.stdout.write(renderText(result, { color: ctx.color }));
      for (const w of plan.written) ctx.stdout.write(`${w.format}: ${path.relative(ctx.cwd, w.file) || w.file}\n`);
    }
    return result.partial ? 130 : 0;
  },
};

/**
 * The flags checked before anything runs (one line and exit 2 for a bad one; the runtimes asked
 * of the engine before an image is built, the Nodes installed): what runBenchPlan takes, and the
 * files to write the result to.
 */
async function benchFlags(argv, ctx) {
  const runs = parseCount(argv.runs, '-n', 1);
  const until = parseBenchUntil(argv.until);
  if (until.mode === 'duration') {
    throw new UsageError(`--until ${argv.until}: bench times the way to listen or to exit; a fixed duration has nothing to time`);
  }
  const timeoutMs = parseDuration(argv.timeout, '--timeout');
  const limits = parseLimits(argv);
  // The internal values of old flags (lib/deprecated-flags.js): the seed scenarios, their app, the
  // warm-up rounds, files written besides -o's and the app's line in a container.
  const scenarios = argv.scenarios || [];
  const inDocker = argv.containers != null;
  const runtimes = inDocker ? parseRuntimes(argv.containers) : [];
  if (until.mode === 'line' && !inDocker) throw new UsageError(`--until ${argv.until}: a line of output is how a start in a container is seen: give --containers too, or use listen, exit or http:/path here`);
  const readyLine = containerReadyLine(until, argv.readyPattern);
  const saved = savedFromArgv(argv, ctx.cwd);
  const commands = benchCommands(argv, ctx, scenarios);
  const nodeList = argv.node === undefined ? null : checkNodeUse(argv, commands, inDocker, ctx);
  if (inDocker) await require('../docker.js').checkRuntimes(runtimes, '--containers'); // before any image is built
  const nodes = nodeList ? await resolveNodeList(nodeList, argv, ctx) : [];
  return {
    run: {
      commands, nodes, scenarios, fixtureDir: argv.fixtureDir, inDocker, runtimes, baseImage: argv.baseImage, readyLine,
      // In a container the line is the ready moment of listen: the runs go to it as they go to a listen.
      cwd: ctx.cwd, env: ctx.env, runs, warmup: argv.warmupRounds ?? 1, until: until.mode === 'line' ? { mode: 'listen' } : until, timeoutMs, limits,
    },
    written: [...(saved ? [saved] : []), ...(argv.alsoWritten || [])],
  };
}

/** The commands to time (the app's, then each --compare), each checked to be one that can start here. */
function benchCommands(argv, ctx, scenarios) {
  const commands = [];
  if (argv.appCommand.length) commands.push(argv.appCommand);
  for (const line of argv.compare || []) commands.push(parseCompareCommand(String(line)));
  if (!commands.length && !scenarios.length) {
    throw new UsageError('missing app command: put it after --, e.g. coldstart bench -n 20 -- node server.js (or use --compare)');
  }
  const { localCommand } = require('../bench/bench-plan.js');
  const { checkCommand } = require('../capture/command-check.js');
  for (const words of commands) checkCommand(localCommand(words), ctx.cwd);
  return commands;
}
