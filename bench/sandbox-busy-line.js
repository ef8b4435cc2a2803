#!/usr/bin/env node
'use strict';
// Is the busy line true inside gVisor? gVisor shows no run queue and no load average, and its CPU
// clocks count a thread's waits as CPU, so there `profile --docker` reports as machine.offCpuMs the
// time the CPU profile saw the app's thread not running (its gaps) and says "the machine was busy:
// the app was not running X ms". This compares X, run by run, with the
// host's own account of the same window: the run_delay (time waiting on a run queue, the 2nd field
// of /proc/<pid>/task/<tid>/schedstat) of the sandbox's threads, under 0, 2 and 4 busy loops on
// the host.
//
//   node bench/sandbox-busy-line.js [--runs 3] [--loops 0,2,4] [--ahead] [--without-sleep] [--json FILE]
//     [--runtimes runsc-2024] [--warmup 1] [--interval 10] [--base-image coldstart-node:local] [--verbose]
//
// The app is fixtures/docker-app (express) in an image FROM the base image, started as
// `node -r ./clock-pair.cjs server.js`: the preload (bench/docker/clock-pair.cjs) prints the
// process's wall and monotonic clocks read together, which places the CPU profile's startTime and
// endTime (monotonic; gVisor's starts near 0 at the sandbox's boot) on the host's wall clock. Each
// run is `coldstart profile --docker IMAGE --runtime RUNTIME` as a user runs it. A worker thread
// (nice -10) sweeps every --interval ms (default 10) the sandbox's process (the container's
// State.Pid from docker inspect: runsc's sandbox, the Sentry's threads) and its descendants
// (systrap's stub threads, each a host process of one thread, which run the sandboxed processes'
// code; those of one address space descend from one child of the sandbox), reading each thread's
// schedstat, and the host's runnable count (/proc/loadavg); the figures over the profiled window
// are interpolated between sweeps. The app's address space is the one whose stub threads used the
// most CPU in the window; its busiest stub thread stands for the app's main thread. Loads alternate
// within each round (0,2,4 then 2,4,0 ...); busy loops are `node -e 'for (;;) {}'`, killed by PID
// after each run. --warmup runs (quiet) are left out.
// --ahead adds a load of its own: no busy loops, and the container's CPU group and docker's above
// it given the most CPU shares the kernel takes while the container runs (set back after), so that
// the host's other tasks hardly hold the sandbox up (nice would not do: they compete with the
// container's group, not with its threads): what X keeps there is the sandbox's own.
// The base image made from the host's Node has a shell but no `sleep`; the host's is copied into
// the app's image (as node:*-slim has one), because coldstart's watchdog beside the app polls with
// `sleep 0.2` and spins without it. --without-sleep leaves it out, to measure that.
// Needs the engine and base image from .ci/docker-up.sh and a Linux host (it reads /proc).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const { docker, requireDocker, checkRuntimes, buildImage, assembleContext, removeImages, runscVersion } = require('../lib/docker.js');
const { isGvisor } = require('../lib/gvisor.js');
const { medianInterval, formatSignedMs } = require('../lib/stats.js');
const { formatMs } = require('../lib/format-units.js');
const { count } = require('../lib/report/terminal-format.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { UsageError } = require('../lib/errors.js');
const { parseCount } = require('../lib/options.js');
const { parseContainerBenchArgs, containerBenchMain } = require('./container-main.js');

const USAGE = `usage: node bench/sandbox-busy-line.js [--runs 3] [--loops 0,2,4] [--ahead] [--without-sleep]
  [--json FILE] [--runtimes runsc-2024] [--warmup 1] [--interval 10] [--base-image coldstart-node:local] [--verbose]

--runs: runs per load; --loops: busy loops on the host for each load; --ahead: one more load, no
loops and the container's CPU group ahead of the host's other tasks (needs root); --warmup: quiet
runs left out; --without-sleep: the image without the host's sleep (the watchdog spins);
--interval: ms between the host's sweeps of the sandbox's threads; --runtimes: one gVisor runtime.
`;
const REPO = path.resolve(__dirname, '..');
const PAIR_FILE = path.join(__dirname, 'docker', 'clock-pair.cjs');
const COMMAND = ['node', '-r', `./${path.basename(PAIR_FILE)}`, 'server.js'];
const PAIR_LINE = /clock-pair (\d+) (\d+)/;
// --ahead: the most CPU a group can be given against the host's other tasks (cgroup v1, v2).
const AHEAD = { v1: ['/sys/fs/cgroup/cpu', 'cpu.shares', '262144'], v2: ['/sys/fs/cgroup', 'cpu.weight', '10000'] };

const wallNow = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The host's sweeps (in a worker thread, so the main thread's events never delay them)

