'use strict';
// The backbone: run an app, unchanged, up to its ready moment and hand back what
// happened (a CaptureResult, see DESIGN.md). Every command builds on this.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { checkCommand, ownInspectorFlag } = require('./command-check.js');
const { CommandError, UsageError } = require('../errors.js');
const { launch, readyMomentEnv } = require('./launch.js');
const { followProcessTree } = require('./process-tree.js');
const { captureResult, timedResult } = require('./capture-result.js');
const { captureFailure } = require('./capture-failure.js');
const { afterSettling, afterReadyWindow } = require('./after-ready.js');

/**
 * @typedef {object} CaptureOptions
 * @property {string[]} command        the app command, e.g. ['node', 'server.js']
 * @property {string} [cwd]
 * @property {object} [env]
 * @property {{mode: 'listen'|'exit'|'duration'|'http', ms?: number, url?: string}} [until]  http: the
 *   first 2xx of a readiness URL (http:/path or http://:PORT/path), polled from the first listen
 * @property {number} [timeoutMs]      overall limit for listen/exit (default 60 s)
 * @property {boolean} [profile]       run the V8 CPU profiler (default true)
 * @property {number} [interval]       sampling interval in µs (default 1000)
 * @property {boolean} [coverage]      record which functions ran before ready, for the lazy-load advice (default false)
 * @property {{cpus: ?number, memoryBytes: ?number}} [limits] --cpus/--memory: the app runs in a cgroup
 *   made for the run with that CPU share and memory limit; the result says so in `limits`
 * @property {boolean} [memory]        which code allocated the heap alive at the ready moment (default true; V8's heap sampling)
 * @property {string} [root]           app root (default: nearest package.json above the entry)
 * @property {boolean} [keepRunning]   leave the app up after capture
 * @property {'auto'|'always'|'never'} [esm] when to install ESM loader hooks
 * @property {NodeJS.WritableStream} [stdout]  where the app's output goes
 * @property {NodeJS.WritableStream} [stderr]
 * @property {AbortSignal} [signal]    abort = stop now and return a partial result
 * @property {AbortSignal} [force]     abort = kill the app now, return nothing
 * @property {boolean} [timingOnly]    only the ready moment (benchmarks): no inspector, no module data
 * @property {(result: object) => Promise<any>} [whileRunning] timing-only: called once the app is
 *   ready, before it is ended (to ask it something); what it resolves to is result.whileRunning
 * @property {number} [settleMs]       keep recording modules and file reads this long after the ready
 *   moment, the app running on (pack --after); readyAt stays the ready moment
 * @property {{ handler: string, event?: any }} [lambda] a Lambda function (until { mode: 'lambda' }):
 *   the Runtime API served here decides the ready moment: init done, or with an event the answer
 *   to the first invocation; the result's `lambda` holds init and the invocation apart
 * @property {{ ms: number, requests?: Array<{method: string, path: string}>, rate?: number }} [after]
 *   a window after the ready moment (profile --after): the app runs on this long under a profile of
 *   its own while its requests and outbound network are recorded; with `requests`, coldstart sends
 *   them to the app's address, `rate` per second (default 2), in turn
 */

/**
 * Captures one startup.
 * @param {CaptureOptions} options
 * @returns {Promise<object>} the CaptureResult
 */
