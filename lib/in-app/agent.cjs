'use strict';
// Runs inside every Node process of the captured app, loaded first through
// NODE_OPTIONS=--require. It must stay tiny and silent: it opens the inspector so
// the CLI can start the profiler before any user code, records module loads and
// file reads, and announces the ready moment. Configured only by COLDSTART_* env.

const CHANNEL = process.env.COLDSTART_CHANNEL;
const KEY = Symbol.for('coldstart.agent');

function shouldRun() {
  if (!CHANNEL || globalThis[KEY]) return false;
  const { isMainThread } = require('worker_threads');
  if (!isMainThread) return false; // loader-hook and worker threads also get --require
  if (require('../package-manager-script.js').isPackageManager(process.argv[1])) return false; // kept cheap and unprofiled
  return require('fs').existsSync(CHANNEL);
}

if (shouldRun()) {
  recordChildren();
  // Benchmarks only need the ready moment (timing-only.cjs): no inspector, no hooks.
  if (process.env.COLDSTART_TIMING === '1') require('./timing-only.cjs').startTimingOnly({ writeChannelFile, cliWatcher, leaveChannel });
  else start();
}

// Every process the app starts (a detached one included, which leaves the process group) is
// written to the channel with its start time, so the CLI can end it with the rest of the tree.
function recordChildren() {
  const { recordChild } = require('./process-start.cjs'); // now: before start() patches the loader and fs
  require('diagnostics_channel').subscribe('child_process', ({ process: child }) => {
    child.once('spawn', () => {
      try {
        recordChild(require('path').join(CHANNEL, `${process.pid}.children`), child.pid);
      } catch { /* the CLI is gone */ }
    });
  });
}

/** Writes one JSON file into the CLI's channel, whole (temp + rename). False when the CLI is gone. */
function writeChannelFile(name, data) {
  const fs = require('fs');
  const file = require('path').join(CHANNEL, name);
  try {
    fs.writeFileSync(file + '.tmp', JSON.stringify(data));
    fs.renameSync(file + '.tmp', file);
    return true;
  } catch {
    return false;
  }
}

/**
 * The CLI is gone: the processes this one started (recordChildren) end, those still running, and
 * this process's files leave the channel (and the channel, once empty).
 */
function leaveChannel(names) {
  const fs = require('fs');
  const path = require('path');
  const children = path.join(CHANNEL, `${process.pid}.children`);
  try { require('./recorded-children.cjs').killRecordedChildren(children); } catch { /* none */ }
  for (const name of [...names, `${process.pid}.children`]) {
    try { fs.unlinkSync(path.join(CHANNEL, name)); } catch { /* not there */ }
  }
  try { fs.rmdirSync(CHANNEL); } catch { /* other processes' files are still there */ }
}

/**
 * () => false once the CLI process is gone. A killed process stays a zombie until its parent
 * reaps it, which signal 0 cannot tell from a live one: on Linux its /proc state says.
 */
function cliWatcher(pid) {
  if (!(pid > 0)) return () => true; // started by hand with COLDSTART_CHANNEL set: nothing to watch
  // Read with the fs functions taken before the app's reads are recorded: not one of them.
  const { procStat } = require('./process-start.cjs');
  return function cliAlive() {
    try {
      process.kill(pid, 0);
    } catch (err) {
      return err.code === 'EPERM'; // ESRCH: gone
    }
    const fields = procStat(pid);
    return !fields || fields[0] !== 'Z'; // no /proc here: the signal answer is all there is
  };
}

// CPU time used (µs): a module's own time is what it ran, not what a busy machine kept it waiting.
// The process's clock: Linux keeps it to the microsecond, while the thread's (threadCpuUsage)
// moves in steps of up to a millisecond, more than most modules take. Helper threads count too;
// a module's figure is capped at its wall time.
function cpuNow() { const u = process.cpuUsage(); return u.user + u.system; }

