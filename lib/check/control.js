'use strict';
// The control of a check: a small real app (control-app/, a dozen modules and an http server)
// started right after each timed run of the app, the same way. What the check compares with a
// saved baseline is the app's excess over it, run by run: a busier machine slows both, and the
// part of startup every Node process pays cancels out. (A bare Node that listens was the control
// before, and did not follow what a busy core does to an app: on two busy cores it slowed by a
// larger share than the app, and a grown app then looked unchanged.) When the control itself
// moved between the baseline and now the machine changed: the excess is then also read scaled by
// how much the control slowed, and a verdict must hold under both readings. Pure but for the
// path of the control app.
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
 * The samples a baseline check compares.
 * @param {{ samples: number[], control?: number[] }} baseline times to ready, and of the control
 *   run paired with each
 * @param {{ samples: number[], control?: number[] }} measured
 * @param {{ confidence?: number }} [options]
 * @returns {{ method: 'control'|'raw', before: number[], after: number[], rescaled: ?number[],
 *   control: ?{ before: number, after: number, moved: 'slower'|'faster'|'noise'|'too few runs', factor: number } }}
 *   'control' when both sides have a control run per app run: before/after are each run's time
 *   over its control run, and when the control moved beyond noise, rescaled is this run's excess
 *   times the control's slowdown (baseline median over this median); 'raw' (the times to ready
 *   themselves) otherwise
 */
function againstControl(baseline, measured, { confidence = 0.95 } = {}) {
  if (!paired(baseline) || !paired(measured)) {
    return { method: 'raw', before: baseline.samples, after: measured.samples, rescaled: null, control: null };
  }
  const excess = (side) => side.samples.map((x, i) => x - side.control[i]);
  const moved = compareSamples(baseline.control, measured.control, { confidence }).verdict;
  const control = { before: median(baseline.control), after: median(measured.control), moved };
  control.factor = control.before / control.after;
  const after = excess(measured);
  return {
    method: 'control',
    before: excess(baseline),
    after,
    rescaled: moved === 'slower' || moved === 'faster' ? after.map((x) => x * control.factor) : null,
    control,
  };
}

module.exports = { controlCommand, bareNodeCommand, againstControl, CONTROL_APP };
