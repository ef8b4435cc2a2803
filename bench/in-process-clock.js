'use strict';
// The in-process clock of the container benchmarks (bench/sandbox-clock.js, bench/docker-startup.js
// and so the headline): ms from the start of the Node process that runs the app (process.uptime())
// to its first server's 'listening' event, as the app's own clock reads it inside the container.
// lib/in-app/listen-clock.cjs (the probe `coldstart dockerfile --runtime` times with), preloaded with
// -r, prints it on stderr (`coldstart-listen MS rusage {json}`) and then ends the process. `coldstart start` runs the app in its own process (no second
// Node), so the preload given to its node measures the process the app runs in, as for plain node.
const path = require('node:path');

/** The preload on this machine; containers get a copy (a mount or a file in the image). */
const LISTEN_UPTIME_FILE = path.join(__dirname, '..', 'lib', 'in-app', 'listen-clock.cjs');
const LISTEN_LINE = /coldstart-listen ([\d.]+)/;
const RUSAGE_LINE = /coldstart-listen [\d.]+ rusage (\{.*\})/;

/** The node flags that preload the probe from `file` (its path in the container). */
function listenProbeArgs(file) {
  return ['-r', file];
}

/**
 * A command with the probe preloaded into its node (right after `node`); any other command
 * (a shell) as it is, with no in-process figure.
 * @returns {string[] | null} null when the command does not start node itself
 */
function withListenProbe(args, file) {
  if (args[0] !== 'node') return null;
  return [args[0], ...listenProbeArgs(file), ...args.slice(1)];
}

/** The in-process ms the probe printed, or null. */
function listenUptime(stderr) {
  const m = LISTEN_LINE.exec(stderr);
  return m ? Number(m[1]) : null;
}

module.exports = { LISTEN_UPTIME_FILE, LISTEN_LINE, RUSAGE_LINE, listenProbeArgs, withListenProbe, listenUptime };
