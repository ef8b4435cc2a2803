'use strict';
// The backbone: run an app, unchanged, up to its ready moment and hand back what
// happened (a CaptureResult, see DESIGN.md). Every command builds on this.
const { EventEmitter } = require('events');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch } = require('./launch.js');
const { attach } = require('./inspector.js');
const { checkCommand } = require('./command-check.js');
const { collectFiles, findRoot } = require('./startup-files.js');
const { trimProfile } = require('./trim-profile.js');
const { CommandError } = require('../errors.js');

/**
 * @typedef {object} CaptureOptions
 * @property {string[]} command        the app command, e.g. ['node', 'server.js']
 * @property {string} [cwd]
 * @property {object} [env]
 * @property {{mode: 'listen'|'exit'|'duration', ms?: number}} [until]
 * @property {number} [timeoutMs]      overall limit for listen/exit (default 60 s)
 * @property {boolean} [profile]       run the V8 CPU profiler (default true)
 * @property {number} [interval]       sampling interval in µs (default 1000)
 * @property {string} [root]           app root (default: nearest package.json above the entry)
 * @property {boolean} [keepRunning]   leave the app up after capture
 * @property {'auto'|'always'|'never'} [esm] when to install ESM loader hooks
 * @property {NodeJS.WritableStream} [stdout]  where the app's output goes
 * @property {NodeJS.WritableStream} [stderr]
 * @property {AbortSignal} [signal]    abort = stop now and return a partial result
 * @property {AbortSignal} [force]     abort = kill the app now, return nothing
 * @property {boolean} [timingOnly]    only the ready moment (benchmarks): no inspector, no module data
 */

/**
 * Captures one startup. Emits 'status' (string), 'process' ({pid, argv}), 'ready'.
 * @param {CaptureOptions} options
 * @param {EventEmitter} [events]
 * @returns {Promise<object>} the CaptureResult
 */
