'use strict';
// One Chrome DevTools Protocol session with one Node process of the app, driven
// with chrome-remote-interface. The process waits in the agent (holdForCli)
// until we have started the profiler, so no frame of user code is missed.
const CDP = require('chrome-remote-interface');
const { CommandError } = require('../errors.js');

const READY_BINDING = '__coldstartReady';
const AGENT = "globalThis[Symbol.for('coldstart.agent')]";

async function connectWithRetry(url, attempts = 20) {
  // The port is announced once open, but a loaded machine can still refuse the
  // first connection; retry briefly instead of losing the process.
  let lastErr;
  for (let i = 0; i < attempts; i++) {
    try {
      return liftPayloadLimit(await CDP({ target: url, local: true }));
    } catch (err) {
      lastErr = err;
      await new Promise((r) => setTimeout(r, 10 + i * 10));
    }
  }
  throw lastErr;
}

/**
 * chrome-remote-interface caps a message at 256 MiB, and Profiler.stop sends the whole profile
 * as one: a big app sampled finely goes past it. Its WebSocket's receiver takes 0 for no cap;
 * what is left is V8's longest string (about 512 MiB), which stopProfile reports in one line.
 */
function liftPayloadLimit(client) {
  const receiver = client._ws && client._ws._receiver;
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = 0;
  return client;
}

/**
 * Attaches to a process paused in the agent, starts the profiler, and lets it run.
 * @param {{url: string, pid: number}} announce what the agent wrote to the channel
 * @param {{profile: boolean, interval: number, heapSampling?: boolean, coverage?: boolean, onReady: (session, payload) => void}} options
 */
async function attach(announce, options) {
  const client = await connectWithRetry(announce.url);
  const session = new InspectorSession(announce, client);
  client.on('disconnect', () => {
    session.closed = true;
  });
  client.on('Runtime.bindingCalled', (event) => {
    if (event.name === READY_BINDING) heardFromAgent(session, event.payload, options.onReady);
  });
  await startRecording(client, session, options);
  await session.resume(30000);
  return session;
}

/** One attached process: what is recording in it, whether the agent holds it, and the calls into it. */
class InspectorSession {
  constructor(announce, client) {
    this.pid = announce.pid;
    this.announce = announce;
    this.client = client;
    this.profiling = false;
    this.covering = false;
    this.closed = false;
    this.sampling = false;
    this.resumes = 0;
    this.onResumed = null;
    this.held = true; // the agent waits for us right after announcing itself
  }

  /** Stops the profiler; resolves to the V8 CPU profile or null. */
  async stopProfile() {
    if (!this.profiling) return null;
    this.profiling = false;
    try {
      const { profile } = await this.client.Profiler.stop();
      return profile;
    } catch (err) {
      if (/string longer than|ERR_STRING_TOO_LONG|payload/i.test(`${err.code} ${err.message}`)) {
        throw new CommandError('the CPU profile was too large to transfer (over about 512 MB): sample less often (--interval 1000 or more) or stop earlier (--until)', { code: 'PROFILE_TOO_LARGE' });
      }
      throw err;
    }
  }

  /**
   * V8's sampled allocations still alive (HeapProfiler sampling since the attach), which say what
   * code allocated the heap the app holds; null when sampling was off or the process is gone.
   */
  async heapProfileNow() {
    if (!this.sampling) return null;
    this.sampling = false;
    const { profile } = await this.client.HeapProfiler.stopSampling().catch(() => ({ profile: null }));
    return profile;
  }

  /** Starts the profiler again (the window after the ready moment: a profile of its own). */
  async startProfile() {
    await this.client.Profiler.start();
    this.profiling = true;
  }

  /**
   * Takes the function coverage gathered since the start and stops gathering; resolves to
   * [{ file, functions, called }] per script with a file URL (called: functions other than the
   * top-level code that ran at least once), or null when coverage was not on.
   */
  async takeCoverage() {
    if (!this.covering) return null;
    this.covering = false;
    const { result } = await this.client.Profiler.takePreciseCoverage();
    this.client.Profiler.stopPreciseCoverage().catch(() => {});
    return functionCoverage(result);
  }

  /** Starts gathering coverage again (the window after the ready moment), counts from zero. */
  async startCoverage() {
    await this.client.Profiler.startPreciseCoverage({ callCount: false, detailed: false });
    this.covering = true;
  }

  /** The files whose functions ran since the last call (V8 resets the counts), coverage going on. */
  async coverageSince() {
    if (!this.covering) return [];
    const { result } = await this.client.Profiler.takePreciseCoverage();
    // After a reset V8 lists only the functions that ran since, top-level code first if it did.
    const ran = (f) => f.ranges && f.ranges[0] && f.ranges[0].count > 0 && f.ranges[0].startOffset > 0;
    return functionCoverage(result.filter((script) => (script.functions || []).some(ran))).map((c) => c.file);
  }

