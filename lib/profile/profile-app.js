'use strict';
// Profiling as one workflow: the app captured to its ready moment (runs times: the run with the
// median time to ready is the one reported, its advice what most runs found), the lazy-load advice
// verified when asked, the machine's floor beside it, and the report (with its artifacts written
// when there is a directory for them). `coldstart profile` parses its flags, calls this and prints;
// lib/index.js's profile() is this too.
const { capture } = require('../capture/capture.js');
const { buildReport, busyShare, invocationFailure } = require('../analyze/startup-report.js');
const { readSource } = require('../report/profile-artifacts.js');

/** No signal handling of its own: the caller's (the CLI passes lib/interrupt.js withInterrupts). */
const untrapped = (fn) => fn({});

/**
 * @param {object} options
 * @param {object} options.captureOptions how the app runs (command, cwd, env, until, timeoutMs, root,
 *   limits, ...): the profiled runs, the floor and the advice's verification alike
 * @param {{interval?: number, coverage?: boolean, after?: ?object, keepRunning?: boolean}} [options.profiling]
 *   what the profiled runs alone add (after.requests are also what the verification asks)
 * @param {number} [options.runs] captures; the report is the median one's
 * @param {number} [options.verifyRuns] runs of each variant proving the lazy-load advice (0: none)
 * @param {?string} [options.outDir] where the artifacts go (startup.cpuprofile, report.json, ...); null: none written
 * @param {string} [options.cwd] the artifacts' paths in the report are relative to it
 * @param {typeof import('../interrupt.js').withInterrupts} [options.interrupts] runs each capture with Ctrl-C trapped
 * @param {(text: string) => void} [options.onProgress]
 * @returns {Promise<{ report: object, result: object, interrupted: boolean, invocationFailure: ?string }>}
 *   report: report.json; result: the reported capture; interrupted: stopped by Ctrl-C (the report
 *   holds the finished runs, marked partial); invocationFailure: a Lambda function's first invocation failed so
 */
async function profileApp({ captureOptions, profiling = {}, runs = 1, verifyRuns = 0, outDir = null, cwd = process.cwd(), interrupts = untrapped, onProgress = () => {} }) {
  const { results, stopped } = await captureRuns({ ...captureOptions, ...profiling }, runs, interrupts, onProgress);
  const byReady = results.filter((r) => !r.partial).sort((a, b) => a.readyAt - b.readyAt);
  const result = byReady.length ? byReady[(byReady.length - 1) >> 1] : results[results.length - 1];
  const ordered = [result, ...results.filter((r) => r !== result)];
  const drafts = ordered.map((r) => buildReport(r, { readSource }));
  const across = require('../analyze/advice-across-runs.js').adviceAcrossRuns(drafts.map((d) => d.advice));
  // Interrupted: what the finished runs found is reported, marked partial (fewer runs than asked).
  const interrupted = stopped || results.some((r) => r.partial);
  const options = {
    verification: verifyRuns && !interrupted ? await verifyAdvice(drafts[0], captureOptions, profiling.after, verifyRuns, interrupts, onProgress) : null,
    floorMs: interrupted ? null : await machineFloorMs(captureOptions),
    advice: across.advice,
    runs: {
      count: results.length,
      asked: runs,
      finished: byReady.length,
      readyAt: ordered.map((r) => Math.round(r.readyAt * 100) / 100), // the reported run first
      // How busy the machine was in each run: its share of the time the app waited for a CPU.
      busyShare: drafts.map((d) => busyShare(d.machine)),
      unstable: across.unstable,
    },
  };
  const reported = interrupted ? { ...result, partial: true } : result;
  const report = outDir
    ? require('../report/profile-artifacts.js').writeProfileArtifacts(reported, outDir, cwd, options)
    : buildReport(reported, { readSource, ...options });
  return { report, result, interrupted, invocationFailure: interrupted ? null : invocationFailure(result.lambda) };
}

/** The captures, one after the other; a Ctrl-C during one ends them, the runs before it standing. */
async function captureRuns(captureOptions, runs, interrupts, onProgress) {
  const results = [];
  for (let i = 0; i < runs; i++) {
    if (runs > 1) onProgress(`run ${i + 1}/${runs}…`);
    const result = await interrupts((traps) => capture({
      ...captureOptions,
      // The app's output once is enough.
      ...(i > 0 ? { stdout: undefined, stderr: undefined } : {}),
      signal: traps.signal,
      force: traps.force,
    })).catch((err) => {
      if (err.exitCode !== 130 || !results.length) throw err;
      return null;
    });
    if (!result) return { results, stopped: true };
    results.push(result);
    if (result.partial) break;
  }
  return { results, stopped: false };
}

/**
 * The machine's floor now: a bare Node of the app's binary reaching the same ready moment, timed
 * once right after the capture (as check pairs each run with one). Beside the app's own start it
 * tells a slow Node start from a slow app; null when there is none to run or it failed.
 */
async function machineFloorMs(captureOptions) {
  const { bareNodeCommand } = require('../check/control.js');
  const command = bareNodeCommand(captureOptions.command, captureOptions.until || { mode: 'listen' });
  if (!command) return null;
  try {
    const r = await capture({ ...captureOptions, command, timingOnly: true, stdout: undefined, stderr: undefined });
    return Number.isFinite(r.readyAt) ? r.readyAt : null;
  } catch {
    return null;
  }
}

/** --verify-advice: the lazy-load advice of the reported capture (its draft report), measured in alternating timed runs. */
async function verifyAdvice(draft, captureOptions, after, runs, interrupts, onProgress) {
  if (!draft.advice.some((a) => a.kind === 'lazy-load')) return [];
  const { verifyLazyAdvice } = require('../capture/verify-lazy.js');
  return interrupts((traps) => verifyLazyAdvice({
    report: draft,
    runOptions: { ...captureOptions, stdout: undefined, stderr: undefined }, // the app's output once is enough
    runs,
    requests: after ? after.requests : [],
    signal: traps.signal,
    force: traps.force,
    onProgress,
  }));
}

module.exports = { profileApp };
