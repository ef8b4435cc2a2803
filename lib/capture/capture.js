'use strict';
// The backbone: run an app, unchanged, up to its ready moment and hand back what
// happened (a CaptureResult, see DESIGN.md). Every command builds on this.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch } = require('./launch.js');
const { recordedChildren } = require('../in-app/process-start.cjs');
const { attach } = require('./inspector.js');
const { checkCommand, ownInspectorFlag } = require('./command-check.js');
const { collectFiles, findRoot } = require('./startup-files.js');
const { trimProfile } = require('./trim-profile.js');
const { moduleRecords } = require('./module-records.js');
const { CommandError, UsageError } = require('../errors.js');
const { readyMomentEnv } = require('../in-app/ready-moment.cjs');
const { driveRequests, targetOf } = require('./request-driver.js');
const { isNode } = require('../node-command.js');
const { findPackageBin } = require('../package-bin.js');

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
  const interval = options.interval || 1000;
  const coverage = options.coverage === true && !options.timingOnly;

  // --until <duration> counts from the app's start (its first Node process attached), not from
  // the spawn: on a busy machine Node alone can take longer than the duration to start.
  let durationStarted = false;
  const startDuration = () => {
    if (durationStarted) return;
    durationStarted = true;
    timers.push(setTimeout(() => settle({ type: 'duration' }), until.ms));
  };

  const channel = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-'));
  const sessions = new Map(); // pid -> session
  const pids = new Set();
  let settled = false;
  let resolveOutcome;
  const outcome = new Promise((r) => { resolveOutcome = r; });
  let readyOutcome = null;
  const settle = (value) => {
    if (settled) return;
    settled = true;
    if (value.type === 'ready') readyOutcome = value;
    resolveOutcome(value);
  };

  // --lambda: the Runtime API the function's runtime asks for its events; it decides the ready moment.
  const lambda = options.lambda ? await lambdaRuntime() : null;
  const clocks = new Map(); // pid -> process start (µs), timing-only runs of a Lambda function

  const spawnedAt = process.hrtime.bigint();
  const proc = launch({
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

  // The agent of every Node process in the tree announces itself in the channel.
  const seen = new Set();
  const onAnnounce = (name) => {
    if (!name || !name.endsWith('.json') || seen.has(name)) return;
    if (name.endsWith('.ready.json')) return onReadyFile(name);
    if (name.endsWith('.clock.json')) return onClockFile(name);
    let announce;
    try {
      announce = JSON.parse(fs.readFileSync(path.join(channel, name), 'utf8'));
    } catch {
      return; // not complete yet: the rename makes it appear whole later
    }
    seen.add(name);
    pids.add(announce.pid);
    attach(announce, {
      profile,
      interval,
      coverage,
      onReady: (session, payload) => settle({ type: 'ready', session, payload }),
    }).then((session) => {
      sessions.set(session.pid, session);
      if (until.mode === 'duration') startDuration();
      // Attached after the capture ended: let it go (it is ended with the tree). Not the session
      // that reached the ready moment while attaching, nor a Lambda function's (its runtime can
      // finish init before attach() returns): the capture still reads from it.
      if (settled && !lambda && !(readyOutcome && readyOutcome.session === session)) session.resume().then(() => session.close());
    }, (error) => settle({ type: 'attach-failed', pid: announce.pid, error })); // it would wait for us forever
  };
  const onReadyFile = (name) => {
    let payload;
    try {
      payload = JSON.parse(fs.readFileSync(path.join(channel, name), 'utf8'));
    } catch {
      return;
    }
    seen.add(name);
    pids.add(payload.pid);
    settle({ type: 'ready-file', payload, outsideMs: Number(process.hrtime.bigint() - spawnedAt) / 1e6 });
  };
  const onClockFile = (name) => {
    try {
      const { pid, startUs } = JSON.parse(fs.readFileSync(path.join(channel, name), 'utf8'));
      seen.add(name);
      pids.add(pid);
      clocks.set(pid, startUs);
    } catch { /* not complete yet */ }
  };
  const watcher = fs.watch(channel, (_, name) => onAnnounce(name));
  // fs.watch can coalesce events: a slow scan makes sure no announcement is lost.
  const scan = setInterval(() => { for (const n of fs.readdirSync(channel)) onAnnounce(n); }, 50);

  proc.done.then((exit) => {
    // A ready file written in the app's exit handler may not have been seen yet.
    if (!settled) {
      try { for (const n of fs.readdirSync(channel)) onAnnounce(n); } catch { /* removed */ }
    }
    settle({ type: 'exit', exit });
  });
  const timers = [];
  timers.push(setTimeout(() => settle({ type: 'timeout' }), timeoutMs));
  if (until.mode === 'duration' && options.timingOnly) startDuration();
  const onAbort = () => settle({ type: 'interrupted' });
  if (options.signal) {
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  }
  const onForce = () => {
    forced = true;
    for (const s of sessions.values()) s.close();
    proc.kill([...pids, ...childPids(channel)]);
    settle({ type: 'interrupted' });
  };
  let forced = false;
  if (options.force) options.force.addEventListener('abort', onForce, { once: true });

  let result;
  try {
    const what = await outcome;
    result = await finishCapture(what);
  } finally {
    for (const t of timers) clearTimeout(t);
    clearInterval(scan);
    watcher.close();
    if (options.signal) options.signal.removeEventListener('abort', onAbort);
    if (options.force) options.force.removeEventListener('abort', onForce);
    // Held processes are let go first, so the app's own SIGTERM handlers can run.
    for (const s of sessions.values()) { await s.resume(); await s.close(); }
    if (!options.keepRunning || !result) await proc.kill([...pids, ...childPids(channel)]);
    if (lambda) lambda.api.close();
    fs.rmSync(channel, { recursive: true, force: true });
  }
  return result;

  // The Runtime API on 127.0.0.1 and the environment Lambda gives a function.
  async function lambdaRuntime() {
    const { serveRuntimeApi } = require('./lambda-runtime-api.js');
    const { lambdaEnvironment } = require('./lambda-function.js');
    const base = options.env || process.env;
    const { event, handler } = options.lambda;
    let initUs = null;
    const api = await serveRuntimeApi({
      event,
      functionName: base.AWS_LAMBDA_FUNCTION_NAME || 'coldstart-function',
      region: base.AWS_REGION || 'us-east-1',
      onInit: (atUs) => {
        initUs = atUs;
        if (event === undefined) settle({ type: 'lambda', atUs, initUs, invoke: null });
      },
      onInvoked: (invoke) => settle({ type: 'lambda', atUs: invoke.endUs, initUs, invoke }),
      onInitError: (error) => settle({ type: 'lambda-init-error', error }),
    });
    return { api, env: lambdaEnvironment({ handler, taskRoot: cwd, runtimeApi: api.address, env: base }) };
  }

  async function finishCapture(what) {
    if (forced) throw new CommandError('interrupted', { exitCode: 130 });
    if (what.type === 'ready-file') {
      const timed = {
        command, cwd, node: process.version, until: untilLabel(), partial: false, timingOnly: true,
        pid: what.payload.pid, readyAt: what.payload.readyAt, outsideMs: what.outsideMs,
        exitCode: what.payload.exitCode, address: what.payload.address || null,
        lazyLoaded: what.payload.lazyLoaded, // with a COLDSTART_LAZY stand-in: when it was first touched
      };
      // The app runs on (timing-only runs are not held): asked now, before the tree is ended.
      if (options.whileRunning) timed.whileRunning = await options.whileRunning(timed);
      return timed;
    }
    if (what.type === 'ready') {
      const covered = await what.session.takeCoverage(); // still held: no request has run yet
      const cpuProfile = profile ? await what.session.stopProfile() : null;
      const payload = options.settleMs ? await afterSettling(what.session, what.payload) : what.payload;
      const ancestors = await ancestorsOf(what.session);
      const after = options.after ? await afterReadyWindow(what.session, payload) : null;
      const result = buildResult(payload, cpuProfile, false, ancestors, covered);
      if (after) {
        result.network = after.network || result.network;
        result.afterReady = { startMs: after.startMs, endMs: after.endMs, profile: after.profile, sent: after.sent, usedBy: after.usedBy };
      }
      return result;
    }
    if (what.type === 'duration' || what.type === 'interrupted') {
      const session = firstSession();
      if (!session) {
        if (what.type === 'interrupted') throw new CommandError('interrupted before the app started', { exitCode: 130 });
        throw new CommandError(`no Node process of the app started within ${until.ms} ms`);
      }
      const payload = await session.finishNow(what.type);
      const covered = await session.takeCoverage().catch(() => null);
      const cpuProfile = profile ? await session.stopProfile() : null;
      if (!payload) throw new CommandError('the app gave no data before it was stopped');
      return buildResult(payload, cpuProfile, what.type === 'interrupted', [], covered);
    }
    if (what.type === 'lambda') return lambdaResult(what);
    if (what.type === 'lambda-init-error') {
      const { errorType, errorMessage } = what.error;
      const line = `${errorType}: ${errorMessage}`.replace(/\s+/g, ' ').trim();
      if (errorType === 'Runtime.HandlerNotFound') throw new UsageError(`--lambda ${options.lambda.handler}: ${line}`);
      throw new CommandError(`the function failed at init: ${line}`, { code: 'APP_FAILED', details: { stderr: proc.stderrTail() } });
    }
    if (what.type === 'attach-failed') {
      throw new CommandError(`could not attach the profiler to pid ${what.pid} over 127.0.0.1: ${what.error.message}`, { code: 'ATTACH_FAILED' });
    }
    if (what.type === 'timeout') {
      if (until.mode === 'duration') throw new CommandError(`no Node process of the app started within ${timeoutMs / 1000}s (--timeout)`, { code: 'TIMEOUT' });
      if (lambda) throw new CommandError(`the function's runtime did not ${options.lambda.event === undefined ? 'finish init (ask the Runtime API for an event)' : 'answer its first invocation'} within ${timeoutMs / 1000}s (--timeout)`, { code: 'TIMEOUT' });
      const hint = until.mode === 'listen' ? ' (use --until 10s to profile an app that never listens)' : '';
      const moment = until.mode === 'exit' ? 'exit' : until.mode === 'http' ? `answer ${until.url} with a 2xx after it listened` : 'listen';
      throw new CommandError(`the app did not ${moment} within ${timeoutMs / 1000}s (--timeout)${hint}`, { code: 'TIMEOUT' });
    }
    // The tree ended before any process reached the ready moment.
    const { exit } = what;
    if (exit.error) throw new CommandError(`could not start "${command[0]}": ${exit.error.message}`, { code: 'SPAWN' });
    if (!options.timingOnly && !sessions.size && !seen.size) {
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
      const tail = errorLine(proc.stderrTail());
      throw new CommandError(`no Node process of the app started: "${command[0]}" ended (${how})${tail ? ': ' + tail : ''}`,
        { code: 'APP_FAILED', details: { exitCode: exit.code, signal: exit.signal, stderr: proc.stderrTail() } });
    }
    if (exit.code === 0 && until.mode !== 'exit') {
      throw new CommandError('the app exited (code 0) without listening; use --until exit for a script that ends by itself', { code: 'EXIT_WITHOUT_LISTEN' });
    }
    const when = until.mode === 'exit' ? 'before its exit could be recorded' : lambda ? 'before its init ended' : 'before listening';
    throw crashError(exit, proc.stderrTail(), when);
  }

  // The Runtime API saw init end (and the first invocation's answer): the function's process, the
  // newest Node process of the tree (npx and shells come first), ends its recording at that moment.
  async function lambdaResult(what) {
    const invoke = what.invoke && {
      requestId: what.invoke.requestId, ok: what.invoke.ok,
      ms: (what.invoke.endUs - what.invoke.sentUs) / 1000,
      error: what.invoke.ok ? null : require('./lambda-runtime-api.js').parseError(what.invoke.body),
    };
    if (options.timingOnly) {
      const [pid, startUs] = await newest(() => [...clocks].sort((a, b) => b[1] - a[1])[0]);
      return {
        command, cwd, node: process.version, until: untilLabel(), partial: false, timingOnly: true,
        pid, readyAt: (what.atUs - startUs) / 1000, address: null,
        lambda: { initMs: (what.initUs - startUs) / 1000, invoke },
      };
    }
    const session = await newest(() => [...sessions.values()].filter((x) => !x.closed).sort((a, b) => b.announce.startUs - a.announce.startUs)[0]);
    const payload = await session.finishNow('lambda', what.atUs);
    const covered = await session.takeCoverage().catch(() => null);
    const cpuProfile = profile ? await session.stopProfile() : null;
    if (!payload) throw new CommandError('the function gave no data before it was stopped');
    const result = buildResult(payload, cpuProfile, false, await ancestorsOf(session), covered);
    result.lambda = { handler: options.lambda.handler, initMs: (what.initUs - payload.startUs - payload.pausedUs) / 1000, invoke };
    return result;
  }

  /** What pick() finds once the agent's announcement has been read and attached (10 s at most). */
  async function newest(pick) {
    for (let i = 0; i < 1000; i++) {
      for (const n of fs.readdirSync(channel)) onAnnounce(n);
      const found = pick();
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new CommandError('the function\'s Node process did not announce itself to coldstart');
  }

  // The app runs on for settleMs; what it loaded and read meanwhile joins the ready moment's data.
  async function afterSettling(session, payload) {
    await session.resume();
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, options.settleMs);
      if (options.signal) options.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
    });
    const later = await session.snapshotNow('settled').catch(() => null);
    if (!later) return payload; // the app ended meanwhile: what it had at the ready moment
    const { modules, esm, esmReads, reads, resolutions, esmResolutions, builtins } = later;
    return { ...payload, modules, esm, esmReads, reads, resolutions, esmResolutions, builtins };
  }

  // profile --after: the app runs on for after.ms under a second profile, coldstart sending the
  // requests it was given; then what the agent recorded meanwhile (requests served, outbound network).
  async function afterReadyWindow(session, payload) {
    const { ms, requests = [], rate = 2 } = options.after;
    if (profile) await session.startProfile();
    // With coverage, which files each of coldstart's requests ran (the first request to use a
    // module that startup loaded without using it), from V8's counts taken after each answer.
    const usedBy = new Map();
    const covering = coverage && requests.length && !session.closed;
    if (covering) await session.startCoverage();
    await session.resume();
    let sent = null;
    if (requests.length) {
      const target = targetOf(payload.address);
      if (!target) throw new CommandError('--request: the app reported no address to send requests to');
      let taking = Promise.resolve();
      const onAnswered = covering ? (rec) => {
        taking = taking.then(() => session.coverageSince()).then((files) => {
          for (const file of files) if (!usedBy.has(file)) usedBy.set(file, `${rec.method} ${rec.path}`);
        }, () => {});
      } : null;
      sent = (await driveRequests({ target, requests, rate, durationMs: ms, signal: options.signal, onAnswered })).sent;
      await taking;
    } else {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        if (options.signal) options.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    }
    const later = await session.snapshotNow('after-ready').catch(() => null);
    const rawAfter = profile && !session.closed ? await session.stopProfile().catch(() => null) : null;
    // The profile starts while the app is still held at its ready moment: the hold is cut.
    const afterProfile = rawAfter && later ? trimProfile(rawAfter, later.releasedUs, rawAfter.endTime) : null;
    if (!later) throw new CommandError(`the app ended during the ${ms} ms after its ready moment (--after)${errorLine(proc.stderrTail()) ? ': ' + errorLine(proc.stderrTail()) : ''}`, { code: 'APP_FAILED' });
    if (sent && sent.length && sent.every((r) => r.status == null)) {
      const first = sent[0];
      throw new CommandError(`the app answered none of the ${sent.length} requests after its ready moment: ${first.method} ${first.path}: ${first.error}`, { code: 'APP_FAILED' });
    }
    return { usedBy: covering ? Object.fromEntries(usedBy) : null, startMs: (later.releasedUs - later.startUs - later.pausedUs) / 1000, endMs: later.readyAt, network: later.network, profile: afterProfile, sent };
  }

  function untilLabel() {
    if (lambda) return options.lambda.event === undefined ? 'lambda init' : 'lambda first invocation';
    if (until.mode === 'duration') return `${until.ms}ms`;
    return until.mode === 'http' ? until.url : until.mode;
  }

  function firstSession() {
    const list = [...sessions.values()].filter((s) => !s.closed);
    list.sort((a, b) => a.announce.startUs - b.announce.startUs);
    return list[0] || null;
  }

  /**
   * What the Node processes above the ready one (a cluster primary, a launcher that forks the
   * server) loaded and read: the command needs their files too to start.
   */
  async function ancestorsOf(session) {
    const byPid = new Map([...sessions.values()].map((s) => [s.pid, s]));
    const found = [];
    const seenPids = new Set([session.pid]);
    for (let at = byPid.get(session.announce.ppid); at && !seenPids.has(at.pid); at = byPid.get(at.announce.ppid)) {
      seenPids.add(at.pid);
      if (at.closed) continue;
      const data = await at.finishNow('ancestor').catch(() => null);
      if (data) found.push(data);
    }
    return found;
  }

  function buildResult(payload, rawProfile, partial, ancestors = [], covered = null) {
    const cpuProfile = rawProfile && trimProfile(rawProfile, payload.resumeUs, payload.readyUs);
    // A Lambda function's main file is the runtime client's: its code is the task root's.
    const root = options.root ? path.resolve(cwd, options.root) : lambda ? cwd : findRoot(payload.mainFile, cwd);
    // Times from the ready process alone; ES modules no hook timed take their evaluation from its profile.
    const modules = moduleRecords(payload, { profile: cpuProfile, clock: { startUs: payload.startUs, pausedUs: payload.pausedUs } });
    // The files: of its ancestors too (their own records), else of these same modules.
    const bin = !isNode(command[0]) && findPackageBin(command[0], cwd);
    const collected = collectFiles(withAncestors(payload, ancestors), root, ancestors.length ? undefined : modules, bin ? [bin.link] : []);
    const { files, outsideRoot, resolutions, esmResolutions, requires } = collected;
    const loadedFiles = new Set(modules.map((m) => m.file));
    return {
      command,
      cwd,
      root,
      node: process.version,
      appNode: payload.nodeVersion || null,
      until: untilLabel(),
      reason: payload.reason,
      readyAt: payload.readyAt,
      cpuMs: payload.cpuMs ?? null,
      runQueueMs: payload.runQueueMs ?? null,
      // How busy the machine was around the run: the report says when it inflated the times.
      machine: { loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100), cpus: os.availableParallelism() },
      attachMs: payload.waitMs,
      partial,
      pid: payload.pid,
      exitCode: payload.exitCode,
      address: payload.address || null,
      mainFile: payload.mainFile,
      clock: { startUs: payload.startUs, pausedUs: payload.pausedUs, resumeUs: payload.resumeUs, readyUs: payload.readyUs },
      profile: cpuProfile || undefined,
      coverage: covered ? covered.filter((c) => loadedFiles.has(c.file)) : undefined,
      modules,
      builtins: payload.builtins,
      served: payload.served || null,
      files,
      outsideRoot,
      resolutions,
      esmResolutions,
      requires,
      network: payload.network || null, // what startup waited on (network-record.cjs)
    };
  }
}

