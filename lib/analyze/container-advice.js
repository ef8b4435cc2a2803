'use strict';
// Advice for a start profiled inside a container (profile --docker): in a sandbox such as gVisor
// every file system call is expensive, so the time spent resolving and reading modules is what
// `coldstart start` serves from memory, the time start spends checking each packed file against the
// disk is what --trust-archive saves in an image that does not change, and the time spent compiling
// is what a code cache in the archive saves. Pure: report.json (with `container`, its CPU profile
// categories and startVerifyMs) in, findings out.

const { isGvisor } = require('../gvisor.js');

// Below this, a finding is not worth a line.
const MIN_MS = 10;
// A finding here is the time the profile spent, not a start timed with the change: inside a sandbox
// the change has its own cost (a code cache is read from files too: a Lambda handler's init under
// gVisor took 1.27x as long with one). Printed as not verified, with how to time it.
const untested = (runtime) => ({
  verdict: 'not verified',
  reason: `the time this profile spent, not a start timed with the change: profile the image built with it (coldstart profile --docker IMAGE --runtime ${runtime}) and compare the two with coldstart diff`,
});
// Where `coldstart start` (without --trust-archive) checks the packed files against the disk.
const VERIFY_FRAME = { functionName: 'usable', file: '/lib/start/memory-loader.js' };

/**
 * ms of a CPU profile spent in start's check of packed files against the disk (without --trust-archive),
 * 0 when the app did not run under start or the check took no sample.
 */
function startVerifyMs(profile) {
  if (!profile || !Array.isArray(profile.nodes)) return 0;
  const { timedSamples } = require('./cpuprofile-categories.js');
  const parent = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const inCheck = new Map();
  const underCheck = (id) => {
    if (inCheck.has(id)) return inCheck.get(id);
    const frame = byId.get(id) && byId.get(id).callFrame;
    const hit = Boolean(frame && frame.functionName === VERIFY_FRAME.functionName && String(frame.url).replace(/\\/g, '/').endsWith(VERIFY_FRAME.file));
    const answer = hit || (parent.has(id) ? underCheck(parent.get(id)) : false);
    inCheck.set(id, answer);
    return answer;
  };
  let us = 0;
  for (const s of timedSamples(profile)) if (underCheck(s.id)) us += s.weight;
  return Math.round(us / 10) / 100;
}

/** Whether the app command starts the app through `coldstart start`. */
function underColdstartStart(command) {
  const at = command.findIndex((w) => /(^|\/)coldstart(\.js)?$/.test(w));
  return at !== -1 && command.slice(at + 1).includes('start');
}

/**
 * @param {object} report report.json of a profile taken in a container
 * @returns {Array<{ kind: 'container-start'|'container-verify'|'container-code-cache', subject: string, file: null, line: null,
 *   estimatedMs: number, evidence: string, fix: string, verified: {verdict: 'not verified', reason: string} }>}
 */
function containerAdvice(report) {
  const cat = report.categories;
  if (!report.container || !cat) return [];
  const where = isGvisor(report.container.runtime) ? `gVisor (${report.container.runtime})` : report.container.runtime;
  const round = (n) => Math.round(n * 100) / 100;
  const advice = [];
  if (!report.served && !underColdstartStart(report.command || [])) {
    const ms = round((cat.resolve || 0) + (cat.read || 0));
    if (ms >= MIN_MS) {
      advice.push({
        kind: 'container-start', subject: 'module resolution and file reads', file: null, line: null, estimatedMs: ms,
        evidence: `${ms} ms of the profile under ${where} resolved and read ${report.files} startup files (resolve ${round(cat.resolve || 0)} ms, read ${round(cat.read || 0)} ms)`,
        fix: 'pack the startup files at build time (coldstart pack --code-cache) and start with coldstart start, which serves them from memory; coldstart dockerfile prints the stages',
        verified: untested(report.container.runtime),
      });
    }
  } else {
    advice.push(...startAdvice(report, cat, where, round));
  }
  return advice;
}

/**
 * Under coldstart start: the code cache, and the check of every packed file against the disk,
 * each only when the start does not do it already (what start said of itself, report.served;
 * its command line when the report predates that).
 */
function startAdvice(report, cat, where, round) {
  const advice = [];
  const command = report.command || [];
  const served = report.served;
  if (served && served.mode === 'snapshot') return advice; // no file checks, code in the snapshot
  const verifying = served ? served.verify !== 'none'
    : !command.some((w, i) => w === '--trust-archive' || w === '--verify=none' || (w === '--verify' && command[i + 1] === 'none'));
  if (verifying && report.startVerifyMs >= MIN_MS) {
    advice.push({
      kind: 'container-verify', subject: 'checking the packed files against the disk', file: null, line: null, estimatedMs: report.startVerifyMs,
      evidence: `${report.startVerifyMs} ms of the profile under ${where} in start's check of the packed files against the disk`,
      fix: 'start --trust-archive: an image\'s files do not change after its build, so start can serve the archive\'s copy without checking it',
      verified: untested(report.container.runtime),
    });
  }
  const hasCodeCache = served ? served.codeCacheModules > 0 : false;
  if (!hasCodeCache && (cat.compile || 0) >= MIN_MS && cat.compile >= 0.1 * (cat.totalMs || Infinity)) {
    advice.push({
      kind: 'container-code-cache', subject: 'compiling at every start', file: null, line: null, estimatedMs: round(cat.compile),
      evidence: `${round(cat.compile)} ms of the profile under ${where} compiled code (${Math.round((100 * cat.compile) / cat.totalMs)}% of it)`,
      fix: 'give the archive a code cache: coldstart pack --code-cache (start then hands V8 the cached code, checked against this Node)',
      verified: untested(report.container.runtime),
    });
  }
  return advice;
}

module.exports = { containerAdvice, startVerifyMs, underColdstartStart };
