'use strict';
// Writes what `coldstart profile` leaves behind: startup.cpuprofile (and startup.raw.cpuprofile),
// startup-files.txt, report.json and report.html (and after-ready.cpuprofile with --after), each atomically.
const fs = require('fs');
const path = require('path');
const { writeFileAtomic } = require('../write-atomic.js');
const { buildReport } = require('../analyze/startup-report.js');

// Every file profile may write into --out: what profile --docker takes back from its container.
const ARTIFACT_NAMES = ['startup.cpuprofile', 'startup.raw.cpuprofile', 'after-ready.cpuprofile', 'startup-files.txt', 'report.json', 'report.html'];

/**
 * @param {object} result CaptureResult
 * @param {string} outDir
 * @param {string} cwd for the paths shown to the user
 * @param {{ verification?: Array<object>|null, floorMs?: number|null, advice?: Array<object>|null, runs?: object|null }} [extra]
 *   what --verify-advice measured (verify-lazy.js); a bare Node's time to ready in the same run; the advice
 *   across runs (advice-across-runs.js) and the runs it came from (profile --runs)
 * @returns {object} the report (report.json content)
 */
function writeProfileArtifacts(result, outDir, cwd, { verification = null, floorMs = null, advice = null, runs = null } = {}) {
  const shown = (f) => path.relative(cwd, f) || '.';
  const artifacts = {};
  if (result.profile) {
    // The profile to open has coldstart's wrapper frames folded into their callers; the raw one is beside it.
    const { foldOwnFrames } = require('../analyze/fold-own-frames.js');
    artifacts.profile = path.join(outDir, 'startup.cpuprofile');
    writeFileAtomic(artifacts.profile, JSON.stringify(foldOwnFrames(result.profile)));
    artifacts.rawProfile = path.join(outDir, 'startup.raw.cpuprofile');
    writeFileAtomic(artifacts.rawProfile, JSON.stringify(result.profile));
  }
  // profile --after: the window after the ready moment has a profile of its own.
  if (result.afterReady && result.afterReady.profile) {
    artifacts.afterReadyProfile = path.join(outDir, 'after-ready.cpuprofile');
    writeFileAtomic(artifacts.afterReadyProfile, JSON.stringify(result.afterReady.profile));
  }
  artifacts.files = path.join(outDir, 'startup-files.txt');
  writeFileAtomic(artifacts.files, result.files.map((f) => f.path).join('\n') + (result.files.length ? '\n' : ''));
  artifacts.report = path.join(outDir, 'report.json');
  artifacts.html = path.join(outDir, 'report.html');
  const report = buildReport(result, {
    artifacts: Object.fromEntries(Object.entries(artifacts).map(([k, v]) => [k, shown(v)])),
    readSource,
    verification,
    floorMs,
    advice,
    runs,
  });
  writeReportFiles(report, outDir);
  return report;
}

/** report.json and report.html of a report, into outDir: the one writer of both (profile --docker rewrites them so). */
function writeReportFiles(report, outDir) {
  writeFileAtomic(path.join(outDir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileAtomic(path.join(outDir, 'report.html'), require('./html.js').renderReportHtml(report));
}

/** A module's source, for the line of a require in the advice; null when it cannot be read. */
function readSource(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

module.exports = { writeProfileArtifacts, writeReportFiles, readSource, ARTIFACT_NAMES };
