'use strict';
// Repeated cold starts. A series is one way of starting an app: a local command (timed inside
// the app by the preloaded timing hook, and outside from spawn), or a container under runc or
// runsc (timed from `docker run` to the app's listening line). Samples of all series are
// interleaved, one of each per round, by the alternating-runs engine (lib/measure/), so slow
// drifts of a shared machine hit every series alike.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { capture } = require('../capture/capture.js');
const { readyMomentEnv } = require('../capture/launch.js');
const { summarize } = require('../stats.js');
const { ms } = require('../report/terminal-format.js');
const { compareSeries } = require('./comparisons.js');
const { CommandError, UsageError } = require('../errors.js');
const { alternateRuns, STOP } = require('../measure/alternate-runs.js');
const { runningBinary } = require('./node-versions.js');

// Enough for the app's own last lines above a Node 22+ crash (its stack alone takes about 15).
const STDERR_TAIL_LINES = 30;

/**
 * @typedef {object} Series
 * @property {string} label              how the series is named in every output
 * @property {'local'|'docker'} where
 * @property {string[]} command          local: the command to spawn; docker: the container's command
 * @property {string} [cwd]              local only
 * @property {Record<string,string>} [env]  local: the whole environment; docker: extra variables
 * @property {boolean} [freshTmp]        local only: TMPDIR is a new empty directory for each run
 * @property {string} [image]            docker only
 * @property {string} [runtime]  docker only: a runtime of the engine (runc, runsc, ...)
 * @property {RegExp} [ready]            docker only: the app's listening line
 * @property {string[]} [tmpfs]          docker only, e.g. ['/tmp:rw,exec,size=512m']
 * @property {string} [binary]           local only: the node binary the app must become ready in (--node)
 * @property {object} [meta]             copied into the series' result (scenario, runtime, ...)
 */

/** Keeps the last lines written to it (the app's stderr), as a stream-like sink. */
function tailCollector(limit = STDERR_TAIL_LINES) {
  let lines = [];
  let partial = '';
  return {
    write(chunk) {
      const parts = (partial + String(chunk)).split('\n');
      partial = parts.pop();
      lines.push(...parts);
      if (lines.length > limit) lines = lines.slice(-limit);
      return true;
    },
    lines: () => (partial ? [...lines, partial] : lines).slice(-limit),
  };
}

function withOutput(message, lines, what) {
  const shown = lines.map((l) => l.trimEnd()).filter(Boolean);
  if (!shown.length) return message;
  return `${message}\n  ${what}:\n${shown.map((l) => `  | ${l}`).join('\n')}`;
}

/**
 * Capture's failure messages, worded for a benchmark: capture speaks of profiling, and in its
 * timing-only mode it cannot tell "no Node process" from "a process that ended early".
 */
function benchMessage(err, until) {
  const details = err.details || {};
  if (err.code === 'APP_FAILED' && ('exitCode' in details || 'signal' in details)) {
    const how = details.signal ? `signal ${details.signal}` : `exit code ${details.exitCode}`;
    if (details.exitCode === 0 && (until.mode === 'listen' || until.mode === 'answer')) {
      return 'the app exited (code 0) without listening; use --until exit for a script that ends by itself';
    }
    const thrown = /\((?:exit code|signal) [^)]*\): (.+)$/.exec(err.message);
    return `the app ended (${how}) before it was ready${thrown ? `: ${thrown[1]}` : ''}`;
  }
  return err.message.replace(/ \(use --until [^)]*\)$/, '');
}