// The profiled run: the inspector handed to the CLI, modules, files and network recorded until the
// ready moment, everything handed over there while the app is held.
function start() {
  // Taken before our modules, node:inspector and performance load (2-6 ms): that is the agent's
  // setup too. µs on readyAt's clock, as hrNow reads it.
  const agentStartUs = Number(process.hrtime.bigint() / 1000n);
  const { nowUs: hrNow, processClock, readyMoment, onReadyMoment, readyReason, answerOf } = require('./ready-moment.cjs');
  const clock = processClock();
  const inspector = require('inspector');
  const path = require('path');
  // Times are reported without this agent's own setup and the pause spent waiting for the
  // profiler to attach: those are the measurement's, not the app's (clock.held, at the resume).
  let resumeUs = 0; // when the app gets the process back; the CPU profile starts there

  // Shared by the module timing and the file reads: the modules loading now, and whether to record.
  const state = { recording: true, finished: false, stack: [], waitMs: 0, held: false, holds: 0, releasedUs: 0 };
  // What the CLI calls. release(k) ends the k-th hold only: a release the CLI sent again for the
  // hold at start, run late, must not end the hold at the ready moment.
  globalThis[KEY] = { finish, snapshot, release(k) { if (k === undefined || k === state.holds) state.held = false; } };

  // 1. Hand the inspector to the CLI and wait until it has started the profiler.
  try {
    inspector.open(0, '127.0.0.1', false);
  } catch {
    return; // an inspector is already active (e.g. --inspect): we cannot profile this one
  }
  const announce = { pid: process.pid, ppid: process.ppid, url: inspector.url(), argv: process.argv, execArgv: process.execArgv, cwd: process.cwd(), startUs: clock.startUs };
  if (!writeChannelFile(`${process.pid}.json`, announce)) return; // the CLI is gone: run the app untouched
  const cliAlive = cliWatcher(Number(process.env.COLDSTART_CLI_PID));
  const letGo = () => cliGone(state, inspector);
  holdForCli(state, hrNow, cliAlive, letGo);
  // Between the holds, and after them with --keep-running: the app lives as long as the CLI.
  setInterval(() => { if (!cliAlive()) letGo(); }, 250).unref();

  // 2. The ready moment: the first listen, the server's first answer, or the first 2xx of a
  // readiness URL polled from then on. The listen is said apart. Set before the loader is patched
  // too: the readiness probe it loads for some moments is not the app's.
  const until = readyMoment();
  onReadyMoment(until, (server, moment) => {
    if (state.finished) return;
    finish(readyReason(until), { address: moment.address, listenedAt: clock.at(moment.listenUs), ...answerOf(moment) });
  }, () => {
    // Listening, not answering yet: the CLI names a crash or a timeout from here on as such.
    const binding = globalThis.__coldstartReady;
    if (typeof binding === 'function') binding(JSON.stringify({ pid: process.pid, reason: 'listened' }));
  });
  if (until === 'exit') {
    process.on('exit', (code) => finish('exit', { exitCode: code }));
  } else {
    // Node waits at exit for an attached debugger to disconnect: tell the CLI to let go.
    process.on('exit', (code) => {
      const binding = globalThis.__coldstartReady;
      if (!state.finished && typeof binding === 'function') binding(JSON.stringify({ pid: process.pid, reason: 'exited', exitCode: code }));
    });
  }

  // Our own modules, loaded before the loader is patched so that they are not counted as the app's.
  // COLDSTART_RECORD=0: the inspector, the holds and the ready moment only, nothing patched or
  // recorded (the overhead benchmark's decomposition, bench/profile-overhead.js --parts).
  const recording = process.env.COLDSTART_RECORD !== '0';
  const { recordModules } = recording ? require('./module-timing.cjs') : require('./record-nothing.cjs');
  const { recordFileReads } = recording ? require('./file-reads.cjs') : require('./record-nothing.cjs');
  // Outbound connections, requests and child processes until the ready moment (what startup waited on).
  // COLDSTART_NETWORK=0 leaves it out (the overhead benchmark's control).
  const network = process.env.COLDSTART_NETWORK === '0' || !recording ? null : require('./network-record.cjs').recordNetwork(hrNow);
  // 3. Modules (module-timing.cjs), 4. files read with fs (file-reads.cjs), 5. ES module hooks.
  const moduleTiming = recordModules(state, { hrNow, cpuNow });
  const fileReads = recordFileReads(state, { hrNow, esmTimed: moduleTiming.esmTimed });
  moduleTiming.recordEsm();
  const { waitedForCpuMs: runQueueMs } = require('./process-start.cjs');

  resumeUs = hrNow();
  const resumeCpuUs = cpuNow();
  const resumeRunQueueMs = runQueueMs();
  clock.held(agentStartUs, resumeUs);
  state.waitMs = clock.pausedUs / 1000;

  // atUs: a ready moment the CLI saw (a Lambda runtime's first request for an event), else now.
  function snapshot(reason, extra, atUs) {
    moduleTiming.drainEsm();
    const readyUs = atUs > 0 ? Math.min(atUs, hrNow()) : hrNow();
    const cpuUs = cpuNow() - resumeCpuUs;
    const waitedMs = resumeRunQueueMs == null ? null : runQueueMs() - resumeRunQueueMs;
    return {
      pid: process.pid,
      reason,
      memory: process.memoryUsage(), // first, before this snapshot allocates anything
      ...extra,
      startUs: clock.startUs,
      pausedUs: clock.pausedUs,
      resumeUs,
      readyUs,
      readyAt: clock.at(readyUs),
      cpuMs: cpuUs / 1000, // CPU used from the resume to the ready moment
      runQueueMs: waitedMs, // and the time waiting for a CPU meanwhile
      waitMs: state.waitMs,
      releasedUs: state.releasedUs,
      execArgv: process.execArgv,
      mainFile: (require.main && require.main.filename) || (process.argv[1] && path.resolve(process.argv[1])) || null,
      cwd: process.cwd(),
      ...moduleTiming.records(clock.at),
      ...fileReads.records(clock.at),
      served: globalThis[Symbol.for('coldstart.start')] || null, // running under coldstart start: how
      network: network ? network.snapshot(clock.at) : null,
    };
  }

  /** Ends recording and hands everything to the CLI, which stops the profiler meanwhile. */
  function finish(reason, extra, hold = true, atUs = 0) {
    if (state.finished) return null;
    state.finished = true;
    const data = snapshot(reason, extra, atUs);
    // pack --after: files loaded shortly after the ready moment still count (snapshot() later).
    if (process.env.COLDSTART_SETTLE !== '1' || !hold) state.recording = false;
    // profile --after: what the app waits on and serves after its ready moment is recorded too.
    if (network && process.env.COLDSTART_AFTER !== '1') network.stop();
    const binding = globalThis.__coldstartReady;
    // hold=false: the CLI itself asked (Runtime.evaluate) and reads the result directly.
    if (hold && typeof binding === 'function') {
      binding(JSON.stringify(data));
      // Hold the app at its ready moment until the CLI has stopped the profiler,
      // so the profile ends exactly here. "Resumed" is said once the listeners of the ready
      // moment have run: what the app prints there ("listening on 8080") reaches the CLI before
      // it ends the app (at exit no later turn comes).
      holdForCli(state, hrNow, cliAlive, letGo, reason !== 'exit');
    }
    return data;
  }
}

