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
  let report;
  try {
    report = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${err.message.replace(/\s*\n\s*/g, ' ')}`);
  }
  return checkedReport(report, file);
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

module.exports = { readReport, checkedReport };
