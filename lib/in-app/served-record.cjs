'use strict';
// The requests an app served, for profile --after: `http.server.request.start` to
// `http.server.response.finish` (or the response's 'close' when the client went away). Express,
// fastify and koa all answer through http.Server. Loaded by network-record.cjs with --after only.

/**
 * @param {(channel: string, fn: Function) => void} on network-record.cjs's subscriber
 * @param {() => number} now µs
 * @param {string} probeHeader the header of coldstart's own readiness requests, left out
 * @returns {object[]} the records, filled in as requests come and go
 */
function recordServed(on, now, probeHeader) {
  const served = [];
  const records = new WeakMap(); // response -> record
  on('http.server.request.start', ({ request, response }) => {
    if (request.headers[probeHeader]) return;
    const rec = { method: request.method, path: String(request.url || '/').split('?')[0], startUs: now(), endUs: null, status: null };
    served.push(rec);
    records.set(response, rec);
    response.once('close', () => { if (rec.endUs == null) rec.endUs = now(); });
  });
  on('http.server.response.finish', ({ response }) => {
    const rec = records.get(response);
    if (rec) { rec.endUs = now(); rec.status = response.statusCode; }
  });
  return served;
}

module.exports = { recordServed };
