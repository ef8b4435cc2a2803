'use strict';
// One Chrome DevTools Protocol session with one Node process of the app, driven
// with chrome-remote-interface. The process waits in the agent (waitForDebugger)
// until we have started the profiler, so no frame of user code is missed.
const CDP = require('chrome-remote-interface');

const READY_BINDING = '__coldstartReady';

async function connectWithRetry(url, attempts = 20) {
  // The port is announced once open, but a loaded machine can still refuse the
  // first connection; retry briefly instead of losing the process.
  let lastErr;
  for (let i = 0; i < attempts; i++) {
    try {
      return await CDP({ target: url, local: true });
    } catch (err) {
      lastErr = err;
      await new Promise((r) => setTimeout(r, 10 + i * 10));
    }
  }
  throw lastErr;
}

/**
 * Attaches to a process paused in the agent, starts the profiler, and lets it run.
 * @param {{url: string, pid: number}} announce what the agent wrote to the channel
 * @param {{profile: boolean, interval: number, onReady: (session, payload) => void}} options
 */
async function attach(announce, options) {
  const client = await connectWithRetry(announce.url);
  const session = {
    pid: announce.pid,
    announce,
    client,
    profiling: false,
    closed: false,
    /** Stops the profiler; resolves to the V8 CPU profile or null. */
    async stopProfile() {
      if (!this.profiling) return null;
      this.profiling = false;
      const { profile } = await client.Profiler.stop();
      return profile;
    },
    /** Lets a process held by the agent (at start or at its ready moment) go on. */
    async resume(maxMs = 1000) {
      if (!this.held) return;
      const seen = this.resumes;
      const deadline = Date.now() + maxMs;
      while (!this.closed && this.resumes === seen && Date.now() < deadline) {
        await client.Runtime.runIfWaitingForDebugger().catch(() => {});
        await new Promise((r) => { this.onResumed = r; setTimeout(r, 100); });
      }
    },
    resumes: 0,
    onResumed: null,
    held: true, // the agent waits for us right after announcing itself
    /** Ends recording inside the app now and returns what the agent gathered. */
    async finishNow(reason) {
      const expression = `(() => { const a = globalThis[Symbol.for('coldstart.agent')];
        if (!a) return null; const d = a.finish(${JSON.stringify(reason)}, null, false) || a.snapshot(${JSON.stringify(reason)});
        return JSON.stringify(d); })()`;
      const { result } = await client.Runtime.evaluate({ expression, returnByValue: true });
      return result && typeof result.value === 'string' ? JSON.parse(result.value) : null;
    },
    async close() {
      if (this.closed) return;
      this.closed = true;
      await client.close().catch(() => {});
    },
  };

  client.on('disconnect', () => {
    session.closed = true;
  });
  client.on('Runtime.bindingCalled', (event) => {
    if (event.name !== READY_BINDING) return;
    let payload = null;
    try {
      payload = JSON.parse(event.payload);
    } catch {
      return;
    }
    if (payload.reason === 'resumed') {
      session.held = false;
      session.resumes++;
      if (session.onResumed) session.onResumed();
      return;
    }
    if (payload.reason === 'exited') {
      // The process is ending before its ready moment; Node holds it until we detach.
      session.close();
      return;
    }
    session.held = true; // the agent now holds the app at its ready moment
    options.onReady(session, payload);
  });

  // Sent back to back: the inspector answers in order, so one round trip's wait.
  const steps = [];
  if (options.profile) {
    steps.push(client.Profiler.enable());
    steps.push(client.Profiler.setSamplingInterval({ interval: options.interval }));
    steps.push(client.Profiler.start());
    session.profiling = true;
  }
  steps.push(client.Runtime.addBinding({ name: READY_BINDING }));
  await Promise.all(steps);
  await session.resume(30000);
  return session;
}

module.exports = { attach };
