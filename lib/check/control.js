'use strict';
// The control of a check: a small real app (control-app/, a dozen modules and an http server)
// started right after each timed run of the app, the same way. It is not assumed to track the app:
// how much the app moves with it is measured from the runs themselves (run by run, within the
// baseline and within this check), and the app's time is judged less that share of the control's
// move. An app that moves a millisecond for each of the control's is judged by its excess over
// the control, as before (a busier machine slows both, and the part of startup every Node process
// pays cancels out); when the control then moved between the baseline and now, the excess is also
// read scaled by how much it slowed, and a verdict must hold under both readings. An app the
// control does not track (a one-file app whose runs vary on their own) is judged as measured: the
// control's own noise is not added to it. Pure but for the path of the control app.
const path = require('path');
const { median, compareSamples } = require('../stats.js');

const CONTROL_APP = path.join(__dirname, 'control-app', 'main.js');

/**
 * The command of the control app, ready the way the app is: listening, exiting, or answering the
 * readiness URL (on its port, when the URL names one). The app's own node binary when it is
 * started with node.
 * @returns {?string[]} null for --until <duration>, where the ready moment is fixed anyway
 */
function controlCommand(appCommand, until) {
  const node = nodeOf(appCommand);
  if (until.mode === 'listen' || until.mode === 'answer') return [node, CONTROL_APP, 'listen']; // it answers any path
  if (until.mode === 'exit') return [node, CONTROL_APP, 'exit'];
  if (until.mode === 'http') return [node, CONTROL_APP, 'http', String(probePort(until))];
  return null;
}

/** The app's node binary when it is started with node, else this one. */
function nodeOf(appCommand) {
  const { isNode } = require('../node-command.js');
  return isNode(appCommand[0]) ? appCommand[0] : process.execPath;
}

/** The port a readiness URL names, 0 when it names none. */
const probePort = (until) => Number((/^http:\/\/[^/]*?:(\d+)/.exec(until.url) || [])[1] || 0);

/**
 * A bare Node of the app's binary that reaches the same ready moment with nothing loaded: Node's
 * own start on this machine (profile reports it beside the app's).
 * @returns {?string[]} null for --until <duration>
 */
function bareNodeCommand(appCommand, until) {
  const node = nodeOf(appCommand);
  if (until.mode === 'listen') return [node, '-e', "require('net').createServer().listen(0, '127.0.0.1')"];
  if (until.mode === 'answer') return [node, '-e', "require('http').createServer((q, s) => s.end()).listen(0, '127.0.0.1')"];
  if (until.mode === 'exit') return [node, '-e', '0'];
  if (until.mode === 'http') return [node, '-e', `require('http').createServer((q, s) => s.end()).listen(${probePort(until)}, '127.0.0.1')`];
  return null;
}

// Both runs of a pair are needed: a control run without its app run (or the reverse) says nothing.
const paired = (side) => Array.isArray(side.control) && side.control.length === side.samples.length &&
  side.samples.length > 0 && side.control.every((c) => c > 0);

/**
 * How much the app's time moves with the control's, run by run: the median slope between two runs
 * of one side (Theil-Sen, pairs within the baseline and within this check, so the machine's change
 * between the two is not taken for tracking), held to [0, 1]; 0 when the control never varied.
 */
function trackingOf(sides) {
  const slopes = [];
  for (const { samples, control } of sides) {
    for (let i = 0; i < control.length; i++) {
      for (let j = i + 1; j < control.length; j++) {
        const dx = control[j] - control[i];
        if (dx !== 0) slopes.push((samples[j] - samples[i]) / dx);
      }
    }
  }
  return slopes.length ? Math.min(1, Math.max(0, median(slopes))) : 0;
}

/**
 * The samples a baseline check compares.
 * @param {{ samples: number[], control?: number[] }} baseline times to ready, and of the control
 *   run paired with each
 * @param {{ samples: number[], control?: number[] }} measured
 * @param {{ confidence?: number, tracking?: number }} [options] tracking: read the control at this
 *   share instead of measuring it (bench/control-tracking.js sets 0 and 1 beside the measured one)
 * @returns {{ method: 'control'|'raw', before: number[], after: number[], rescaled: ?number[],
 *   control: ?{ before: number, after: number, moved: 'slower'|'faster'|'noise'|'too few runs', factor: number, tracking: number } }}
 *   'control' when both sides have a control run per app run: before/after are each run's time
 *   less `tracking` times its control run's distance from the control's median (tracking 1: its
 *   excess over its control run), and when the control tracks fully and moved beyond noise,
 *   rescaled is this run's excess times the control's slowdown (baseline median over this
 *   median); 'raw' (the times to ready themselves) otherwise
 */
function againstControl(baseline, measured, { confidence = 0.95, tracking = null } = {}) {
  if (!paired(baseline) || !paired(measured)) {
    return { method: 'raw', before: baseline.samples, after: measured.samples, rescaled: null, control: null };
  }
  if (tracking == null) tracking = trackingOf([baseline, measured]);
  // Tracking fully: the excess over the control (its median added back in neither side changes the shift).
  const centre = tracking === 1 ? 0 : median([...baseline.control, ...measured.control]);
  const adjusted = (side) => side.samples.map((x, i) => x - tracking * (side.control[i] - centre));
  const moved = compareSamples(baseline.control, measured.control, { confidence }).verdict;
  const control = { before: median(baseline.control), after: median(measured.control), moved, tracking: Math.round(tracking * 100) / 100 };
  control.factor = control.before / control.after;
  const after = adjusted(measured);
  return {
    method: 'control',
    before: adjusted(baseline),
    after,
    rescaled: tracking === 1 && (moved === 'slower' || moved === 'faster') ? after.map((x) => x * control.factor) : null,
    control,
  };
}

module.exports = { controlCommand, bareNodeCommand, againstControl, CONTROL_APP };