  /**
   * Lets a process held by the agent (at start or at its ready moment) go on, and waits until it
   * says so: what the app prints at its ready moment reaches the CLI before the app is ended. On a
   * loaded machine that took more than 1 s (the listen line was lost); 3 s bounds the wait for an
   * app busy after its ready moment.
   */
  async resume(maxMs = 3000) {
    if (!this.held) return;
    const seen = this.resumes;
    const deadline = Date.now() + maxMs;
    while (!this.closed && this.resumes === seen && Date.now() < deadline) {
      // Listening before the call: "resumed" can come before the call's own answer. The agent
      // counts its holds, so a call repeated here ends this hold and no later one.
      const heard = new Promise((r) => { this.onResumed = r; setTimeout(r, 100); });
      let ended = false;
      await this.client.Runtime.evaluate({ expression: `${AGENT}.release(${seen + 1})` })
        .catch((err) => { ended = /Cannot find context/.test(err.message); });
      // Its JavaScript has ended (an app that exits at its ready moment; Node keeps the process
      // until the inspector lets go): it prints nothing more, and no word will come.
      if (ended) break;
      await heard;
    }
  }

  /** What the agent has gathered so far, recording going on (pack --after). */
  async snapshotNow(reason) {
    const expression = `(() => { const a = ${AGENT}; return a ? JSON.stringify(a.snapshot(${JSON.stringify(reason)})) : null; })()`;
    const { result } = await this.client.Runtime.evaluate({ expression, returnByValue: true });
    return result && typeof result.value === 'string' ? JSON.parse(result.value) : null;
  }

  /**
   * Ends recording inside the app now and returns what the agent gathered; atUs: the ready
   * moment when the CLI saw it first (on the agent's clock).
   */
  async finishNow(reason, atUs = 0) {
    const expression = `(() => { const a = ${AGENT};
        if (!a) return null; const d = a.finish(${JSON.stringify(reason)}, null, false, ${Number(atUs) || 0}) || a.snapshot(${JSON.stringify(reason)});
        return JSON.stringify(d); })()`;
    const { result } = await this.client.Runtime.evaluate({ expression, returnByValue: true });
    return result && typeof result.value === 'string' ? JSON.parse(result.value) : null;
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.client.close().catch(() => {});
  }
}

/** What the agent says through its binding: resumed, listening, exiting, or at its ready moment. */
function heardFromAgent(session, text, onReady) {
  let payload = null;
  try {
    payload = JSON.parse(text);
  } catch {
    return;
  }
  if (payload.reason === 'resumed') {
    session.held = false;
    session.resumes++;
    if (session.onResumed) session.onResumed();
    return;
  }
  if (payload.reason === 'listened') {
    session.listened = true; // --until answer: listening, not yet answering
    return;
  }
  if (payload.reason === 'exited') {
    // The process is ending before its ready moment; Node holds it until we detach.
    session.close();
    return;
  }
  session.held = true; // the agent now holds the app at its ready moment
  onReady(session, payload);
}

/** Starts what options ask for (profiler, heap sampling, coverage) and the agent's binding. */
function startRecording(client, session, options) {
  // Sent back to back: the inspector answers in order, so one round trip's wait.
  const steps = [];
  if (options.profile) {
    steps.push(client.Profiler.enable());
    steps.push(client.Profiler.setSamplingInterval({ interval: options.interval }));
    steps.push(client.Profiler.start());
    session.profiling = true;
  }
  if (options.heapSampling) {
    // Every 64 kB allocated on average: cheap, and enough to see which package holds megabytes.
    steps.push(client.HeapProfiler.startSampling({ samplingInterval: 65536 }));
    session.sampling = true;
  }
  if (options.coverage) {
    if (!options.profile) steps.push(client.Profiler.enable());
    // Function granularity with call counts: enough to tell which functions of a module ran.
    steps.push(client.Profiler.startPreciseCoverage({ callCount: false, detailed: false }));
    session.covering = true;
  }
  steps.push(client.Runtime.addBinding({ name: READY_BINDING }));
  return Promise.all(steps);
}

/**
 * V8's ScriptCoverage list, reduced to what the analysis needs. The first function of a script is
 * its top-level code (for CommonJS, the module wrapper); V8 lists it first, from offset 0.
 */
function functionCoverage(scripts) {
  const { fileURLToPath } = require('url');
  const out = [];
  for (const script of scripts || []) {
    let file = script.url && script.url.startsWith('/') ? script.url : null;
    if (!file && script.url && script.url.startsWith('file:')) {
      try { file = fileURLToPath(script.url); } catch { /* not a local file */ }
    }
    if (!file) continue;
    const fns = script.functions || [];
    const called = fns.slice(1).filter((f) => f.ranges && f.ranges[0] && f.ranges[0].count > 0).length;
    out.push({ file, functions: fns.length, called });
  }
  return out;
}

module.exports = { attach, connectWithRetry, functionCoverage };