async function capture(options) {
  const cwd = path.resolve(options.cwd || process.cwd());
  const command = checkCommand(options.command, cwd);
  const inspectFlag = options.timingOnly ? null : ownInspectorFlag(command, options.env || process.env);
  if (inspectFlag) throw new UsageError(`the app opens its own inspector (${inspectFlag}): coldstart profiles through it, so remove the flag`);
  const until = options.until || { mode: 'listen' };
  const timeoutMs = options.timeoutMs || 60000;
  const profile = options.profile !== false;
  const coverage = options.coverage === true && !options.timingOnly;
  const heapSampling = options.memory !== false && !options.timingOnly;
  const run = { command, cwd, root: options.root, until, lambda: options.lambda };

  const channel = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-'));
  const end = firstOutcome();
  const timers = [];
  // --until <duration> counts from the app's start (its first Node process attached), not from
  // the spawn: on a busy machine Node alone can take longer than the duration to start.
  let durationStarted = false;
  const startDuration = () => {
    if (durationStarted) return;
    durationStarted = true;
    timers.push(setTimeout(() => end.settle({ type: 'duration' }), until.ms));
  };

  // --lambda: the Runtime API the function's runtime asks for its events; it decides the ready moment.
  const lambdaCapture = options.lambda ? require('./lambda-capture.js') : null;
  const lambda = lambdaCapture ? await lambdaCapture.serveLambdaRuntime(options.lambda, { cwd, env: options.env || process.env, settle: end.settle }) : null;

  const { limit, proc, spawnedAt } = launchApp({ options, command, cwd, channel, until, lambda });
  run.commandFiles = proc.commandFiles;
  // The agent of every Node process in the tree announces itself in the channel.
  const tree = followProcessTree({
    channel, spawnedAt, end,
    attachOptions: { profile, interval: options.interval || 1000, coverage, heapSampling },
    keepLateSessions: Boolean(lambda),
    onAttached: () => { if (until.mode === 'duration') startDuration(); },
  });

  settleOnExit(proc, end, tree);
  timers.push(setTimeout(() => end.settle({ type: 'timeout' }), timeoutMs));
  if (until.mode === 'duration' && options.timingOnly) startDuration();
  const aborts = watchAborts(options, end, tree, proc);

  let result;
  try {
    result = await outcomeResult(await end.outcome, { run, tree, proc, limit, options, profile, coverage, timeoutMs, lambdaCapture, forced: aborts.forced });
  } finally {
    for (const t of timers) clearTimeout(t);
    tree.stopWatching();
    aborts.remove();
    await tree.releaseAll();
    if (!options.keepRunning || !result) await proc.kill(tree.allPids());
    if (lambda) lambda.api.close();
    if (limit) limit.close();
    fs.rmSync(channel, { recursive: true, force: true });
  }
  if (result && limit) result.limits = { cpus: limit.cpus, memoryBytes: limit.memoryBytes, how: limit.how };
  return result;
}

/**
 * --cpus/--memory: the run's own cgroup (refused in one line where none can be made), then the
 * app launched in it. Either refused: nothing of the capture is left (channel, Lambda API, cgroup).
 */
function launchApp({ options, command, cwd, channel, until, lambda }) {
  const cleanUp = (limit) => {
    fs.rmSync(channel, { recursive: true, force: true });
    if (lambda) lambda.api.close();
    if (limit) limit.close();
  };
  let limit = null;
  try {
    limit = options.limits ? require('./resource-limit.js').openLimit(options.limits) : null;
  } catch (err) {
    cleanUp(null);
    throw err;
  }
  const spawnedAt = process.hrtime.bigint();
  try {
    const proc = launch({
      limit,
      command,
      cwd,
      env: lambda ? lambda.env : options.env || process.env,
      channel,
      until: readyMomentEnv(until),
      esm: options.esm,
      timingOnly: options.timingOnly,
      settleMs: options.settleMs,
      afterMs: options.after ? options.after.ms : 0,
      stdout: options.stdout,
      stderr: options.stderr,
    });
    return { limit, proc, spawnedAt };
  } catch (err) { // refused before anything ran: nothing of the capture is left
    cleanUp(limit);
    throw err;
  }
}

/** The app's process ended: the outcome, unless it was ready (its exit handler may have written the ready file). */
function settleOnExit(proc, end, tree) {
  proc.done.then((exit) => {
    // A ready file written in the app's exit handler may not have been seen yet.
    if (!end.settled) {
      try { tree.rescan(); } catch { /* removed */ }
    }
    end.settle({ type: 'exit', exit });
  });
}

/**
 * options.signal aborted: stop now, with a partial result; options.force aborted: kill the app now,
 * with none (forced() says so).
 */
function watchAborts(options, end, tree, proc) {
  const onAbort = () => end.settle({ type: 'interrupted' });
  if (options.signal) {
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  }
  let forced = false;
  const onForce = () => {
    forced = true;
    tree.closeAll();
    proc.kill(tree.allPids());
    end.settle({ type: 'interrupted' });
  };
  if (options.force) options.force.addEventListener('abort', onForce, { once: true });
  return {
    forced: () => forced,
    remove() {
      if (options.signal) options.signal.removeEventListener('abort', onAbort);
      if (options.force) options.force.removeEventListener('abort', onForce);
    },
  };
}

