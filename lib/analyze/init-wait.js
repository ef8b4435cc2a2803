'use strict';
// A Lambda function's init ends when its request for an event reaches the Runtime API, as Lambda
// counts it. The function has nothing left to do from the moment it made the request: its thread
// waits on the event loop ((idle) in the profile) until coldstart's Runtime API takes it. On a busy
// machine that delivery took 17-133 ms of a 250 ms init (the runtime client's thread and the CLI
// each waiting for a CPU). The wait is the profile's last stretch of (idle) samples before that
// moment, never before the last module finished loading (an init that awaited something, or
// unsampled work between two waits, stays init). Pure.
const { timedSamples } = require('./cpuprofile-categories.js');
const { segmentsOnProfile } = require('./module-gc.js');

/**
 * @param {object} profile the trimmed V8 CPU profile
 * @param {Array<object>} modules CaptureResult.modules (windows on the readyAt clock, ms)
 * @param {(ms: number) => number} toProfileUs maps a readyAt-clock time to the profile clock
 * @param {number} initMs when the Runtime API took the request (readyAt clock)
 * @returns {number} ms the function's thread waited at the end of init (0: none seen)
 */
function initWaitMs(profile, modules, toProfileUs, initMs) {
  if (!profile || !Array.isArray(profile.nodes)) return 0;
  const idle = new Set(profile.nodes.filter((n) => n.callFrame && n.callFrame.functionName === '(idle)').map((n) => n.id));
  const endUs = toProfileUs(initMs);
  const samples = timedSamples(profile).filter((s) => s.t < endUs);
  let first = samples.length;
  while (first > 0 && idle.has(samples[first - 1].id)) first--;
  if (first === samples.length) return 0;
  const segments = segmentsOnProfile(modules || [], toProfileUs);
  const loadedUs = segments.length ? segments[segments.length - 1].to : -Infinity;
  return Math.max(0, endUs - Math.max(samples[first].t, loadedUs)) / 1000;
}

module.exports = { initWaitMs };
