'use strict';
// Reading a saved report.json (or a check baseline) for diff, check and view.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');

/**
 * Reads a report.json (or a check baseline). A directory stands for the report.json inside it.
 * @param {string} file as the user gave it
 * @param {string} cwd
 * @returns {object} the report
 */
function readReport(file, cwd) {
  let full = path.resolve(cwd, file);
  let text;
  try {
    if (fs.statSync(full).isDirectory()) full = path.join(full, 'report.json');
    text = fs.readFileSync(full, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') throw new UsageError(`report not found: ${file}`);
    throw new UsageError(`cannot read ${file}: ${err.code || err.message}`);
  }
  // A production cold start's report (COLDSTART_REPORT): the file itself, or a log holding its line.
  const startup = lastStartupReport(text);
  if (startup) return fromStartupReport(startup);
  let report;
  try {
    report = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${err.message.replace(/\s*\n\s*/g, ' ')}`);
  }
  return checkedReport(report, file);
}

const STARTUP_REPORT = 'startup-report'; // the `coldstart` field of lib/in-app/startup-report.cjs's document

/**
 * The last timing-only startup report in a text: a line that is one, or a log entry that holds one
 * (Cloud Logging's jsonPayload, or textPayload as a string); null when there is none.
 */
function lastStartupReport(text) {
  if (!text.includes(STARTUP_REPORT)) return null;
  let found = null;
  for (const line of text.split('\n')) {
    if (!line.includes(STARTUP_REPORT)) continue;
    let doc;
    try {
      doc = JSON.parse(line.slice(line.indexOf('{')));
    } catch {
      continue;
    }
    if (doc && doc.jsonPayload) doc = doc.jsonPayload;
    else if (doc && typeof doc.textPayload === 'string') {
      try { doc = JSON.parse(doc.textPayload); } catch { continue; }
    }
    if (doc && doc.coldstart === STARTUP_REPORT && Number.isFinite(doc.readyAt) && Array.isArray(doc.packages)) found = doc;
  }
  return found;
}

/**
 * A production startup report in the shape of report.json, so diff and view read it: the time to
 * ready and each package's load time (its modules' own time); no module list, no CPU profile.
 * The report's own figures stay in `production`.
 */
function fromStartupReport(doc) {
  return {
    schema: 1,
    command: [],
    cwd: doc.root,
    root: doc.root,
    node: doc.node,
    until: 'listen',
    partial: false,
    readyAt: doc.readyAt,
    attachMs: null,
    pid: doc.pid,
    exitCode: null,
    address: null,
    files: null, // not counted in production
    bytes: null,
    filesByVia: {},
    outsideRoot: [],
    categories: null,
    packages: doc.packages.map((p) => ({ name: p.name, modules: p.modules, selfMs: p.ms, inclusiveMs: p.ms, loadMs: null, bytes: null })),
    modules: [],
    builtins: [],
    network: null,
    advice: [],
    artifacts: {},
    production: { phases: doc.phases, archive: doc.archive, codeCache: doc.codeCache, fromDisk: doc.fromDisk },
  };
}

/** The document itself when it is a coldstart report; a UsageError naming `file` otherwise. */
function checkedReport(report, file) {
  const valid = report && typeof report === 'object' && Number.isFinite(report.readyAt) &&
    Array.isArray(report.modules) && Array.isArray(report.packages);
  if (!valid) throw new UsageError(`${file} is not a coldstart report (write one with coldstart profile or coldstart check --update-baseline)`);
  const wrong = wrongRuns(report.check);
  if (wrong) throw new UsageError(`${file} is a corrupt check baseline: ${wrong} (record it again with coldstart check --update-baseline)`);
  return report;
}

/** What is wrong with the runs a check baseline keeps (`check`), in words; null when nothing is. */
function wrongRuns(check) {
  if (check == null) return null;
  if (typeof check !== 'object' || Array.isArray(check)) return 'check is not an object';
  for (const key of ['samples', 'control']) {
    const runs = check[key];
    if (runs == null && key === 'control') continue;
    if (!Array.isArray(runs)) return `check.${key} is not an array of times`;
    const i = runs.findIndex((x) => typeof x !== 'number' || !Number.isFinite(x));
    if (i >= 0) return `check.${key}[${i}] is ${JSON.stringify(runs[i]) ?? String(runs[i])}, not a number`;
  }
  return null;
}

// diff of sets of runs: which report files the names given stand for.

const RUNS_USAGE = 'coldstart diff a1.json a2.json ... -- b1.json b2.json ... (or two directories of reports)';

/** Whether two names are sets of runs: a directory without a report.json holds reports. */
function holdsRuns(positional, cwd) {
  return positional.length === 2 && positional.some((name) => {
    const full = path.resolve(cwd, name);
    return isDirectory(full) && !fs.existsSync(path.join(full, 'report.json'));
  });
}

/** The two sets of report files compared: lists either side of --, or two directories. */
function runSets(positional, afterDash, cwd) {
  let sets;
  if (afterDash.length || positional.length !== 2) {
    if (!positional.length || !afterDash.length) throw new UsageError(`diff of sets of runs needs two sets of reports: ${RUNS_USAGE}`);
    sets = [positional, afterDash];
  } else {
    for (const dir of positional) {
      if (!isDirectory(path.resolve(cwd, dir))) throw new UsageError(`diff: ${dir} is not a directory; give two directories of reports, or ${RUNS_USAGE}`);
    }
    sets = positional.map((dir) => [dir]);
  }
  return sets.map((names, i) => {
    const files = names.flatMap((name) => reportsIn(name, cwd));
    if (files.length < 2) {
      throw new UsageError(`diff: the runs ${i ? 'after' : 'before'} are ${files.length} report${files.length === 1 ? '' : 's'}; give at least 2 a side (4 or more for a verdict at 95%)`);
    }
    return files;
  });
}

function isDirectory(full) {
  try {
    return fs.statSync(full).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The report files a name stands for: a file itself; a directory with a report.json that file; any
 * other directory every *.json in it and every report.json one level down, in name order.
 */
function reportsIn(name, cwd) {
  const full = path.resolve(cwd, name);
  if (!isDirectory(full) || fs.existsSync(path.join(full, 'report.json'))) return [name];
  const found = [];
  for (const entry of fs.readdirSync(full, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isFile() && entry.name.endsWith('.json')) found.push(path.join(name, entry.name));
    else if (entry.isDirectory() && fs.existsSync(path.join(full, entry.name, 'report.json'))) found.push(path.join(name, entry.name, 'report.json'));
  }
  return found;
}

module.exports = { readReport, checkedReport, holdsRuns, runSets };