/** What the capture hands back for its first outcome (ready, stopped, Lambda), or the failure it throws. */
async function outcomeResult(what, { run, tree, proc, limit, options, profile, coverage, timeoutMs, lambdaCapture, forced }) {
  if (forced()) throw new CommandError('interrupted', { exitCode: 130 });
  if (what.type === 'ready-file') {
    const timed = timedResult(what.payload, run, what.outsideMs);
    // The app runs on (timing-only runs are not held): asked now, before the tree is ended.
    if (options.whileRunning) timed.whileRunning = await options.whileRunning(timed);
    return timed;
  }
  if (what.type === 'ready') return readyResult(what.session, what.payload, { run, tree, options, profile, coverage, stderrTail: proc.stderrTail });
  if (what.type === 'duration' || what.type === 'interrupted') return stoppedResult(what.type === 'interrupted', { run, tree, profile });
  if (what.type === 'lambda') return lambdaCapture.lambdaResult(what, { run, tree, profile, timingOnly: options.timingOnly });
  if (what.type === 'exit' && limit && limit.killedForMemory()) {
    const { formatLimit } = require('../byte-size.js');
    throw new CommandError(`the app was killed for memory before its ready moment: it went over --memory ${formatLimit(limit.memoryBytes)}, as a platform with that limit would kill it`, { code: 'OUT_OF_MEMORY' });
  }
  const failure = captureFailure(what, { run, timeoutMs, timingOnly: options.timingOnly, heardFrom: tree.heardFrom(), listened: tree.listened(), stderrTail: proc.stderrTail });
  // A start that hung: what it was doing, taken before it is ended.
  if (what.type === 'timeout' && failure.code === 'TIMEOUT' && !run.lambda && run.until.mode !== 'duration') {
    const { hungStart, hungLine } = require('./hung-start.js');
    const hung = await hungStart({ session: tree.firstSession(), pid: proc.nodePids()[0], inspectorUrl: proc.inspectorUrl });
    if (hung) {
      failure.message = `${failure.message}: ${hungLine(hung, (file) => path.relative(run.cwd, file) || file)}`;
      failure.details = { ...failure.details, hung };
    }
  }
  throw failure;
}

/**
 * A process reached the ready moment and is held there: its data, then what came after.
 * @param {{run: object, tree: object, options: object, profile: boolean, coverage: boolean, stderrTail: () => string[]}} context
 */
async function readyResult(session, readyPayload, { run, tree, options, profile, coverage, stderrTail }) {
  const covered = await session.takeCoverage(); // still held: no request has run yet
  const heapProfile = await session.heapProfileNow();
  const cpuProfile = profile ? await session.stopProfile() : null;
  const payload = options.settleMs ? await afterSettling(session, readyPayload, { settleMs: options.settleMs, signal: options.signal }) : readyPayload;
  const ancestors = await tree.ancestorsOf(session);
  const after = options.after
    ? await afterReadyWindow(session, payload, { after: options.after, profile, coverage, signal: options.signal, stderrTail })
    : null;
  const result = captureResult(payload, run, { profile: cpuProfile, ancestors, covered, heapProfile });
  if (after) {
    result.network = after.network || result.network;
    result.afterReady = { startMs: after.startMs, endMs: after.endMs, profile: after.profile, sent: after.sent, usedBy: after.usedBy };
  }
  return result;
}

/** --until <duration> or an interrupt: the first process of the tree stops where it is. */
async function stoppedResult(interrupted, { run, tree, profile }) {
  const session = tree.firstSession();
  if (!session) {
    if (interrupted) throw new CommandError('interrupted before the app started', { exitCode: 130 });
    throw new CommandError(`no Node process of the app started within ${run.until.ms} ms`);
  }
  const payload = await session.finishNow(interrupted ? 'interrupted' : 'duration');
  const covered = await session.takeCoverage().catch(() => null);
  const cpuProfile = profile ? await session.stopProfile() : null;
  if (!payload) throw new CommandError('the app gave no data before it was stopped');
  return captureResult(payload, run, { profile: cpuProfile, partial: interrupted, covered });
}

/**
 * The capture's outcome: the first of the ready moment, the app's exit, a timeout or an interrupt
 * settles it; whatever comes later is ignored. `ready` is the outcome when it was a ready moment.
 */
function firstOutcome() {
  let resolve;
  const end = {
    outcome: new Promise((r) => { resolve = r; }),
    settled: false,
    ready: null,
    settle(value) {
      if (end.settled) return;
      end.settled = true;
      if (value.type === 'ready') end.ready = value;
      resolve(value);
    },
  };
  return end;
}

module.exports = { capture };
