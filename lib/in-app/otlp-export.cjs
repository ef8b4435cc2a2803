'use strict';
// The startup report as an OpenTelemetry trace, sent after the ready moment when the environment
// names an OTLP endpoint (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT +
// /v1/traces): a `startup` span from process start to ready, and under it one span per package
// from its first module load to its last, with its own load time. OTLP/HTTP with the JSON
// encoding, so a fleet's cold starts show in Jaeger, Tempo or Cloud Trace. Runs inside the app:
// loaded only when the report is on and an endpoint is set; its socket never keeps the app alive,
// and a failure is one line on stderr, never the app's problem.

/** Where to send traces, or null when the environment names no endpoint. */
function tracesEndpoint(env = process.env) {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return null;
}

// An HTTP header name (RFC 9110 token), and a value Node will send (no CR, LF or NUL).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/**
 * OTEL_EXPORTER_OTLP_HEADERS ("k=v,k2=v2", values URL-encoded) as an object, and the pairs left
 * out: a name that is not an HTTP token, a value that does not decode or holds a line break.
 */
function headersOf(text = '') {
  const headers = {};
  const refused = [];
  for (const pair of text.split(',')) {
    if (!pair.trim()) continue;
    const at = pair.indexOf('=');
    const name = at > 0 ? pair.slice(0, at).trim() : '';
    let value = null;
    try { value = decodeURIComponent(pair.slice(at + 1).trim()); } catch { /* a bad % sequence */ }
    if (HEADER_NAME.test(name) && value !== null && HEADER_VALUE.test(value)) headers[name] = value;
    else refused.push(HEADER_NAME.test(name) ? name : `#${refused.length + 1}`);
  }
  return { headers, refused };
}

/** The endpoint as it may be printed: no user, password or query (where credentials go). */
function shownEndpoint(url) {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

const hex = (bytes) => require('node:crypto').randomBytes(bytes).toString('hex');
const nanos = (originMs, ms) => (BigInt(Math.round((originMs + ms) * 1000)) * 1000n).toString();
const attribute = (key, value) => ({ key, value: typeof value === 'number' ? { intValue: String(Math.round(value)) } : { stringValue: String(value) } });
const msAttribute = (key, ms) => ({ key, value: { doubleValue: ms } }); // a time stays a double, 12 as well as 12.5

/**
 * The OTLP/JSON body of one startup.
 * @param {object} doc the startup report (startup-report.cjs)
 * @param {Array<{name: string, startMs: number, endMs: number}>} windows each package's first load to last
 * @param {{ originMs: number, serviceName: string }} where performance.timeOrigin, the service
 */
function traceOf(doc, windows, { originMs, serviceName }) {
  const traceId = hex(16);
  const rootId = hex(8);
  const ownMs = new Map(doc.packages.map((p) => [p.name, p]));
  const span = (name, spanId, parentSpanId, startMs, endMs, attributes) => ({
    traceId, spanId, parentSpanId, name, kind: 1,
    startTimeUnixNano: nanos(originMs, startMs), endTimeUnixNano: nanos(originMs, endMs), attributes,
  });
  const spans = [span('startup', rootId, '', 0, doc.readyAt, [
    msAttribute('coldstart.ready_ms', doc.readyAt), attribute('coldstart.modules', doc.modules), attribute('process.pid', doc.pid),
    attribute('process.runtime.version', doc.node),
    ...(doc.codeCache ? [attribute('coldstart.code_cache.hits', doc.codeCache.hits), attribute('coldstart.code_cache.rejected', doc.codeCache.rejected)] : []),
  ])];
  for (const w of windows) {
    const p = ownMs.get(w.name) || { ms: 0, modules: 0 };
    spans.push(span(`load ${w.name}`, hex(8), rootId, w.startMs, Math.min(w.endMs, doc.readyAt), [
      attribute('coldstart.package', w.name), msAttribute('coldstart.own_ms', p.ms), attribute('coldstart.modules', p.modules),
    ]));
  }
  return {
    resourceSpans: [{
      resource: { attributes: [attribute('service.name', serviceName)] },
      scopeSpans: [{ scope: { name: 'coldstart' }, spans }],
    }],
  };
}

/** Sends the trace; resolves when done or failed (a failure says so once on stderr). */
function exportStartup(doc, windows, env = process.env) {
  const endpoint = tracesEndpoint(env);
  if (!endpoint) return Promise.resolve(false);
  return new Promise((resolve) => {
    let shown = 'the OTLP endpoint';
    const fail = (why) => {
      try { require('node:fs').writeSync(2, `coldstart: startup trace not sent to ${shown}: ${why}\n`); } catch { /* no stderr */ }
      resolve(false);
    };
    // Nothing here may throw into the app: every setting is checked, any error is one line.
    try {
      let url;
      try {
        url = new URL(endpoint);
      } catch {
        return fail('OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is not a URL');
      }
      shown = shownEndpoint(url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`${url.protocol} is not http: or https:`);
      const { headers, refused } = headersOf(env.OTEL_EXPORTER_OTLP_HEADERS);
      if (refused.length) return fail(`OTEL_EXPORTER_OTLP_HEADERS has entries that are not valid headers (${refused.join(', ')})`);
      const body = JSON.stringify(traceOf(doc, windows, { originMs: performance.timeOrigin, serviceName: env.OTEL_SERVICE_NAME || 'unknown_service:node' }));
      const client = require(url.protocol === 'https:' ? 'node:https' : 'node:http');
      const req = client.request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: 10_000,
        agent: false,
      }, (res) => {
        res.resume();
        res.once('end', () => (res.statusCode >= 200 && res.statusCode < 300 ? resolve(true) : fail(`status ${res.statusCode}`)));
      });
      req.once('socket', (socket) => socket.unref()); // the app's life is not ours to extend
      req.once('timeout', () => req.destroy(new Error('no answer in 10 s')));
      req.once('error', (err) => fail(err.code || err.message));
      req.end(body);
    } catch (err) {
      fail(err.code || err.message);
    }
  });
}

module.exports = { exportStartup, traceOf, tracesEndpoint, headersOf };