function readText(file) {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return null; // the thread or process ended
  }
}

function listDir(dir) {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

// Reading /proc is slow on a loaded host (a fresh read of a small file ~0.1-0.2 ms): each thread's
// schedstat stays open and is read again in place; new processes and threads are looked for only
// every DISCOVER_EVERY sweeps (a thread found late still brings its counts from its birth).
const DISCOVER_EVERY = 10;

/**
 * The threads of root and of its descendants not in `threads` yet, opened and added. Each stub
 * thread of systrap is a host process of one thread; those of one address space (one process in
 * the sandbox) descend from one child of the sandbox's process: that child's pid is their `space`.
 */
function discover(root, threads, bornAfter) {
  const pids = [[root, null]];
  for (let i = 0; i < pids.length; i++) {
    const [pid, space] = pids[i];
    for (const tid of listDir(`/proc/${pid}/task`).map(Number)) {
      const dir = `/proc/${pid}/task/${tid}`;
      const children = readText(`${dir}/children`);
      if (children) pids.push(...children.split(' ').filter((c) => c.trim()).map((c) => [Number(c), space || Number(c)]));
      if (threads.has(tid)) continue;
      let fd;
      try {
        fd = fs.openSync(`${dir}/schedstat`, 'r');
      } catch {
        continue; // ended meanwhile
      }
      threads.set(tid, { tid, pid, space, comm: (readText(`${dir}/comm`) || '').trim(), stub: pid !== root, bornAfter, samples: [], fd });
    }
  }
}

/**
 * Sweeps the process control[1] names (0: not known yet) and its descendants until control[0] is
 * set: each thread's CPU time and run_delay (ms) per sweep, and the host's runnable count.
 * @returns {{ threads: Array<{ tid: number, pid: number, space: ?number, comm: string, stub: boolean, bornAfter: ?number,
 *   samples: number[][] }>, host: number[][] }} samples [wall ms, cpu ms, run_delay ms]; host [wall ms, runnable]
 */
function sweepSandbox(control, intervalMs) {
  const threads = new Map();
  const host = [];
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const buffer = Buffer.alloc(256);
  const readAgain = (fd) => {
    try {
      return buffer.toString('latin1', 0, fs.readSync(fd, buffer, 0, buffer.length, 0));
    } catch {
      return ''; // the thread ended
    }
  };
  const loadavg = fs.openSync('/proc/loadavg', 'r');
  let discovered = null;
  for (let sweep = 0; Atomics.load(control, 0) === 0; Atomics.wait(pause, 0, 0, intervalMs)) {
    const root = Atomics.load(control, 1);
    if (!root) continue;
    const t0 = wallNow();
    if (sweep++ % DISCOVER_EVERY === 0) {
      discover(root, threads, discovered);
      discovered = t0;
    }
    const read = [];
    for (const thread of threads.values()) {
      if (thread.fd === null) continue;
      const fields = readAgain(thread.fd).split(' ');
      if (fields.length < 2) {
        fs.closeSync(thread.fd);
        thread.fd = null;
      } else {
        read.push([thread, Number(fields[0]) / 1e6, Number(fields[1]) / 1e6]);
      }
    }
    // "runnable/total" of /proc/loadavg, less this sweep's own thread.
    const runnable = Number(readAgain(loadavg).split(' ')[3].split('/')[0]) - 1;
    const t = (t0 + wallNow()) / 2;
    for (const [thread, cpuMs, delayMs] of read) thread.samples.push([t, cpuMs, delayMs]);
    host.push([t, runnable]);
  }
  for (const thread of threads.values()) if (thread.fd !== null) fs.closeSync(thread.fd);
  fs.closeSync(loadavg);
  return { threads: [...threads.values()].filter((th) => th.samples.length).map(({ fd, ...th }) => th), host };
}

if (!isMainThread && workerData && workerData.sweeps) {
  // This thread alone (Linux's nice is per thread) runs ahead of the busy loops, so its sweeps keep
  // their interval on a loaded host; a sweep costs about a millisecond of CPU, its reads of /proc.
  try { os.setPriority(-10); } catch { /* not root: the sweeps are only less regular */ }
  parentPort.postMessage(sweepSandbox(new Int32Array(workerData.control), workerData.intervalMs));
}

function startSweeps(intervalMs) {
  const control = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(__filename, { workerData: { sweeps: true, control: control.buffer, intervalMs } });
  const result = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    watch(pid) { Atomics.store(control, 1, pid); },
    async stop() {
      Atomics.store(control, 0, 1);
      const swept = await result;
      await worker.terminate();
      return swept;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Figures over a window

/** A thread's counter k (1: CPU, 2: run_delay) at wall time t, interpolated between sweeps. */
function counterAt(thread, t, k) {
  const s = thread.samples;
  if (t <= s[0][0]) {
    if (thread.bornAfter === null) return s[0][k]; // there before the first sweep: what came before is not known
    if (t <= thread.bornAfter) return 0;
    return (s[0][k] * (t - thread.bornAfter)) / (s[0][0] - thread.bornAfter);
  }
  const last = s[s.length - 1];
  if (t >= last[0]) return last[k]; // ended (its last sweep is all it had, less one interval at most)
  let i = 0;
  while (s[i + 1][0] <= t) i++;
  const f = (t - s[i][0]) / (s[i + 1][0] - s[i][0]);
  return s[i][k] + f * (s[i + 1][k] - s[i][k]);
}

/**
 * The sandbox's threads over [from, to]: run_delay summed over all of them, the Sentry's and the
 * stubs' apart; per address space its stub threads' CPU and run_delay, the app's being the one that
 * used the most CPU, and its top thread (the one that ran the app's main thread, as far as the host
 * can tell); the host's mean runnable count.
 */
function windowFigures({ threads, host }, from, to) {
  const per = threads.map((th) => ({
    th,
    cpuMs: counterAt(th, to, 1) - counterAt(th, from, 1),
    delayMs: counterAt(th, to, 2) - counterAt(th, from, 2),
  }));
  const sum = (list, key) => list.reduce((a, p) => a + p[key], 0);
  const byCpu = (a, b) => b.cpuMs - a.cpuMs;
  const bySpace = new Map();
  for (const p of per.filter((x) => x.th.stub)) bySpace.set(p.th.space, [...(bySpace.get(p.th.space) || []), p]);
  const spaces = [...bySpace.entries()].map(([space, list]) => {
    const [top] = list.sort(byCpu);
    return { space, threads: list.filter((p) => p.cpuMs > 0).length, cpuMs: sum(list, 'cpuMs'), delayMs: sum(list, 'delayMs'),
      // When the host first saw it, ms from the window's start (negative: before).
      seenMs: Math.min(...list.map((p) => p.th.samples[0][0])) - from,
      top: { tid: top.th.tid, cpuMs: top.cpuMs, delayMs: top.delayMs } };
  }).sort(byCpu);
  const top = [...per].sort(byCpu)[0] || null;
  const inside = host.filter(([t]) => t >= from && t <= to).map(([, n]) => n);
  return {
    ms: to - from,
    threads: per.filter((p) => p.cpuMs > 0 || p.delayMs > 0).length,
    delayMs: sum(per, 'delayMs'),
    sentryDelayMs: sum(per.filter((p) => !p.th.stub), 'delayMs'),
    stubDelayMs: sum(per.filter((p) => p.th.stub), 'delayMs'),
    cpuMs: sum(per, 'cpuMs'),
    sentryCpuMs: sum(per.filter((p) => !p.th.stub), 'cpuMs'),
    spaces, // each address space's stub threads, the most CPU first: the app's
    app: spaces[0] || null,
    topThread: top && { tid: top.th.tid, pid: top.th.pid, comm: top.th.comm, stub: top.th.stub, cpuMs: top.cpuMs, delayMs: top.delayMs },
    hostRunnable: inside.length ? inside.reduce((a, n) => a + n, 0) / inside.length : null,
    // The sandbox's own mean runnable threads (running or queued): its CPU and waits over the window.
    sandboxRunnable: (sum(per, 'cpuMs') + sum(per, 'delayMs')) / (to - from),
    sweeps: inside.length,
  };
}

// ---------------------------------------------------------------------------------------------
// The runs

/**
 * The docker-app fixture with its packages and the clock-pair preload, built into an image. With
 * sleepBinary, the host's sleep goes to /bin/sleep as node:*-slim has one: coldstart's watchdog beside
 * the app (lib/death-watch.js) polls with `sleep 0.2`, and in a shell without it that loop spins.
 */
async function buildAppImage({ workDir, baseImage, tag, sleepBinary }) {
  const assembled = assembleContext({
    app: path.join(REPO, 'fixtures', 'docker-app'), into: path.join(workDir, 'app'),
    nodeModules: path.join(REPO, 'node_modules'), coldstart: false,
  });
  fs.copyFileSync(PAIR_FILE, path.join(assembled.dir, path.basename(PAIR_FILE)));
  if (sleepBinary) fs.copyFileSync(sleepBinary, path.join(assembled.dir, '.sleep'));
  const dockerfile = path.join(workDir, 'Dockerfile');
  fs.writeFileSync(dockerfile, ['ARG NODE_IMAGE=node:20-slim', 'FROM ${NODE_IMAGE}', 'WORKDIR /app', 'COPY . .',
    ...(sleepBinary ? [`RUN ${JSON.stringify(['node', '-e', "require('fs').renameSync('.sleep', '/bin/sleep')"])}`] : []),
    `CMD ${JSON.stringify(COMMAND)}`, ''].join('\n'));
  await buildImage({ context: assembled.dir, dockerfile, tag, buildArgs: { NODE_IMAGE: baseImage }, timeoutMs: 240_000 });
  return { packages: assembled.packages.length };
}

/**
 * Gives the CPU group of process pid, and each group above it short of the root, the most CPU
 * (AHEAD); returns what sets them back (the container's own group goes with the container).
 */
function putAhead(pid) {
  const lines = (readText(`/proc/${pid}/cgroup`) || '').split('\n');
  const v1 = lines.map((l) => /^\d+:(?:[^:]*,)?cpu(?:,[^:]*)?:(.*)$/.exec(l)).find(Boolean);
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find(Boolean);
  const [mount, name, value] = v1 ? AHEAD.v1 : AHEAD.v2;
  const files = [];
  for (let group = (v1 || v2 || [])[1]; group && group !== '/'; group = path.posix.dirname(group)) files.push(path.join(mount, group, name));
  const saved = files.map((file) => [file, fs.readFileSync(file, 'utf8').trim()]);
  for (const [file] of saved) fs.writeFileSync(file, value);
  return () => {
    for (const [file, old] of saved) {
      try {
        fs.writeFileSync(file, old);
      } catch { /* the container's group, gone with it */ }
    }
  };
}

/** The container's State.Pid (runsc's sandbox process) once it has one; null when the CLI ended first. */
async function sandboxPid(name, child) {
  while (child.exitCode === null && child.signalCode === null) {
    const r = await docker(['inspect', '--format', '{{.State.Pid}}', name], { timeoutMs: 10_000 });
    const pid = Number(r.stdout.trim());
    if (r.code === 0 && pid > 0) return pid;
    await sleep(50);
  }
  return null;
}

/** One `coldstart profile --docker` with the host's sweeps around it; its figures. */
async function profileOnce({ image, runtime, workDir, index, intervalMs, load, state }) {
  const { spawnCli } = require('../test/helpers/app.js');
  const outDir = path.join(workDir, `run-${index}`);
  const sweeps = startSweeps(intervalMs);
  const loadAverage = os.loadavg()[0];
  const started = wallNow();
  const run = spawnCli(['profile', '--docker', image, '--runtime', runtime, '--out', outDir], { cwd: workDir });
  state.pids.push(run.child.pid);
  const pid = await sandboxPid(`coldstart-run-${run.child.pid}-1`, run.child);
  if (pid) sweeps.watch(pid);
  if (pid && load.ahead) state.undoAhead = putAhead(pid);
  const { code, signal, stdout, stderr } = await run.done;
  if (state.undoAhead) state.undoAhead();
  state.undoAhead = null;
  const cliMs = wallNow() - started;
  const swept = await sweeps.stop();
  if (code !== 0) {
    throw new Error(`coldstart profile --docker ended with ${code === null ? signal : `exit ${code}`}:\n${stderr.trim().split('\n').slice(-8).join('\n')}`);
  }
  const report = JSON.parse(fs.readFileSync(path.join(outDir, 'report.json'), 'utf8'));
  const profile = JSON.parse(fs.readFileSync(path.join(outDir, 'startup.cpuprofile'), 'utf8'));
  fs.rmSync(outDir, { recursive: true, force: true });
  const pair = PAIR_LINE.exec(stdout + stderr);
  if (!pid || !pair || !swept.host.length) throw new Error(`run ${index}: ${!pid ? 'no sandbox process found' : !pair ? 'no clock-pair line from the app' : 'no sweep'}`);
  // The app's monotonic clock (µs in the profile) on the wall clock; Date.now() is whole ms: +0.5.
  const offsetMs = Number(pair[1]) + 0.5 - Number(BigInt(pair[2]) / 1000n) / 1000;
  const from = profile.startTime / 1000 + offsetMs;
  const to = profile.endTime / 1000 + offsetMs;
  const busyLine = stdout.split('\n').map((l) => l.trim()).find((l) => /^the machine was busy|^the app was off the CPU/.test(l)) || null;
  const m = report.machine || {};
  const window = windowFigures(swept, from, to);
  // The clocks' check: the app's stub threads appear on the host before the window opens (the app
  // starts, coldstart attaches, then profiles).
  const stub = window.app && swept.threads.filter((th) => th.space === window.app.space);
  return {
    loops: load.loops, ahead: load.ahead, index, sandboxPid: pid,
    offCpuMs: m.offCpuMs, offCpuShare: m.offCpuShare, busy: m.busy, runQueueMs: m.runQueueMs,
    loadAverage: m.loadAverage ? m.loadAverage[0] : null, loadAverageAtStart: loadAverage,
    readyAt: report.readyAt, profiledMs: report.categories ? report.categories.totalMs : null,
    cliMs, busyLine,
    appStubBeforeMs: stub ? from - Math.min(...stub.map((th) => th.samples[0][0])) : null,
    appStubAfterMs: stub ? Math.max(...stub.map((th) => th.samples[th.samples.length - 1][0])) - to : null,
    covered: swept.host[0][0] <= from && swept.host[swept.host.length - 1][0] >= to,
    window,
    // Just before to just after the whole container run (sandbox boot, coldstart inside, the app, the floor).
    container: windowFigures(swept, swept.host[0][0], swept.host[swept.host.length - 1][0]),
  };
}

async function runBenchmark({ runs, loads, ahead = false, withoutSleep = false, warmup, runtime, baseImage, intervalMs, onProgress = () => {} }) {
  const { startBusyLoops } = require('../test/helpers/busy-loops.js');
  if (!fs.existsSync('/proc/self/task')) throw new UsageError('sandbox-busy-line reads /proc: it needs a Linux host');
  const sleepBinary = withoutSleep ? null : ['/usr/bin/sleep', '/bin/sleep'].find((file) => fs.existsSync(file));
  if (!withoutSleep && !sleepBinary) throw new UsageError('no sleep on this host to put in the image: give --without-sleep');
  const engine = await requireDocker();
  await checkRuntimes([runtime], '--runtimes');
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-busy-line-'));
  const tag = `coldstart-busy-line:${process.pid}`;
  const state = { pids: [], loops: null, undoAhead: null };
  // Loops left by an interrupted run die with this process; CPU shares given --ahead are set back.
  const killLoops = () => {
    for (const pid of (state.loops && state.loops.pids) || []) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    if (state.undoAhead) state.undoAhead();
  };
  process.on('exit', killLoops);
  const started = Date.now();
  const results = [];
  try {
    onProgress(`building ${tag}`);
    const app = await buildAppImage({ workDir, baseImage, tag, sleepBinary });
    let index = 0;
    for (let w = 0; w < warmup; w++) {
      await profileOnce({ image: tag, runtime, workDir, index: index++, intervalMs, load: { loops: 0, ahead: false }, state });
      onProgress(`warm-up ${w + 1} of ${warmup}`);
    }
    const conditions = [...loads.map((loops) => ({ loops, ahead: false })), ...(ahead ? [{ loops: 0, ahead: true }] : [])];
    for (let round = 0; round < runs; round++) {
      for (let k = 0; k < conditions.length; k++) {
        const load = conditions[(round + k) % conditions.length];
        if (load.loops) state.loops = await startBusyLoops(load.loops);
        try {
          const r = await profileOnce({ image: tag, runtime, workDir, index: index++, intervalMs, load, state });
          results.push({ round, ...r });
          onProgress(`round ${round + 1}, ${loadName(load)}: X ${formatMs(r.offCpuMs)} ms, run_delay ${formatMs(r.window.delayMs)} ms (the app's top stub thread ${formatMs(r.window.app ? r.window.app.top.delayMs : 0)} ms)`);
        } finally {
          if (state.loops) await state.loops.stop();
          state.loops = null;
        }
      }
    }
    return {
      runtime, runsc: runscVersion(runtime), runs, loads, ahead, sleep: Boolean(sleepBinary), warmup, intervalMs, packages: app.packages,
      machine: { ...describeMachine(), docker: engine.version }, seconds: Math.round((Date.now() - started) / 1000),
      results,
    };
  } finally {
    killLoops();
    process.removeListener('exit', killLoops);
    const left = await require('./sandbox-packages.js').removeLeftoverContainers(state.pids);
    if (left.length) process.stderr.write(`sandbox-busy-line: removed ${left.length} leftover container(s): ${left.join(', ')}\n`);
    await removeImages([tag]);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Markdown

const loadName = (r) => (r.ahead ? '0 busy loops, the container\'s CPU group ahead' : `${r.loops} busy loops`);
const loadCell = (r) => (r.ahead ? '0, container ahead' : String(r.loops));

const num = (n, d = 0) => (n == null ? '–' : n.toFixed(d));
const msCell = (n) => (n == null ? '–' : formatMs(n));
const pct = (share) => (share == null ? '–' : `${Math.round(share * 100)}%`);

function medianOf(rows, pick) {
  const xs = rows.map(pick).filter((x) => Number.isFinite(x));
  return xs.length ? medianInterval(xs) : null;
}

function cellOf(mi, format = msCell) {
  if (!mi) return '–';
  return mi.low === null || mi.n < 3 ? format(mi.median) : `${format(mi.median)} [${format(mi.low)}, ${format(mi.high)}]`;
}

/** Theil-Sen line through (x, y): the median of the pairwise slopes, the median intercept for it. */
function theilSen(xs, ys) {
  const slopes = [];
  for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) slopes.push((ys[j] - ys[i]) / (xs[j] - xs[i]));
  if (!slopes.length) return null;
  const slope = medianInterval(slopes).median;
  return { slope, intercept: medianInterval(ys.map((y, i) => y - slope * xs[i])).median };
}

function renderMarkdown(report) {
  const m = report.machine;
  const lines = [
    `\`coldstart profile --docker\` of fixtures/docker-app (express, ${report.packages} packages; the image ${report.sleep === false ? 'without' : 'with'} a \`sleep\`) under ${report.runtime} (${report.runsc}), `
    + `${report.runs} runs per load after ${report.warmup} warm-up, loads alternating; the host's sweeps every ${report.intervalMs} ms.`,
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.os}, Node ${m.node}, Docker ${m.docker}; ${report.seconds} s.`,
    '',
    'X: the busy line\'s figure (machine.offCpuMs, the profile\'s gaps) and its share of the profiled time. run_delay: the host\'s '
    + 'schedstat over the profiled window (ms, CPU used in brackets): of the app\'s top stub thread (the busiest stub thread of the app\'s '
    + 'address space, the address space that used the most CPU), of all the app\'s stub threads, of the Sentry\'s threads, of all '
    + 'the sandbox\'s threads, and of all of them over the whole container run. Runnable: the mean count of the sandbox\'s threads '
    + 'running or waiting in the window ((CPU + run_delay) / window), and of the host\'s other tasks (its runnable count less the sandbox\'s).',
    '',
    '| busy loops | X | profiled | ready | app\'s top stub thread | app\'s stub threads | Sentry | all threads | whole run | runnable: sandbox / others | load 1 min |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const others = (w) => (w.hostRunnable == null ? null : w.hostRunnable - w.sandboxRunnable);
  const topDelay = (r) => (r.window.app ? r.window.app.top.delayMs : null);
  const both = (delay, cpu) => `${msCell(delay)} (${msCell(cpu)})`;
  for (const r of report.results) {
    const w = r.window;
    lines.push(`| ${loadCell(r)} | ${msCell(r.offCpuMs)} (${pct(r.offCpuShare)}) | ${msCell(r.profiledMs)} | ${msCell(r.readyAt)} `
      + `| ${w.app ? both(w.app.top.delayMs, w.app.top.cpuMs) : '–'} | ${w.app ? both(w.app.delayMs, w.app.cpuMs) : '–'} `
      + `| ${both(w.sentryDelayMs, w.sentryCpuMs)} | ${msCell(w.delayMs)} | ${msCell(r.container.delayMs)} `
      + `| ${num(w.sandboxRunnable, 1)} / ${num(others(w), 1)} | ${num(r.loadAverage, 2)}${r.covered ? '' : ' (window not swept whole)'} |`);
  }
  const coverage = report.runs >= 3 ? medianInterval(report.results.filter((r) => r.loops === report.loads[0] && !r.ahead).map((r) => r.offCpuMs)).confidence : null;
  lines.push('', `Medians per load, ms${coverage ? `; in brackets the median's ${Math.floor(coverage * 100)}% interval (below 6 runs: the lowest and highest run)` : ''}:`, '',
    '| busy loops | X | X share | app\'s top stub thread run_delay | X less it | app\'s stub threads | Sentry | runnable: sandbox / others |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|');
  const conditions = [...report.loads.map((loops) => ({ loops, ahead: false })), ...(report.ahead ? [{ loops: 0, ahead: true }] : [])];
  for (const load of conditions) {
    const rows = report.results.filter((r) => r.loops === load.loops && Boolean(r.ahead) === load.ahead);
    const mid = (pick) => { const mi = medianOf(rows, pick); return mi ? mi.median : null; };
    lines.push(`| ${loadCell(load)} | ${cellOf(medianOf(rows, (r) => r.offCpuMs))} | ${pct(mid((r) => r.offCpuShare))} `
      + `| ${cellOf(medianOf(rows, topDelay))} | ${cellOf(medianOf(rows, (r) => r.offCpuMs - topDelay(r)), formatSignedMs)} `
      + `| ${cellOf(medianOf(rows, (r) => r.window.app && r.window.app.delayMs))} | ${cellOf(medianOf(rows, (r) => r.window.sentryDelayMs))} `
      + `| ${num(mid((r) => r.window.sandboxRunnable), 1)} / ${num(mid((r) => others(r.window)), 1)} |`);
  }
  const fitted = report.results.filter((r) => r.window.app && Number.isFinite(r.offCpuMs));
  const fit = fitted.length >= 3 && theilSen(fitted.map(topDelay), fitted.map((r) => r.offCpuMs));
  if (fit) {
    const { spearman } = require('./sandbox-packages.js');
    const rho = spearman(fitted.map(topDelay), fitted.map((r) => r.offCpuMs));
    const ratios = fitted.map((r) => r.offCpuMs / topDelay(r));
    lines.push('', `Over all ${fitted.length} runs: X = ${formatMs(fit.intercept)} ms + ${fit.slope.toFixed(2)} × the app's top stub thread's run_delay `
      + `(Theil-Sen; Spearman ρ ${rho == null ? '–' : rho.toFixed(2)}); X / that run_delay ${medianInterval(ratios).median.toFixed(2)} `
      + `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}).`);
  }
  const threads = medianOf(fitted, (r) => r.window.app.threads);
  const topOfAll = fitted.filter((r) => r.window.topThread && r.window.topThread.tid === r.window.app.top.tid).length;
  const second = medianOf(fitted, (r) => (r.window.spaces[1] ? r.window.spaces[1].cpuMs : 0));
  if (threads) {
    lines.push('', `The app's address space ran on ${count(threads.median, 'busy stub thread')} (median); its top one was the sandbox's top CPU thread `
      + `in ${topOfAll} of ${fitted.length} runs. The next busiest address space used ${msCell(second.median)} ms of CPU in the window (median).`);
  }
  const before = report.results.map((r) => r.appStubBeforeMs).filter((x) => x != null);
  const after = report.results.map((r) => r.appStubAfterMs).filter((x) => x != null);
  if (before.length) {
    lines.push('', `Clock check: the app's stub threads were first swept ${formatMs(Math.min(...before))}–${formatMs(Math.max(...before))} ms before `
      + `the window opened and last ${formatMs(Math.min(...after))}–${formatMs(Math.max(...after))} ms after it closed.`);
  }
  const printed = report.results.find((r) => r.busyLine);
  if (printed) lines.push('', `The busy line as printed (one run): "${printed.busyLine}"`);
  return lines.join('\n') + '\n';
}