async function capture(options, events = new EventEmitter()) {
  const cwd = path.resolve(options.cwd || process.cwd());
  const command = checkCommand(options.command, cwd);
  const until = options.until || { mode: 'listen' };
  const timeoutMs = options.timeoutMs || 60000;
  const profile = options.profile !== false;
  const interval = options.interval || 1000;

  const channel = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-'));
  const sessions = new Map(); // pid -> session
  const pids = new Set();
  let settled = false;
  let resolveOutcome;
  const outcome = new Promise((r) => { resolveOutcome = r; });
  const settle = (value) => {
    if (settled) return;
    settled = true;
    resolveOutcome(value);
  };

  const spawnedAt = process.hrtime.bigint();
  const proc = launch({
    command,
    cwd,
    env: options.env || process.env,
    channel,
    until: until.mode === 'exit' ? 'exit' : until.mode === 'listen' ? 'listen' : 'none',
    esm: options.esm,
    timingOnly: options.timingOnly,
    stdout: options.stdout,
    stderr: options.stderr,
  });
  events.emit('status', `started ${command.join(' ')} (pid ${proc.child.pid})`);

  // The agent of every Node process in the tree announces itself in the channel.
  const seen = new Set();
  const onAnnounce = (name) => {
    if (!name || !name.endsWith('.json') || seen.has(name)) return;
    if (name.endsWith('.ready.json')) return onReadyFile(name);
    let announce;
    try {
      announce = JSON.parse(fs.readFileSync(path.join(channel, name), 'utf8'));
    } catch {
      return; // not complete yet: the rename makes it appear whole later
    }
    seen.add(name);
    pids.add(announce.pid);
    events.emit('process', { pid: announce.pid, argv: announce.argv });
    attach(announce, {
      profile,
      interval,
      onReady: (session, payload) => settle({ type: 'ready', session, payload }),
    }).then((session) => {
      sessions.set(session.pid, session);
      // Attached after the capture ended: let it go (it is ended with the tree).
      if (settled) session.resume().then(() => session.close());
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
  if (until.mode === 'duration') {
    timers.push(setTimeout(() => settle({ type: 'duration' }), until.ms));
  } else {
    timers.push(setTimeout(() => settle({ type: 'timeout' }), timeoutMs));
  }
  const onAbort = () => settle({ type: 'interrupted' });
  if (options.signal) {
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  }
  const onForce = () => {
    forced = true;
    for (const s of sessions.values()) s.close();
    proc.kill([...pids]);
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
    if (!options.keepRunning || !result) await proc.kill([...pids]);
    fs.rmSync(channel, { recursive: true, force: true });
  }
  return result;

  async function finishCapture(what) {
    if (forced) throw new CommandError('interrupted', { exitCode: 130 });
    if (what.type === 'ready-file') {
      return {
        command, cwd, node: process.version, until: untilLabel(), partial: false, timingOnly: true,
        pid: what.payload.pid, readyAt: what.payload.readyAt, outsideMs: what.outsideMs,
        exitCode: what.payload.exitCode,
      };
    }
    if (what.type === 'ready') {
      events.emit('ready', what.payload);
      const cpuProfile = profile ? await what.session.stopProfile() : null;
      return buildResult(what.payload, cpuProfile, false);
    }
    if (what.type === 'duration' || what.type === 'interrupted') {
      const session = firstSession();
      if (!session) {
        if (what.type === 'interrupted') throw new CommandError('interrupted before the app started', { exitCode: 130 });
        throw new CommandError(`no Node process of the app started within ${until.ms} ms`);
      }
      const payload = await session.finishNow(what.type);
      const cpuProfile = profile ? await session.stopProfile() : null;
      if (!payload) throw new CommandError('the app gave no data before it was stopped');
      return buildResult(payload, cpuProfile, what.type === 'interrupted');
    }
    if (what.type === 'attach-failed') {
      throw new CommandError(`could not attach the profiler to pid ${what.pid} over 127.0.0.1: ${what.error.message}`, { code: 'ATTACH_FAILED' });
    }
    if (what.type === 'timeout') {
      const hint = until.mode === 'listen' ? ' (use --until 10s to profile an app that never listens)' : '';
      throw new CommandError(`the app did not ${until.mode === 'exit' ? 'exit' : 'listen'} within ${timeoutMs / 1000}s (--timeout)${hint}`, { code: 'TIMEOUT' });
    }
    // The tree ended before any process reached the ready moment.
    const { exit } = what;
    if (exit.error) throw new CommandError(`could not start "${command[0]}": ${exit.error.message}`, { code: 'SPAWN' });
    if (!options.timingOnly && !sessions.size && !seen.size) {
      throw crashError(exit, proc.stderrTail(), 'no Node process started');
    }
    if (exit.code === 0 && until.mode !== 'exit') {
      throw new CommandError('the app exited (code 0) without listening; use --until exit for a script that ends by itself', { code: 'EXIT_WITHOUT_LISTEN' });
    }
    throw crashError(exit, proc.stderrTail(), until.mode === 'exit' ? 'before its exit could be recorded' : 'before listening');
  }

  function untilLabel() {
    return until.mode === 'duration' ? `${until.ms}ms` : until.mode;
  }

  function firstSession() {
    const list = [...sessions.values()].filter((s) => !s.closed);
    list.sort((a, b) => a.announce.startUs - b.announce.startUs);
    return list[0] || null;
  }

  function buildResult(payload, rawProfile, partial) {
    const cpuProfile = rawProfile && trimProfile(rawProfile, payload.startUs + payload.pausedUs, payload.readyUs);
    const root = options.root ? path.resolve(cwd, options.root) : findRoot(payload.mainFile, cwd);
    const { files, outsideRoot, modules, resolutions, esmResolutions } = collectFiles(payload, root);
    return {
      command,
      cwd,
      root,
      node: process.version,
      appNode: payload.nodeVersion || null,
      until: untilLabel(),
      reason: payload.reason,
      readyAt: payload.readyAt,
      attachMs: payload.waitMs,
      partial,
      pid: payload.pid,
      exitCode: payload.exitCode,
      address: payload.address || null,
      mainFile: payload.mainFile,
      clock: { startUs: payload.startUs, pausedUs: payload.pausedUs, readyUs: payload.readyUs },
      profile: cpuProfile || undefined,
      modules,
      builtins: payload.builtins,
      files,
      outsideRoot,
      resolutions,
      esmResolutions,
    };
  }
}

function crashError(exit, tail, when) {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  const inUse = tail.find((l) => /EADDRINUSE/.test(l));
  const reason = inUse ? `port already in use (${inUse.trim()})` : '';
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
