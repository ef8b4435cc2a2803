'use strict';
// The ready moment as seen from inside the app, and the clock every readyAt is on, for the capture
// agent, the timed runs and start's startup report and code-cache recording run alike. Runs in the
// app's own process: Node built-ins only, loaded when needed.

// 'answer:/path' (a server's first answer: what the CLI gives by default), 'listen' (the default
// here, for start's production report), 'exit', a duration in milliseconds after start, or a
// readiness URL ('http:/path' or 'http://:PORT/path').
const UNTIL_ENV = 'COLDSTART_UNTIL';

/** The ready moment this process was started for. */
function readyMoment() {
  return process.env[UNTIL_ENV] || 'listen';
}

// readyAt's clock: ms since this process started, less the time a measurement held the app (the
// profiled run's pause at start while the CLI attaches its profiler; a timed run and a production
// report hold it for none). Moments are read in µs on process.hrtime's clock, which is the CPU
// profile's and, one monotonic clock for every process of the machine, the CLI's too (a Lambda
// function is ready at the CLI's moment). The process's start is performance's time origin on
// that clock.

/** µs on process.hrtime's clock. */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** ms from a process's start (startUs) to the moment us, less the pausedUs a measurement held it. */
function msSinceStart(us, startUs, pausedUs = 0) {
  return (us - startUs - pausedUs) / 1000;
}

/**
 * This process's clock. held(fromUs, toUs) leaves a pause out; at(us) is a moment in ms since
 * start, now() this one: the readyAt of a process ready now.
 * @returns {{startUs: number, pausedUs: number, held(fromUs: number, toUs: number): void,
 *   at(us: number): number, now(): number}}
 */
function processClock() {
  // The first use of performance loads it (1-4 ms): done before the readings, not between them.
  performance.now();
  const beforeUs = nowUs();
  const sinceStartMs = performance.now();
  const clock = {
    startUs: Math.round((beforeUs + nowUs()) / 2 - sinceStartMs * 1000),
    pausedUs: 0,
    held(fromUs, toUs) { clock.pausedUs += toUs - fromUs; },
    at: (us) => msSinceStart(us, clock.startUs, clock.pausedUs),
    now: () => clock.at(nowUs()),
  };
  return clock;
}

/**
 * Calls onReady(server, moment) at the ready moments decided inside the app: 'listen' (the first
 * listen on a port); a server's first answer ('answer:/path') as the first user's request sees it;
 * a readiness URL (its first 2xx, asked every 10 ms from the first listen on, as a platform's
 * startup probe would). The last two ask the server (readiness-probe.cjs). moment: {listenUs
 * (process.hrtime's clock, µs), address (the server's, taken at its listen), answer?, unanswered?}.
 * Returns false for the others ('exit', a duration), which the caller handles. onListen() is
 * called at a first answer's listen.
 */
function onReadyMoment(until, onReady, onListen = () => {}) {
  const listened = (server) => {
    try { return { listenUs: nowUs(), address: server.address() }; } catch { return { listenUs: nowUs(), address: null }; }
  };
  if (until === 'listen') {
    onListening((server) => onReady(server, listened(server)));
    return true;
  }
  const answer = /^answer:(\/.*)$/s.exec(until);
  if (!answer && !until.startsWith('http:')) return false;
  // Only these moments ask the server: loaded now, as the moment is set, before the app's own loads.
  const { firstAnswer, pollUntilReady } = require('./readiness-probe.cjs').readinessProbe({ header: PROBE_HEADER, probing: PROBING });
  let asking = false;
  onListening((server) => {
    if (asking) return;
    asking = true;
    const at = listened(server);
    if (answer) {
      onListen();
      firstAnswer(answer[1], server, at.address, (outcome) => onReady(server, { ...at, ...outcome }));
    } else pollUntilReady(until, at.address, () => onReady(server, at));
  });
  return true;
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

module.exports = { UNTIL_ENV, PROBE_HEADER, PROBING, readyMoment, readyReason, answerOf, onListening, onReadyMoment, nowUs, msSinceStart, processClock };
