'use strict';
// What a start that never became ready was doing when its time ran out, taken through the
// inspector before the process is ended: the JavaScript it was running (a pause gives its stack),
// or, when it was idle, what it was waiting on (timers, sockets, file requests); and the last
// CommonJS modules it loaded. A process without a session (timed runs) opens its inspector on
// SIGUSR1, on a free port (timing-only.cjs sets process.debugPort to 0: an --inspect-port flag in
// NODE_OPTIONS would make the cluster module give each worker an inspector port of its own).
const { connectWithRetry } = require('./inspector.js');
const { isOwnCode } = require('../analyze/own-code.js');

const wait = (ms) => new Promise((r) => setTimeout(r, ms).unref());

// Evaluated in the hung process: plain data, whatever the app's globals are.
const STATE = `(() => {
  // What keeps the loop alive (timers included), less the standard streams' own handles.
  const waiting = process.getActiveResourcesInfo ? process.getActiveResourcesInfo() : [];
  for (const stream of [process.stdout, process.stderr]) {
    const i = stream && stream._handle ? waiting.indexOf(stream._handle.constructor.name) : -1;
    if (i !== -1) waiting.splice(i, 1);
  }
  const cache = process.mainModule && process.mainModule.constructor && process.mainModule.constructor._cache;
  return JSON.stringify({ waiting, lastModules: cache ? Object.keys(cache).slice(-5) : [] });
})()`;

/**
 * @param {object} client a chrome-remote-interface client of the hung process
 * @returns {Promise<{running: boolean, stack: Array<{functionName: string, url: string, line: number}>,
 *   waiting: string[], lastModules: string[]}>} running: the app's JavaScript was on the stack (a
 *   loop, a synchronous wait); otherwise its event loop waited on `waiting` (Node's resource names)
 */
async function hungState(client) {
  const urls = new Map(); // script id -> url: Debugger.enable names every script first
  client.on('Debugger.scriptParsed', ({ scriptId, url }) => urls.set(scriptId, url));
  await client.Debugger.enable();
  const paused = new Promise((resolve) => client.once('Debugger.paused', resolve));
  await client.Debugger.pause();
  // An idle loop runs no JavaScript to pause in: the pause never comes (or comes in a timer of
  // Node's or coldstart's own), the evaluation does.
  const event = await Promise.race([paused, wait(1000).then(() => null)]);
  let stack = [];
  if (event) {
    stack = event.callFrames.map((f) => ({ functionName: f.functionName || '(anonymous)', url: f.url || urls.get(f.location.scriptId) || '', line: f.location.lineNumber + 1 }))
      .filter((f) => f.url && !f.url.startsWith('node:') && !isOwnCode(f.url)).slice(0, 8);
    await client.Debugger.resume().catch(() => {});
  }
  const { result } = await Promise.race([client.Runtime.evaluate({ expression: STATE, returnByValue: true }), wait(1000).then(() => ({ result: null }))]);
  const state = result && typeof result.value === 'string' ? JSON.parse(result.value) : { waiting: [], lastModules: [] };
  return { running: stack.length > 0, stack, ...state, lastModules: state.lastModules.filter((f) => !isOwnCode(f)) };
}

/**
 * The state of a hung start: through the capture's session when there is one, else by opening the
 * inspector of the process with SIGUSR1. Null when neither answered within a few seconds.
 * @param {{session?: object|null, pid?: number, inspectorUrl: () => string|null}} target pid: the
 *   app's Node process (SIGUSR1 ends a shell or any other process that does not expect it)
 */
async function hungStart({ session, pid, inspectorUrl }) {
  const work = (async () => {
    if (session && !session.closed) return hungState(session.client);
    if (!pid) return null;
    try { process.kill(pid, 'SIGUSR1'); } catch { return null; }
    for (let i = 0; i < 40 && !inspectorUrl(); i++) await wait(50);
    const url = inspectorUrl();
    if (!url) return null;
    const client = await connectWithRetry(url, 5);
    try { return await hungState(client); } finally { await client.close().catch(() => {}); }
  })();
  return Promise.race([work.catch(() => null), wait(5000).then(() => null)]);
}

/** One line: where it was running, or what it waited on; and the last modules it loaded. */
function hungLine(state, show = (file) => file) {
  const [frame] = state.stack;
  const where = state.running
    ? `it was running ${frame.functionName} at ${show(frame.url.startsWith('file:') ? require('url').fileURLToPath(frame.url) : frame.url)}:${frame.line}`
    : `it was idle, waiting on ${state.waiting.join(', ') || 'nothing Node counts (a promise that never settles)'}`;
  const last = state.lastModules.length ? `; the last modules it loaded: ${state.lastModules.slice(-3).map(show).join(', ')}` : '';
  return `${where}${last}`;
}

module.exports = { hungStart, hungLine };