async function localSample(series, { until, timeoutMs, signal, force, scratch, limits }) {
  const stderr = tailCollector();
  const env = { ...(series.env || process.env) };
  let tmp = null;
  if (series.freshTmp) {
    tmp = fs.mkdtempSync(path.join(scratch, 'tmp-'));
    env.TMPDIR = tmp;
  }
  try {
    const r = await capture({
      command: series.command, cwd: series.cwd, env, until, timeoutMs, timingOnly: true, limits,
      stderr, signal, force,
      // Read after the ready moment, while the app still runs: not part of the time.
      whileRunning: series.binary ? (timed) => runningBinary(timed.pid) : undefined,
    });
    if (series.binary && r.whileRunning && r.whileRunning !== fs.realpathSync(series.binary)) {
      throw new CommandError(`the app became ready on ${r.whileRunning}, not on ${series.binary}: `
        + 'start it with node or an npm script, which take the chosen Node from PATH', { code: 'OTHER_NODE' });
    }
    return { inside: r.readyAt, outside: r.outsideMs, wait: r.runQueueMs };
  } catch (err) {
    if (err instanceof CommandError && err.exitCode !== 130) {
      throw new CommandError(withOutput(benchMessage(err, until), stderr.lines(), 'its stderr'), { code: err.code, details: err.details });
    }
    throw err;
  } finally {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function dockerSample(series, { until, timeoutMs, limits }) {
  const { runContainer } = require('../docker.js');
  const toExit = until.mode === 'exit';
  const r = await runContainer({
    image: series.image, runtime: series.runtime, args: series.command, tmpfs: series.tmpfs || [],
    env: series.env || {}, until: toExit ? undefined : series.ready, timeoutMs,
    // --cpus/--memory: the container's share and limit, as a platform gives them.
    dockerArgs: limits ? [...(limits.cpus ? ['--cpus', String(limits.cpus)] : []), ...(limits.memoryBytes ? ['--memory', String(limits.memoryBytes)] : [])] : [],
  });
  const output = (text) => text.trim().split('\n').slice(-STDERR_TAIL_LINES);
  if (toExit ? r.timedOut || r.code !== 0 : !r.matched) {
    const why = r.timedOut ? `did not ${toExit ? 'exit' : `print ${series.ready}`} within ${timeoutMs / 1000}s (--timeout)`
      : toExit ? `exited with code ${r.code}`
        : `exited (code ${r.code}) without printing its listening line ${series.ready}`;
    let message = withOutput(`the container ${why}`, output(r.stderr), 'its stderr');
    if (!r.stderr.trim()) message = withOutput(message, output(r.stdout), 'its stdout');
    throw new CommandError(message, { code: r.timedOut ? 'TIMEOUT' : 'APP_FAILED' });
  }
  return { outside: r.ms };
}

/**
 * Runs every series `warmup` times (not counted), then `runs` rounds of one sample per series.
 * Stops at the first failing run: its error names the series and the run, with the app's stderr.
 * @param {{series: Series[], runs: number, warmup?: number, until?: {mode: 'listen'|'exit'},
 *   timeoutMs?: number, limits?: {cpus: ?number, memoryBytes: ?number}, signal?: AbortSignal, force?: AbortSignal,
 *   onProgress?: (text: string) => void}} options
 *   onProgress: told after each run, e.g. 'run 3/42: node index.js 51.2 ms'
 *   signal: stop after the current run and return what was gathered (partial); force: kill now
 * @returns {Promise<{runs: number, warmup: number, until: string, partial: boolean, order: number[],
 *   series: {label: string, where: string, command: string[], metric: 'inside'|'outside',
 *   inside: number[], outside: number[], wait: number[], stats: {inside: ?object, outside: object}}[],
 *   comparisons: ReturnType<typeof compareSeries>}>}
 *   inside is empty (and its stats null) for containers: there the time is measured outside only;
 *   order is the index of the series of each counted run, in the order they ran (each round's order drawn at random)
 */
async function runBench({ series, runs, warmup = 1, until = { mode: 'listen' }, timeoutMs = 60_000, limits = null, signal, force, onProgress }) {
  if (!Array.isArray(series) || series.length === 0) throw new UsageError('nothing to benchmark');
  if (!Number.isInteger(runs) || runs < 1) throw new UsageError(`runs must be a whole number >= 1, got ${runs}`);
  if (!['listen', 'answer', 'exit', 'http'].includes(until.mode)) {
    throw new UsageError('bench times the way to listen, to a readiness URL or to exit: --until takes listen, http:/path or exit here');
  }
  if (until.mode === 'http' && series.some((s) => s.where === 'docker')) {
    throw new UsageError('--until http: is for local runs: containers are timed to their listening line');
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-'));
  const results = series.map((s) => ({
    ...(s.meta || {}),
    label: s.label,
    where: s.where,
    command: s.command,
    ...(s.where === 'docker' ? { runtime: s.runtime, image: s.image } : {}),
    metric: s.where === 'docker' ? 'outside' : 'inside',
    inside: [],
    outside: [],
    wait: [], // per run, ms the app waited for a CPU before its ready moment (local runs where the kernel says)
  }));
  const total = series.length * (warmup + runs);
  let done = 0;
  const stopContainers = () => require('../docker.js').stopAllContainers();
  if (force) force.addEventListener('abort', stopContainers, { once: true });

  // One start of series i: its sample, or STOP when it was interrupted.
  const one = async (i, round, isWarmup) => {
    const s = series[i];
    const options = { until, timeoutMs, limits, signal, force, scratch };
    let sample;
    try {
      sample = s.where === 'docker' ? await dockerSample(s, options) : await localSample(s, options);
    } catch (err) {
      if (force && force.aborted) throw new CommandError('interrupted', { exitCode: 130 });
      if (signal && signal.aborted) return STOP;
      if (err instanceof CommandError) {
        const which = isWarmup ? `warm-up run ${round + 1}` : `run ${round + 1} of ${runs}`;
        throw new CommandError(`${s.label}: ${which} failed: ${err.message}`, { code: err.code, details: err.details });
      }
      throw err;
    }
    done += 1;
    if (onProgress) onProgress(`${isWarmup ? 'warm-up ' : ''}run ${done}/${total}: ${s.label} ${ms(sample[results[i].metric])}`);
    return sample;
  };

  let measured;
  try {
    measured = await alternateRuns({
      variants: series.map((s, i) => ({ name: String(i), run: ({ round, warmup: isWarmup }) => one(i, round, isWarmup) })),
      rounds: runs,
      warmup,
      signal,
    });
  } finally {
    if (force) force.removeEventListener('abort', stopContainers);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const order = measured.order.map((o) => Number(o.variant));
  results.forEach((r, i) => {
    for (const sample of measured.samples[String(i)]) {
      if (sample.inside !== undefined) r.inside.push(sample.inside);
      r.outside.push(sample.outside);
      if (sample.wait != null) r.wait.push(sample.wait);
    }
  });
  const partial = measured.partial;

  for (const r of results) {
    r.stats = {
      inside: r.where === 'docker' ? null : summarize(r.inside),
      outside: summarize(r.outside),
    };
  }
  return { runs, warmup, until: readyMomentEnv(until), partial, order, series: results, comparisons: compareSeries(results) };
}

// ---------------------------------------------------------------------------------------------
// Images for the container series

/** The Dockerfile of a bench image: the base image's node, the app copied to /app. */
const BENCH_DOCKERFILE = [
  '# Written by coldstart bench: the app as it is, on the given base image.',
  'ARG NODE_IMAGE=node:20-slim',
  'FROM ${NODE_IMAGE}',
  'WORKDIR /app',
  'COPY . .',
  '',
].join('\n');

let imageSequence = 0;

/**
 * Builds an image of a prepared context (the app with its node_modules) on `baseImage`,
 * with no network. The Dockerfile is written beside the context, not into it.
 * @param {{context: string, baseImage: string, onOutput?: (chunk: string) => void}} options
 * @returns {Promise<{tag: string, ms: number}>}
 * @throws {CommandError} when the base image is missing or the build fails
 */
async function buildBenchImage({ context, baseImage, onOutput }) {
  const { buildImage, docker } = require('../docker.js');
  const base = await docker(['image', 'inspect', '--format', '{{.Id}}', baseImage]);
  if (base.code !== 0) {
    const hint = /^coldstart-node/.test(baseImage) ? 'run .ci/docker-up.sh, which builds it'
      : 'no image can be pulled here: build or load it first, or use --base-image coldstart-node:local';
    throw new CommandError(`base image ${baseImage} is not in the Docker engine: ${hint}`, { code: 'DOCKER_BASE_MISSING' });
  }
  const dockerfile = path.join(path.dirname(path.resolve(context)), `Dockerfile.coldstart-bench-${process.pid}`);
  fs.writeFileSync(dockerfile, BENCH_DOCKERFILE);
  const tag = `coldstart-bench:${process.pid}-${++imageSequence}`;
  try {
    const built = await buildImage({ context, dockerfile, tag, buildArgs: { NODE_IMAGE: baseImage }, onOutput });
    return { tag, ms: built.ms };
  } finally {
    fs.rmSync(dockerfile, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * The machine a benchmark ran on, for every report: CPU model, cores, memory, OS, Node.
 * @returns {{cpu: string, cores: number, memoryGb: number, os: string, node: string}}
 */
function describeMachine() {
  let cpu = os.cpus()[0] ? os.cpus()[0].model.trim() : 'unknown CPU';
  try {
    const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
    const model = /^model name\s*:\s*(.+)$/m.exec(info);
    if (model) cpu = model[1].trim();
  } catch { /* not Linux */ }
  return {
    cpu,
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30 * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}

module.exports = { runBench, buildBenchImage, describeMachine };
