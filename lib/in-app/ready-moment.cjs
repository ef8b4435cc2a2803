'use strict';
// The ready moment as seen from inside the app, for the capture agent and for start's code-cache
// recording run alike. Runs in the app's own process: Node built-ins only, loaded when needed.

// 'answer:/path' (a server's first answer: what the CLI gives by default), 'listen' (the default
// here, for start's production report), 'exit', a duration in milliseconds after start, or a
// readiness URL ('http:/path' or 'http://:PORT/path').
const UNTIL_ENV = 'COLDSTART_UNTIL';

/** The ready moment this process was started for. */
function readyMoment() {
  return process.env[UNTIL_ENV] || 'listen';
}

/**
 * The value of UNTIL_ENV for a ready moment as the CLI parses it (options.js parseUntil).
 * @param {{mode: 'listen'|'exit'|'duration', ms?: number}} until
 */
function readyMomentEnv(until) {
  if (until.mode === 'duration') return String(until.ms);
  if (until.mode === 'answer') return `answer:${until.path}`;
  return until.mode === 'http' ? until.url : until.mode;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Calls onReady(server, moment) at the ready moments decided inside the app: 'listen' (the first
 * listen on a port); a server's first answer ('answer:/path': the first response to GET path that
 * is not a server error, asked on loopback from its first listen on, as the first user's request
 * would be; a server that does not speak HTTP is ready at its listen); a readiness URL (its first
 * 2xx, asked every 10 ms from the first listen on, as a platform's startup probe would).
 * moment: {listenUs (the listen, on process.hrtime's clock in µs), answer?: {status} | null,
 * unanswered?: why a server was taken as ready at its listen}. Returns false for the others
 * ('exit', a duration), which the caller handles. onListen(), when given, is called at a first
 * answer's listen.
 */
function onReadyMoment(until, onReady, onListen = () => {}) {
  if (until === 'listen') {
    onListening((server) => onReady(server, { listenUs: nowUs() }));
    return true;
  }
  const answer = /^answer:(\/.*)$/s.exec(until);
  if (!answer && !until.startsWith('http:')) return false;
  let asking = false;
  onListening((server) => {
    if (asking) return;
    asking = true;
    const listenUs = nowUs();
    if (answer) {
      onListen();
      firstAnswer(answer[1], server, (outcome) => onReady(server, { listenUs, ...outcome }));
    } else pollUntilReady(until, server, () => onReady(server, { listenUs }));
  });
  return true;
}

/**
 * Asks a server that listened GET path until it answers with a status below 500 (a 5xx, or a
 * refused connection, is asked again 10 ms later): done({answer: {status}}). A server with no
 * 'request' listener (gRPC, raw TCP) or that does not answer in HTTP is ready at its listen:
 * done({answer: null, unanswered}).
 */
function firstAnswer(requestPath, server, done) {
  if (server.listenerCount('request') === 0) return done({ answer: null, unanswered: 'not an HTTP server' });
  let address;
  try { address = server.address(); } catch { return done({ answer: null, unanswered: 'closed' }); }
  const host = !address.address || address.address === '::' || address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
  // A TLS server (https, http2 with HTTP/1 allowed): asked over TLS, whatever its certificate.
  const tls = typeof server.addContext === 'function';
  const client = require(tls ? 'https' : 'http');
  function ask() {
    const options = { host, port: address.port, path: requestPath, agent: false, headers: { [PROBE_HEADER]: '1' }, ...(tls ? { rejectUnauthorized: false } : {}) };
    globalThis[PROBING] = true;
    try {
      client.get(options, (res) => {
        res.resume();
        if (res.statusCode < 500) done({ answer: { status: res.statusCode } });
        else setTimeout(ask, 10);
      }).on('error', (err) => {
        if (err.code === 'ECONNREFUSED') setTimeout(ask, 10);
        else done({ answer: null, unanswered: `no HTTP answer (${err.code || err.message})` });
      });
    } finally {
      globalThis[PROBING] = false;
    }
  }
  ask();
}

/** The reason a ready process gives: 'listen', 'answer' or 'probe' (a readiness URL). */
function readyReason(until) {
  return until === 'listen' ? 'listen' : until.startsWith('answer:') ? 'answer' : 'probe';
}

/** A first answer's part of what a ready process tells the CLI. */
function answerOf({ answer, unanswered }) {
  return answer === undefined ? {} : { answer, ...(unanswered ? { unanswered } : {}) };
}

/**
 * What startup waited on leaves the probe out: its requests carry PROBE_HEADER, and PROBING is
 * set while one is started (its socket is made then).
 */
const PROBE_HEADER = 'x-coldstart-readiness-probe';
const PROBING = Symbol.for('coldstart.probing');

function pollUntilReady(url, server, done) {
  const [, host, port, probePath] = /^http:(?:\/\/([^/]*?)?:(\d+))?(\/.*)$/.exec(url);
  let target = Number(port);
  if (!port) {
    try { target = server.address().port; } catch { /* closed: the CLI's timeout says so */ }
  }
  const http = require('http');
  const again = () => setTimeout(ask, 10);
  function ask() {
    const options = { host: host && host !== 'localhost' ? host.replace(/^\[|\]$/g, '') : '127.0.0.1', port: target, path: probePath, agent: false, headers: { [PROBE_HEADER]: '1' } };
    globalThis[PROBING] = true;
    try {
      http.get(options, (res) => {
        res.resume();
        if (res.statusCode >= 200 && res.statusCode < 300) done();
        else again();
      }).on('error', again);
    } finally {
      globalThis[PROBING] = false;
    }
  }
  ask();
}

/**
 * Calls onListen(server) when any net.Server (http, https, http2, gRPC, ...) starts listening
 * on a port. Unix sockets and named pipes do not count: tools that start the app in a child
 * process (tsx, for one) open one to talk to it, long before the app is ready.
 */
function onListening(onListen) {
  const net = require('net');
  const origEmit = net.Server.prototype.emit;
  net.Server.prototype.emit = function coldstartEmit(event) {
    if (event === 'listening' && !onPipe(this) && !clusterHandle(this)) onListen(this);
    return origEmit.apply(this, arguments);
  };
}

/**
 * A cluster primary listens on behalf of its workers (round-robin scheduling: a server whose
 * only connection listener is the internal assert's fail). The app is ready when a worker
 * listens, not when the primary opens the shared handle.
 */
function clusterHandle(server) {
  const listeners = server.listeners('connection');
  if (listeners.length !== 1 || listeners[0].name !== 'fail') return false;
  const cluster = require('cluster');
  return cluster.isPrimary && Object.keys(cluster.workers || {}).length > 0;
}

function onPipe(server) {
  try {
    return typeof server.address() === 'string';
  } catch {
    return false;
  }
}

module.exports = { UNTIL_ENV, PROBE_HEADER, PROBING, readyMoment, readyMomentEnv, readyReason, answerOf, onListening, onReadyMoment };