/** The ready process's data with its ancestors' loads and reads added (for the file list only). */
function withAncestors(payload, ancestors) {
  if (!ancestors.length) return payload;
  const union = (key) => [payload, ...ancestors].flatMap((p) => p[key] || []);
  return {
    ...payload,
    modules: union('modules'),
    esm: union('esm'),
    esmReads: union('esmReads'),
    reads: union('reads'),
    resolutions: union('resolutions'),
    requires: union('requires'),
    esmResolutions: union('esmResolutions'),
  };
}

/** The processes the app's Node processes started, as their agents wrote them down, still running. */
function childPids(channel) {
  let names = [];
  try { names = fs.readdirSync(channel); } catch { return []; }
  return names.filter((n) => n.endsWith('.children')).flatMap((n) => recordedChildren(path.join(channel, n)));
}

function crashError(exit, tail, when) {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  const inUse = tail.some((l) => /EADDRINUSE/.test(l));
  // Node's message names the address ("listen EADDRINUSE: address already in use :::3000"); when
  // a long stack pushed it out of the tail, the error's own fields still say "port: 3000".
  const address = tail.map((l) => /EADDRINUSE\b.*?([\w.:[\]]*:\d+)\s*$/.exec(l)).find(Boolean)
    || tail.map((l) => /^\s*port: (\d+)/.exec(l)).find(Boolean);
  const reason = inUse ? `port already in use${address ? ` (${/^\d+$/.test(address[1]) ? 'port ' : ''}${address[1]})` : ''}` : '';
  const msg = `the app failed ${when} (${how})${reason ? ': ' + reason : ''}${!reason && tail.length ? ': ' + errorLine(tail) : ''}`;
  return new CommandError(msg, { code: inUse ? 'EADDRINUSE' : 'APP_FAILED', details: { exitCode: exit.code, signal: exit.signal, stderr: tail } });
}

/** The most telling stderr line: the thrown error if there is one, else the last line. */
function errorLine(tail) {
  const lines = tail.map((l) => l.trim()).filter((l) => l && !/^Node\.js v\d/.test(l));
  const thrown = [...lines].reverse().find((l) => /^([A-Z]\w*)?(Error|Exception)\b.*:/.test(l) || /^Uncaught /.test(l));
  return thrown || lines[lines.length - 1] || '';
}

module.exports = { capture };
