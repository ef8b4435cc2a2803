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
  if (process.env.COLDSTART_TIMING === '1') startTimingOnly();
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
  try { require('./process-start.cjs').killRecordedChildren(children); } catch { /* none */ }
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

// Benchmarks only need the ready moment: no inspector, no hooks, one file write.
function startTimingOnly() {
  const { readyMoment, onReadyMoment } = require('./ready-moment.cjs');
  const until = readyMoment();
  // profile --verify-advice: some requires of the app made lazy (lazy-stand-in.cjs, its LAZY_ENV;
  // named here so that the file loads only when it is used).
  const lazySpec = process.env.COLDSTART_LAZY;
  const lazy = lazySpec ? require('./lazy-stand-in.cjs').installStandIns(lazySpec, () => performance.now()) : null;
  let done = false;
  const report = (reason, extra) => {
    if (done) return;
    done = true;
    const readyAt = performance.now();
    writeChannelFile(`${process.pid}.ready.json`, { pid: process.pid, reason, readyAt, ...extra, ...(lazy ? { lazyLoaded: lazy.loaded().slice() } : {}) });
  };
  globalThis[KEY] = { timingOnly: true };
  // A CLI killed during its timed runs (check, bench, bundle's verification) cannot end the app:
  // it ends itself, its children with it.
  const cliAlive = cliWatcher(Number(process.env.COLDSTART_CLI_PID));
  setInterval(() => {
    if (cliAlive()) return;
    leaveChannel([`${process.pid}.ready.json`, `${process.pid}.ready.json.tmp`, `${process.pid}.clock.json`, `${process.pid}.clock.json.tmp`]);
    process.exit(1);
  }, 250).unref();
  if (until === 'exit') process.on('exit', (code) => report('exit', { exitCode: code }));
  else if (until === 'lambda') {
    // The ready moment is the Runtime API's (the CLI's): it needs this process's start on its clock.
    const startUs = Number(process.hrtime.bigint() / 1000n) - Math.round(performance.now() * 1000);
    writeChannelFile(`${process.pid}.clock.json`, { pid: process.pid, startUs });
  } else {
    onReadyMoment(until, (server) => {
      let address = null;
      try { address = server.address(); } catch { /* closed already */ }
      report(until === 'listen' ? 'listen' : 'probe', { address });
    });
  }
}

