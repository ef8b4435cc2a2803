'use strict';
// The ready moment as seen from inside the app, for the capture agent and for start's code-cache
// recording run alike. Runs in the app's own process: Node built-ins only, loaded when needed.

// 'listen' (the default), 'exit', a duration in milliseconds after start, or a readiness URL
// ('http:/path' or 'http://:PORT/path').
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
  return until.mode === 'http' ? until.url : until.mode;
}

/**
 * Calls onReady(server) at the ready moments decided inside the app: 'listen' (the first listen
 * on a port) and a readiness URL (its first 2xx answer, asked every 10 ms on loopback from the
 * first listen on, as a platform's startup probe would). Returns false for the others ('exit', a
 * duration), which the caller handles.
 */
function onReadyMoment(until, onReady) {
  if (until === 'listen') {
    onListening(onReady);
    return true;
  }
  if (!until.startsWith('http:')) return false;
  let polling = false;
  onListening((server) => {
    if (polling) return;
    polling = true;
    pollUntilReady(until, server, () => onReady(server));
  });
  return true;
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

module.exports = { UNTIL_ENV, PROBE_HEADER, PROBING, readyMoment, readyMomentEnv, onListening, onReadyMoment };
