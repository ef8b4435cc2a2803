'use strict';
// Advice for a start profiled inside a container (profile --docker): in a sandbox such as gVisor
// every file system call is expensive, so the time spent resolving and reading modules is what
// `coldstart start` serves from memory, and the time spent compiling is what a code cache in the
// archive saves. Pure: report.json (with `container` and its CPU profile categories) in, findings out.

// Below this, a finding is not worth a line.
const MIN_MS = 10;

/** Whether the app command starts the app through `coldstart start`. */
function underColdstartStart(command) {
  const at = command.findIndex((w) => /(^|\/)coldstart(\.js)?$/.test(w));
  return at !== -1 && command.slice(at + 1).includes('start');
}

/**
 * @param {object} report report.json of a profile taken in a container
 * @returns {Array<{ kind: 'container-start'|'container-code-cache', subject: string, file: null, line: null,
 *   estimatedMs: number, evidence: string, fix: string }>}
 */
function containerAdvice(report) {
  const cat = report.categories;
  if (!report.container || !cat) return [];
  const where = `${report.container.runtime === 'runsc' ? 'gVisor (runsc)' : report.container.runtime}`;
  const round = (n) => Math.round(n * 100) / 100;
  const advice = [];
  if (!underColdstartStart(report.command || [])) {
    const ms = round((cat.resolve || 0) + (cat.read || 0));
    if (ms >= MIN_MS) {
      advice.push({
        kind: 'container-start', subject: 'module resolution and file reads', file: null, line: null, estimatedMs: ms,
        evidence: `${ms} ms of the profile under ${where} resolved and read ${report.files} startup files (resolve ${round(cat.resolve || 0)} ms, read ${round(cat.read || 0)} ms)`,
        fix: 'pack the startup files at build time (coldstart pack --code-cache) and start with coldstart start, which serves them from memory; coldstart dockerfile prints the stages',
      });
    }
  } else if ((cat.compile || 0) >= MIN_MS && cat.compile >= 0.1 * (cat.totalMs || Infinity)) {
    advice.push({
      kind: 'container-code-cache', subject: 'compiling at every start', file: null, line: null, estimatedMs: round(cat.compile),
      evidence: `${round(cat.compile)} ms of the profile under ${where} compiled code (${Math.round((100 * cat.compile) / cat.totalMs)}% of it)`,
      fix: 'give the archive a code cache: coldstart pack --code-cache (start then hands V8 the cached code, checked against this Node)',
    });
  }
  return advice;
}

module.exports = { containerAdvice, underColdstartStart };
