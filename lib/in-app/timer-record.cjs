'use strict';
// Runs inside the app (from network-record.cjs): the timers of more than 10 ms that startup set and
// that fired before it was ready (a retry back-off, a "wait for the database" sleep, a fixed delay
// before listen). No diagnostics channel announces timers, so setTimeout (global, `timers` and
// `timers/promises`) is wrapped; shorter timers, and every timer once recording stops, pass through.

const MIN_DELAY_MS = 10; // exclusive: the readiness probe's own 10 ms pauses are not the app's

/**
 * @param {() => number} now µs, the agent's clock
 * @returns {{ snapshot(at: (us: number|null) => number|null): object[], stop(): void }}
 */
function recordTimers(now) {
  const timers = require('timers');
  const promises = require('timers/promises');
  const { promisify } = require('util');
  const { callerSite, INTERNAL } = require('./caller-site.cjs');
  const waits = [];
  let active = true;

  // Only timers the app's or a package's code set itself: Node's own (undici's and http's
  // timeouts) are not something startup waits on.
  const record = (delay) => {
    let at = null;
    try { at = callerSite(__filename, record); } catch { /* never break the app's timer */ }
    if (at === INTERNAL) return null;
    const rec = { delayMs: delay, startUs: now(), firedUs: null, at };
    waits.push(rec);
    return rec;
  };

  const origSetTimeout = timers.setTimeout;
  function setTimeout(callback, delay) {
    if (!active || !(Number(delay) > MIN_DELAY_MS) || typeof callback !== 'function') return origSetTimeout.apply(this, arguments);
    const rec = record(Number(delay));
    if (!rec) return origSetTimeout.apply(this, arguments);
    const args = Array.prototype.slice.call(arguments);
    args[0] = function timerFired() {
      rec.firedUs = now();
      return callback.apply(this, arguments);
    };
    return origSetTimeout.apply(this, args);
  }
  // util.promisify(setTimeout) keeps working: it uses this property.
  Object.defineProperty(setTimeout, promisify.custom, { value: origSetTimeout[promisify.custom], configurable: true });
  timers.setTimeout = setTimeout;
  if (globalThis.setTimeout === origSetTimeout) globalThis.setTimeout = setTimeout;

  const origSleep = promises.setTimeout;
  promises.setTimeout = function setTimeout(delay) {
    const promise = origSleep.apply(this, arguments);
    if (!active || !(Number(delay) > MIN_DELAY_MS)) return promise;
    const rec = record(Number(delay));
    if (rec) promise.then(() => { rec.firedUs = now(); }, () => {});
    return promise;
  };

  return {
    stop() { active = false; },
    snapshot(at) {
      return waits.map((w) => ({ delayMs: w.delayMs, startMs: at(w.startUs), firedMs: at(w.firedUs), at: w.at }));
    },
  };
}

module.exports = { recordTimers };