// Waits until the CLI calls release() (Runtime.evaluate: the inspector runs its messages
// between the short sleeps, at the loop's interrupt checks), then says so. The CLI repeats
// the call until it hears "resumed". A blocking inspector.waitForDebugger() would wait
// forever, with the inspector open, for a CLI that was killed: the loop checks it is alive.
function holdForCli(state, hrNow, cliAlive, letGo, afterListeners = false) {
  state.holds++;
  state.held = true;
  const signal = new Int32Array(new SharedArrayBuffer(4));
  for (let turn = 0; state.held; turn++) {
    if (turn % 10 === 0 && !cliAlive()) return letGo();
    Atomics.wait(signal, 0, 0, 1);
  }
  state.releasedUs = hrNow(); // a later profile (profile --after) starts here
  const say = () => {
    const binding = globalThis.__coldstartReady;
    if (typeof binding === 'function') binding('{"reason":"resumed"}');
  };
  if (afterListeners) setImmediate(say);
  else say();
}

// The CLI is gone: nobody will read what we record, and an open inspector on 127.0.0.1 would
// let any local user run code as the app. Close it, take our files out of the channel and
// end the process, as the CLI would have ended the tree.
function cliGone(state, inspector) {
  state.finished = true;
  state.recording = false;
  try { inspector.close(); } catch { /* closed already */ }
  leaveChannel([`${process.pid}.json`, `${process.pid}.json.tmp`]);
  process.exit(1);
}
