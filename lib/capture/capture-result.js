'use strict';
// The CaptureResult (DESIGN.md) built from what the ready process's agent handed over: its payload,
// its CPU profile, its ancestors' data and the functions that ran. Plain data in and out, but for
// the file system reads that find the app root and the files the app needs to start.
const os = require('os');
const path = require('path');
const { collectFiles } = require('./startup-files.js');
const { findRoot } = require('../node-command.js');
const { trimProfile } = require('./trim-profile.js');
const { moduleRecords } = require('./module-records.js');
const { readyMomentEnv } = require('./launch.js');

/**
 * What one capture ran, as the result names it.
 * @typedef {{command: string[], cwd: string, root?: string, until: {mode: string, ms?: number, url?: string},
 *   lambda?: {handler: string, event?: any}, commandFiles?: string[]}} CaptureRun commandFiles: what
 *   launch.js found the command by (a package binary's node_modules/.bin link)
 */

/** @param {CaptureRun} run */
function untilLabel(run) {
  const { until, lambda } = run;
  if (lambda) return lambda.event === undefined ? 'lambda init' : 'lambda first invocation';
  return until.mode === 'duration' ? `${until.ms}ms` : readyMomentEnv(until);
}

/**
 * A server's listen apart from its ready moment (null for the others), and with --until answer
 * its first answer ({status}, or null when it was taken as ready at its listen, with why).
 */
function listenAndAnswerFields(payload) {
  return {
    listenAt: payload.listenedAt ?? null,
    ...(payload.answer !== undefined ? { answer: payload.answer, ...(payload.unanswered ? { unanswered: payload.unanswered } : {}) } : {}),
  };
}

/** The fields every result starts with, a timing-only one included. */
function resultHead(run) {
  return { command: run.command, cwd: run.cwd, node: process.version, until: untilLabel(run), partial: false };
}

/** A timing-only run (benchmarks): the ready moment its agent wrote to the channel. */
function timedResult(payload, run, outsideMs) {
  return {
    ...resultHead(run), timingOnly: true,
    pid: payload.pid, readyAt: payload.readyAt, runQueueMs: payload.runQueueMs ?? null, outsideMs, ...listenAndAnswerFields(payload),
    exitCode: payload.exitCode, address: payload.address || null,
    lazyLoaded: payload.lazyLoaded, // with a COLDSTART_LAZY stand-in: when it was first touched
  };
}

/**
 * @param {object} payload what the ready process's agent recorded
 * @param {CaptureRun} run
 * @param {{profile?: object, partial?: boolean, ancestors?: object[], covered?: object[],
 *   heapProfile?: object}} taken heapProfile: V8's sampled allocations alive after the ready moment
 */
function captureResult(payload, run, { profile: rawProfile = null, partial = false, ancestors = [], covered = null, heapProfile = null } = {}) {
  const { command, cwd } = run;
  const cpuProfile = rawProfile && trimProfile(rawProfile, payload.resumeUs, payload.readyUs);
  // A Lambda function's main file is the runtime client's: its code is the task root's.
  const root = run.root ? path.resolve(cwd, run.root) : run.lambda ? cwd : findRoot(payload.mainFile, cwd);
  // Times from the ready process alone; ES modules no hook timed take their evaluation from its profile.
  const modules = moduleRecords(payload, { profile: cpuProfile, clock: { startUs: payload.startUs, pausedUs: payload.pausedUs } });
  // The files: of its ancestors too (their own records), else of these same modules.
  const collected = collectFiles(withAncestors(payload, ancestors), root, ancestors.length ? undefined : modules, run.commandFiles || []);
  const { files, outsideRoot, resolutions, esmResolutions, requires } = collected;
  const loadedFiles = new Set(modules.map((m) => m.file));
  return {
    command,
    cwd,
    root,
    node: process.version,
    appNode: payload.nodeVersion || null,
    until: untilLabel(run),
    reason: payload.reason,
    readyAt: payload.readyAt,
    ...listenAndAnswerFields(payload),
    cpuMs: payload.cpuMs ?? null,
    runQueueMs: payload.runQueueMs ?? null,
    // How busy the machine was around the run: the report says when it inflated the times.
    machine: { loadAverage: loadAverage(), cpus: os.availableParallelism() },
    attachMs: payload.waitMs,
    partial,
    pid: payload.pid,
    exitCode: payload.exitCode,
    address: payload.address || null,
    mainFile: payload.mainFile,
    clock: { startUs: payload.startUs, pausedUs: payload.pausedUs, resumeUs: payload.resumeUs, readyUs: payload.readyUs },
    profile: cpuProfile || undefined,
    coverage: covered ? covered.filter((c) => loadedFiles.has(c.file)) : undefined,
    modules,
    builtins: payload.builtins,
    served: payload.served || null,
    files,
    outsideRoot,
    resolutions,
    esmResolutions,
    requires,
    network: payload.network || null, // what startup waited on (network-record.cjs)
    // process.memoryUsage() the agent read at the ready moment, and V8's sampled live allocations.
    memory: payload.memory ? { usage: payload.memory, heapProfile } : null,
  };
}

/** The ready process's data with its ancestors' loads and reads added (for the file list only). */
function withAncestors(payload, ancestors) {
  if (!ancestors.length) return payload;
  const union = (key) => [payload, ...ancestors].flatMap((p) => p[key] || []);
  return {
    ...payload,
    modules: union('modules'),
    esm: union('esm'),
    esmReads: union('esmReads'),
    reads: union('reads'),
    resolutions: union('resolutions'),
    requires: union('requires'),
    esmResolutions: union('esmResolutions'),
  };
}

/**
 * This machine's load average (1, 5, 15 minutes), as a report gives it; null where the kernel
 * fakes it: gVisor's /proc/loadavg reads 0 with no task at all ("0/0"), Windows' is always 0.
 * @param {?string} [procText] /proc/loadavg's text (null where there is none)
 */
function loadAverage(procText = procLoadavg()) {
  if (process.platform === 'win32') return null;
  const round = (n) => Math.round(n * 100) / 100;
  if (procText == null) return os.loadavg().map(round);
  const fields = procText.split(' ');
  return fields[3] === '0/0' ? null : fields.slice(0, 3).map((n) => round(Number(n)));
}

function procLoadavg() {
  try { return require('fs').readFileSync('/proc/loadavg', 'latin1'); } catch { return null; }
}

module.exports = { captureResult, timedResult, resultHead, loadAverage };
