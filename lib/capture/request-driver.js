'use strict';
// profile --request: coldstart itself sends requests to the app during the window after its ready
// moment, at a steady rate over one keep-alive agent (as a load balancer would keep its
// connections), so the app's work in and outside requests can be told apart.
const http = require('http');

/**
 * Where to reach an app that listens on `address` (what server.address() gave): a Unix socket by
 * its path, an unspecified address (all interfaces) on loopback.
 * @returns {{ host?: string, port?: number, socketPath?: string }|null}
 */
function targetOf(address) {
  if (typeof address === 'string') return { socketPath: address };
  if (!address || !address.port) return null;
  const any = !address.address || address.address === '::' || address.address === '0.0.0.0';
  return { host: any ? '127.0.0.1' : address.address, port: address.port };
}

/**
 * Sends the requests, in turn, `rate` per second, until `durationMs` has passed; a request still
 * open then is abandoned. Resolves to one record per request sent.
 * @param {{ target: object, requests: Array<{method: string, path: string}>, rate: number,
 *   durationMs: number, signal?: AbortSignal, onAnswered?: (rec: object) => void }} options onAnswered:
 *   called as each answer ends
 * @returns {Promise<{ sent: Array<{ method: string, path: string, status: number|null, ms: number|null, error: string|null }>, ms: number }>}
 */
function driveRequests({ target, requests, rate, durationMs, signal, onAnswered = null }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const sent = [];
  const pending = new Set();
  const startedAt = performance.now();
  const count = Math.max(1, Math.floor((rate * durationMs) / 1000));
  return new Promise((resolve) => {
    let next = 0;
    const timer = setInterval(send, 1000 / rate);
    const end = setTimeout(done, durationMs);
    if (signal) signal.addEventListener('abort', done, { once: true });
    send(); // the first one at once: the window opens with traffic, as a platform's first request does
    function send() {
      if (next >= count) return clearInterval(timer);
      const { method, path } = requests[next % requests.length];
      next++;
      const rec = { method, path, status: null, ms: null, error: null };
      sent.push(rec);
      const t0 = performance.now();
      const req = http.request({ ...target, method, path, agent }, (res) => {
        rec.status = res.statusCode;
        res.resume();
        res.once('end', () => {
          rec.ms = performance.now() - t0;
          pending.delete(req);
          if (onAnswered) onAnswered(rec);
        });
      });
      pending.add(req);
      req.once('error', (err) => { rec.error = rec.error || err.code || err.message; pending.delete(req); });
      req.end();
    }
    function done() {
      clearInterval(timer);
      clearTimeout(end);
      for (const rec of sent) if (rec.status == null && !rec.error) rec.error = 'no answer within the window';
      for (const req of pending) req.destroy();
      agent.destroy();
      resolve({ sent, ms: performance.now() - startedAt });
    }
  });
}

/**
 * Sends each request once, one after the other, and keeps what came back: the status and a hash
 * of the body, to compare two runs of the app (profile --verify-advice).
 * @returns {Promise<Array<{ method: string, path: string, status: number|null, body: string|null, error: string|null }>>}
 */
async function askEach(target, requests, timeoutMs = 10000) {
  const { createHash } = require('crypto');
  const answers = [];
  for (const { method, path } of requests) {
    answers.push(await new Promise((resolve) => {
      // One deadline for the whole answer, headers and body: a response that never ends (or
      // drips a byte at a time) is an answer that did not come.
      let status = null;
      const settle = (answer) => {
        clearTimeout(deadline);
        resolve({ method, path, status, body: null, error: null, ...answer });
      };
      const req = http.request({ ...target, method, path, agent: false }, (res) => {
        status = res.statusCode;
        const hash = createHash('sha256');
        res.on('data', (chunk) => hash.update(chunk));
        res.once('end', () => settle({ body: hash.digest('hex') }));
        res.once('error', (err) => settle({ error: err.code || err.message }));
        res.once('close', () => { if (!res.complete) settle({ error: 'the answer was cut off' }); });
      });
      const deadline = setTimeout(() => {
        settle({ error: `no whole answer within ${timeoutMs / 1000} s` });
        req.destroy();
      }, timeoutMs);
      req.once('error', (err) => settle({ error: err.code || err.message }));
      req.end();
    }));
  }
  return answers;
}

/**
 * capture's whileRunning that asks the ready app each request once, at the address it listens on
 * (askEach); null where it gave none.
 * @param {Array<{method: string, path: string}>} requests
 * @returns {(timed: {address: unknown}) => Promise<ReturnType<typeof askEach> extends Promise<infer A> ? A | null : never>}
 */
function askOf(requests) {
  return (timed) => {
    const target = targetOf(timed.address);
    return target ? askEach(target, requests) : Promise.resolve(null);
  };
}

module.exports = { askEach, askOf, driveRequests, targetOf };