function start() {
  const fs = require('fs');
  const path = require('path');
  const inspector = require('inspector');
  const Module = require('module');
  const readFileSync = fs.readFileSync; // our own reads are not the app's

  const hrNow = () => Number(process.hrtime.bigint() / 1000n); // µs, same clock as the CPU profile
  // CPU time used (µs): a module's own time is what it ran, not what a busy machine kept it waiting.
  // The process's clock: Linux keeps it to the microsecond, while the thread's (threadCpuUsage)
  // moves in steps of up to a millisecond, more than most modules take. Helper threads count too;
  // a module's figure is capped at its wall time.
  const cpuNow = () => { const u = process.cpuUsage(); return u.user + u.system; };
  // ms the main thread has waited for a CPU while runnable (Linux schedstat; null without it): a busy
  // machine, told apart from waits in the kernel (disk reads, page faults), which are not its doing.
  // Read with the fs calls below not watching: not one of the app's files.
  const runQueueMs = () => {
    ownRead = true;
    try {
      return Number(readFileSync('/proc/self/schedstat', 'latin1').split(' ')[1]) / 1e6;
    } catch {
      return null;
    } finally {
      ownRead = false;
    }
  };
  let ownRead = false;
  const agentStartUs = hrNow();
  const startUs = agentStartUs - Math.round(performance.now() * 1000); // process start on that clock
  // Times are reported without this agent's own setup and the pause spent waiting for the
  // profiler to attach: those are the measurement's, not the app's.
  let pausedUs = 0;
  let resumeUs = 0; // when the app gets the process back; the CPU profile starts there
  const msSinceStart = (us) => (us - startUs - pausedUs) / 1000;

  const state = {
    recording: true,
    finished: false,
    modules: [],
    builtins: new Set(),
    reads: new Map(), // path -> how it was read
    esm: [],
    esmReads: [], // ES module source Node's loader read on this thread, where no hook times it
    resolutions: [],
    requires: [],
    esmResolutions: [],
    stack: [],
    lastResolve: null,
    esmPort: null,
    waitMs: 0,
    held: false,
    releasedUs: 0,
  };
  globalThis[KEY] = {
    finish,
    snapshot,
    release() { state.held = false; },
  };

  // 1. Hand the inspector to the CLI and wait until it has started the profiler.
  try {
    inspector.open(0, '127.0.0.1', false);
  } catch {
    return; // an inspector is already active (e.g. --inspect): we cannot profile this one
  }
  const announce = {
    pid: process.pid,
    ppid: process.ppid,
    url: inspector.url(),
    argv: process.argv,
    execArgv: process.execArgv,
    cwd: process.cwd(),
    startUs,
  };
  if (!writeChannelFile(`${process.pid}.json`, announce)) return; // the CLI is gone: run the app untouched
  const cliAlive = cliWatcher(Number(process.env.COLDSTART_CLI_PID));
  holdForCli();
  watchCli();

  // Our own modules, loaded before the loader is patched so that they are not counted as the app's.
  const { readyMoment, onReadyMoment } = require('./ready-moment.cjs');
  // In-thread hooks (Node 22.15+) cost nothing to start and see every ES module, those require()
  // loads included: always on. The hooks thread of Node 20 costs ~25 ms and does not see require(esm).
  const inThreadHooks = typeof Module.registerHooks === 'function';
  const esmHooks = wantEsmHooks();
  const esmTiming = esmHooks && inThreadHooks ? require('./esm-timing.cjs') : null;
  let esmInThread = null; // those hooks, once registered
  // Outbound connections, requests and child processes until the ready moment (what startup waited on).
  // COLDSTART_NETWORK=0 leaves it out (the overhead benchmark's control).
  const network = process.env.COLDSTART_NETWORK === '0' ? null : require('./network-record.cjs').recordNetwork(hrNow);

  // 2. CommonJS: time resolve and load of every module, with a stack for self time.
  const origResolve = Module._resolveFilename;
  Module._resolveFilename = function coldstartResolve(request, parent, isMain, options) {
    if (!state.recording) return origResolve.apply(this, arguments);
    const t = hrNow();
    const c = cpuNow();
    const filename = origResolve.apply(this, arguments);
    state.lastResolve = { filename, us: hrNow() - t, cpuUs: cpuNow() - c };
    // (requesting directory, request) -> file: what `start --mode memory` replays without stats.
    // Node 22 passes { conditions } on every require; only `paths` makes a lookup special.
    if (parent && !(options && options.paths) && typeof request === 'string' && path.isAbsolute(filename)) {
      const from = parent.path || (parent.filename && path.dirname(parent.filename));
      if (from) state.resolutions.push([from, request, filename]);
    }
    return filename;
  };

  const origLoad = Module._load;
  Module._load = function coldstartLoadRequest(request, parent) {
    if (state.recording && typeof request === 'string') {
      if (Module.isBuiltin(request)) state.builtins.add(request.startsWith('node:') ? request : `node:${request}`);
      // Every require of every file, a module already loaded included (Node then skips resolution):
      // advice that defers a module must name each file that loads it.
      else if (parent && parent.filename) state.requires.push([parent.filename, request]);
    }
    return origLoad.apply(this, arguments);
  };

  const origModuleLoad = Module.prototype.load;
  Module.prototype.load = function coldstartModuleLoad(filename) {
    if (!state.recording) return origModuleLoad.apply(this, arguments);
    if (esmInThread) esmInThread.cut();
    const t0 = hrNow();
    const c0 = cpuNow();
    const lr = state.lastResolve;
    const resolved = lr && lr.filename === filename;
    const resolveUs = resolved ? lr.us : 0;
    state.lastResolve = null;
    const top = state.stack[state.stack.length - 1];
    const rec = {
      file: filename,
      kind: kindOf(filename),
      parent: top ? top.file : (this.parent && this.parent.filename) || null,
      startUs: t0 - resolveUs,
      resolveUs,
      childUs: 0,
      endUs: 0,
      cpuUs: resolved ? lr.cpuUs - c0 : -c0, // the CPU clock's reading at the start, subtracted
      childCpuUs: 0,
    };
    state.stack.push(rec);
    try {
      return origModuleLoad.apply(this, arguments);
    } finally {
      state.stack.pop();
      rec.endUs = hrNow();
      rec.cpuUs += cpuNow();
      if (top) {
        top.childUs += rec.endUs - rec.startUs;
        top.childCpuUs += rec.cpuUs;
      }
      state.modules.push(rec);
    }
  };

  // Native addons loaded without require (rare, e.g. process.dlopen by hand).
  const origDlopen = process.dlopen;
  process.dlopen = function coldstartDlopen(mod, filename) {
    if (state.recording && typeof filename === 'string') noteRead(filename, 'addon');
    return origDlopen.apply(this, arguments);
  };

  // 3. Files the app reads itself with fs during startup.
  const { fileURLToPath } = require('url');
  function toPath(p) {
    if (typeof p === 'string') return path.resolve(p);
    if (Buffer.isBuffer(p)) return path.resolve(p.toString());
    if (p instanceof URL && p.protocol === 'file:') return fileURLToPath(p);
    return null; // a file descriptor or something else: nothing to pack
  }
  function noteRead(p, via) {
    if (!state.recording || ownRead) return;
    // The CommonJS loader reading the module it is loading: already recorded as a module.
    const top = state.stack[state.stack.length - 1];
    if (top && top.file === p) return;
    const abs = toPath(p);
    if (abs && !state.reads.has(abs)) state.reads.set(abs, via);
  }
  const wrap = (obj, name) => {
    const orig = obj[name];
    if (typeof orig !== 'function') return;
    obj[name] = function (p) {
      noteRead(p, 'fs');
      return orig.apply(this, arguments);
    };
    Object.defineProperty(obj[name], 'name', { value: name });
  };
  for (const name of ['openSync', 'open', 'createReadStream']) wrap(fs, name);
  // Node's ES module loader reads a module's source with readFileSync(file: URL), on the app's
  // thread: where no hook times ES modules (require(esm) on Node 20), that read is the module's load.
  fs.readFileSync = function coldstartReadFileSync(p) {
    if (esmTiming || !(p instanceof URL) || !state.recording || ownRead || !/\.m?js$/.test(p.pathname)) {
      noteRead(p, 'fs');
      return readFileSync.apply(this, arguments);
    }
    const top = state.stack[state.stack.length - 1];
    const t = hrNow();
    try {
      return readFileSync.apply(this, arguments);
    } finally {
      state.esmReads.push({ file: fileURLToPath(p), parent: top ? top.file : null, startUs: t, endUs: hrNow() });
    }
  };
  Object.defineProperty(fs.readFileSync, 'name', { value: 'readFileSync' });
  // import() on Node 20 without hooks reads the module's source asynchronously, off the app's thread.
  const wrapAsyncRead = (obj) => {
    const orig = obj.readFile;
    obj.readFile = function readFile(p) {
      if (!esmTiming && p instanceof URL && state.recording && !ownRead && /\.m?js$/.test(p.pathname)) {
        const t = hrNow();
        state.esmReads.push({ file: fileURLToPath(p), parent: null, startUs: t, endUs: t });
      } else noteRead(p, 'fs');
      return orig.apply(this, arguments);
    };
  };
  wrapAsyncRead(fs);
  wrapAsyncRead(fs.promises);
  wrap(fs.promises, 'open');

  // 4. ES modules: loader hooks time resolve/load and mark evaluation (esm-timing.cjs).
  const esmMarks = new Map();
  globalThis[Symbol.for('coldstart.esm')] = {
    enter(url) {
      if (!state.recording) return;
      if (esmInThread) esmInThread.cut();
      esmMarks.set(url, { enterUs: hrNow(), leaveUs: 0 });
    },
    leave(url) { const m = esmMarks.get(url); if (m && state.recording) m.leaveUs = hrNow(); },
  };
  if (esmTiming) {
    esmInThread = esmTiming.esmTimingHooks(noteEsm);
    Module.registerHooks({ resolve: esmInThread.resolve, load: esmInThread.load }); // in-thread: no hooks thread to start
  }
  else if (esmHooks) registerEsmHooks();

  function wantEsmHooks() {
    const mode = process.env.COLDSTART_ESM || 'auto';
    if (mode === 'always') return true;
    if (mode === 'never') return false;
    if (inThreadHooks) return true;
    // A hooks thread costs ~25 ms on Node 20: only pay for it when the app is ESM.
    const flags = [...process.execArgv, process.env.NODE_OPTIONS || ''].join(' ');
    if (/--(import|loader|experimental-loader)\b/.test(flags)) return true;
    const entry = process.argv[1];
    if (!entry) return false;
    if (/\.(mjs|mts)$/.test(entry)) return true;
    if (/\.(cjs|cts|json)$/.test(entry)) return false;
    return nearestPackageType(path.resolve(entry)) === 'module';
  }

  function registerEsmHooks() {
    if (typeof Module.register !== 'function') return;
    const { MessageChannel } = require('worker_threads');
    const { pathToFileURL } = require('url');
    const { port1, port2 } = new MessageChannel();
    port1.unref();
    state.esmPort = port1;
    Module.register(pathToFileURL(path.join(__dirname, 'esm-hooks.mjs')).href, {
      data: { port: port2 },
      transferList: [port2],
    });
  }

  // 5. The ready moment.
  const until = readyMoment();
  // The first listen, or the first 2xx of a readiness URL polled from then on.
  onReadyMoment(until, (server) => {
    if (state.finished) return;
    let address = null;
    try { address = server.address(); } catch { /* closed already */ }
    finish(until === 'listen' ? 'listen' : 'probe', { address });
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

  resumeUs = hrNow();
  const resumeCpuUs = cpuNow();
  const resumeRunQueueMs = runQueueMs();
  pausedUs = resumeUs - agentStartUs;
  state.waitMs = pausedUs / 1000;

  function noteEsm(record) {
    if (!state.recording) return;
    if (record.type === 'resolve') state.esmResolutions.push([record.parent, record.specifier, record.file]);
    else state.esm.push(record);
  }

  function drainEsm() {
    if (!state.esmPort) return;
    const { receiveMessageOnPort } = require('worker_threads');
    let msg;
    while ((msg = receiveMessageOnPort(state.esmPort))) noteEsm(msg.message);
  }

  // atUs: a ready moment the CLI saw (a Lambda runtime's first request for an event), else now.
  function snapshot(reason, extra, atUs) {
    drainEsm();
    const readyUs = atUs > 0 ? Math.min(atUs, hrNow()) : hrNow();
    const cpuUs = cpuNow() - resumeCpuUs;
    const waitedMs = resumeRunQueueMs == null ? null : runQueueMs() - resumeRunQueueMs;
    return {
      pid: process.pid,
      reason,
      ...extra,
      startUs,
      pausedUs,
      resumeUs,
      readyUs,
      readyAt: msSinceStart(readyUs),
      cpuMs: cpuUs / 1000, // CPU used from the resume to the ready moment
      runQueueMs: waitedMs, // and the time waiting for a CPU meanwhile
      waitMs: state.waitMs,
      releasedUs: state.releasedUs,
      execArgv: process.execArgv,
      mainFile: (require.main && require.main.filename) || (process.argv[1] && path.resolve(process.argv[1])) || null,
      cwd: process.cwd(),
      modules: state.modules.map((m) => ({
        file: m.file,
        kind: m.kind,
        parent: m.parent,
        startMs: msSinceStart(m.startUs),
        resolveMs: m.resolveUs / 1000,
        inclusiveMs: (m.endUs - m.startUs) / 1000,
        childMs: m.childUs / 1000,
        cpuMs: m.cpuUs / 1000,
        childCpuMs: m.childCpuUs / 1000,
      })),
      esm: state.esm.map((e) => {
        const mark = esmMarks.get(e.url);
        return {
          ...e,
          startMs: msSinceStart(e.startUs),
          resolveStartMs: e.resolveStartUs == null ? null : msSinceStart(e.resolveStartUs),
          loadStartMs: e.loadStartUs == null ? null : msSinceStart(e.loadStartUs),
          compiledMs: e.compiledUs == null ? null : (e.compiledUs - e.loadStartUs) / 1000,
          importWindows: e.importsUs ? e.importsUs.map(([from, to]) => [msSinceStart(from), msSinceStart(to)]) : [],
          importsUs: undefined,
          evalStartMs: mark ? msSinceStart(mark.enterUs) : null,
          evalMs: mark && mark.leaveUs ? (mark.leaveUs - mark.enterUs) / 1000 : null,
        };
      }),
      esmReads: state.esmReads.map((r) => ({ file: r.file, parent: r.parent, startMs: msSinceStart(r.startUs), loadMs: (r.endUs - r.startUs) / 1000 })),
      builtins: [...state.builtins].sort(),
      served: globalThis[Symbol.for('coldstart.start')] || null, // running under coldstart start: how
      resolutions: state.resolutions,
      requires: state.requires,
      esmResolutions: state.esmResolutions,
      reads: [...state.reads].map(([p, via]) => ({ path: p, via })),
      network: network ? network.snapshot(msSinceStart) : null,
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
      holdForCli(reason !== 'exit');
    }
    return data;
  }

  // Waits until the CLI calls release() (Runtime.evaluate: the inspector runs its messages
  // between the short sleeps, at the loop's interrupt checks), then says so. The CLI repeats
  // the call until it hears "resumed". A blocking inspector.waitForDebugger() would wait
  // forever, with the inspector open, for a CLI that was killed: the loop checks it is alive.
  function holdForCli(afterListeners = false) {
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

  // Between the holds, and after them with --keep-running: the app lives as long as the CLI.
  function watchCli() {
    setInterval(() => { if (!cliAlive()) letGo(); }, 250).unref();
  }

  // The CLI is gone: nobody will read what we record, and an open inspector on 127.0.0.1 would
  // let any local user run code as the app. Close it, take our files out of the channel and
  // end the process, as the CLI would have ended the tree.
  function letGo() {
    state.finished = true;
    state.recording = false;
    try { inspector.close(); } catch { /* closed already */ }
    leaveChannel([`${process.pid}.json`, `${process.pid}.json.tmp`]);
    process.exit(1);
  }

  function kindOf(filename) {
    if (filename.endsWith('.json')) return 'json';
    if (filename.endsWith('.node')) return 'addon';
    if (filename.endsWith('.mjs')) return 'esm'; // require(esm)
    return 'cjs';
  }

  function nearestPackageType(file) {
    let dir = path.dirname(file);
    for (;;) {
      try {
        return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).type || 'commonjs';
      } catch (err) {
        if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') return 'commonjs';
      }
      const up = path.dirname(dir);
      if (up === dir || path.basename(dir) === 'node_modules') return 'commonjs';
      dir = up;
    }
  }
}