function parseOptions(argv) {
  const { values, runtimes } = parseContainerBenchArgs(argv, {
    runtimes: { type: 'string', default: 'runsc-2024' },
    runs: { type: 'string', default: '3' },
    loops: { type: 'string', default: '0,2,4' },
    ahead: { type: 'boolean', default: false },
    'without-sleep': { type: 'boolean', default: false },
    warmup: { type: 'string', default: '1' },
    interval: { type: 'string', default: '10' },
  });
  if (runtimes.length !== 1 || !isGvisor(runtimes[0])) throw new UsageError(`--runtimes takes one gVisor runtime (runsc, runsc-2024): ${values.runtimes}`);
  const loads = values.loops.split(',').filter((s) => s.trim()).map((s) => parseCount(s.trim(), '--loops', 0));
  if (!loads.length) throw new UsageError('--loops needs at least one count, e.g. 0,2,4');
  return {
    help: values.help,
    runs: parseCount(values.runs, '--runs', 1),
    loads,
    ahead: values.ahead,
    withoutSleep: values['without-sleep'],
    warmup: parseCount(values.warmup, '--warmup', 0),
    intervalMs: parseCount(values.interval, '--interval', 1),
    runtime: runtimes[0],
    baseImage: values['base-image'],
    json: values.json,
    verbose: values.verbose,
  };
}

async function main(argv = process.argv.slice(2)) {
  return containerBenchMain('sandbox-busy-line', parseOptions(argv), { usage: USAGE, runBenchmark, renderMarkdown });
}

if (isMainThread && require.main === module) require('./run-as-script.js').runAsScript('sandbox-busy-line', main);

module.exports = { main, runBenchmark, renderMarkdown, windowFigures, counterAt };
