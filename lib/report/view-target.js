'use strict';
// What `coldstart view` shows: a named file, or the newest profile (or the report) in the output
// directory; a saved report.json is rendered to its HTML beside it first.
const fs = require('fs');
const path = require('path');
const { UsageError, CommandError } = require('../errors.js');

/**
 * What to show: { kind: 'report', html } or { kind: 'profile', profile }.
 * @param {{file?: string, report?: boolean, dir?: string}} wanted a named file, a report rather than a profile, the output directory
 */
function resolveTarget({ file: named, report, dir }, cwd) {
  if (!named) return findInDir(path.resolve(cwd, dir || '.coldstart'), report, cwd);
  const file = path.resolve(cwd, named);
  let stat;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    throw new UsageError(err.code === 'ENOENT' ? `file not found: ${named}` : `cannot read ${named}: ${err.code}`);
  }
  if (stat.isDirectory()) return findInDir(file, report, cwd);
  const ext = path.extname(file).toLowerCase();
  if (ext === '.html' || ext === '.htm') return { kind: 'report', html: file };
  const doc = ext === '.json' ? parsedReport(file) : null;
  if (doc) return { kind: 'report', html: renderFromJson(file, cwd, doc.coldstart ? null : doc) };
  // Any other file but a profile: a production startup report, or a log (an export) that holds one.
  if (ext !== '.cpuprofile' && !looksLikeProfile(file) && readsAsReport(file, cwd)) return { kind: 'report', html: renderFromJson(file, cwd) };
  if (report) {
    throw new UsageError(`--report opens report.html or report.json, or a production startup report (COLDSTART_REPORT's file, or a log holding its line), not ${named}`);
  }
  if ((ext === '.json' || ext === '.cpuprofile') && !looksLikeProfile(file)) {
    throw new UsageError(`${named} is not a CPU profile or trace (nor a coldstart report)`);
  }
  return { kind: 'profile', profile: file };
}

/**
 * A JSON profile speedscope reads: a V8 CPU profile ({"nodes": ...}) or a trace (an array of
 * events, or {"traceEvents": ...}). Judged from the file's first megabyte: profiles run to
 * hundreds of megabytes, and those keys come first. Other formats (collapsed stacks, perf
 * script) are text and left to speedscope.
 */
function looksLikeProfile(file) {
  const head = Buffer.alloc(1 << 20);
  let fd;
  let length = 0;
  try {
    fd = fs.openSync(file, 'r');
    length = fs.readSync(fd, head, 0, head.length, 0);
  } catch {
    return true; // unreadable: the reader says why, with its own message
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  const text = head.toString('utf8', 0, length).trimStart();
  if (text.startsWith('[')) return true;
  return text.startsWith('{') && /"(nodes|traceEvents|samples)"\s*:/.test(text);
}

function findInDir(dir, report, cwd) {
  const shown = path.relative(cwd, dir) || '.';
  if (report) {
    const html = path.join(dir, 'report.html');
    if (fs.existsSync(html)) return { kind: 'report', html };
    const json = path.join(dir, 'report.json');
    if (fs.existsSync(json)) return { kind: 'report', html: renderFromJson(json, cwd) };
    throw new UsageError(`no report.html in ${shown}/: run coldstart profile -- <app command> first`);
  }
  let newest = null;
  let entries = [];
  try {
    entries = fs.readdirSync(dir);
  } catch { /* no directory: no profile, said below */ }
  for (const name of entries) {
    // The raw profile beside startup.cpuprofile (coldstart's frames kept) is opened by name only.
    if (!name.endsWith('.cpuprofile') || name.endsWith('.raw.cpuprofile')) continue;
    const full = path.join(dir, name);
    const mtime = fs.statSync(full).mtimeMs;
    if (!newest || mtime > newest.mtime) newest = { full, mtime };
  }
  if (!newest) throw new UsageError(`no .cpuprofile in ${shown}/: run coldstart profile -- <app command> first, or name a file`);
  return { kind: 'profile', profile: newest.full };
}

/** Whether read-report.js reads the file as a report (a production startup report, a log holding one). */
function readsAsReport(file, cwd) {
  try {
    require('./read-report.js').readReport(file, cwd);
    return true;
  } catch (err) {
    if (err instanceof UsageError) return false;
    throw err;
  }
}

/** The parsed document when the file looks like a report, else null. */
function parsedReport(file) {
  try {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    // A report.json, a check baseline, or a production startup report (COLDSTART_REPORT).
    return doc && (Array.isArray(doc.modules) || doc.coldstart === 'startup-report') && Array.isArray(doc.packages) ? doc : null;
  } catch {
    return null; // not a report: maybe a profile or trace speedscope reads
  }
}

/** Re-renders the HTML of a saved report (report.json -> report.html, baseline.json -> baseline.html). */
function renderFromJson(json, cwd, parsed = null) {
  const { readReport, checkedReport } = require('./read-report.js');
  const { renderReportHtml } = require('./html.js');
  const { writeFileAtomic } = require('../write-atomic.js');
  const report = parsed ? checkedReport(parsed, json) : readReport(json, cwd);
  const html = path.join(path.dirname(json), `${path.basename(json, path.extname(json))}.html`);
  try {
    writeFileAtomic(html, renderReportHtml(report));
  } catch (err) {
    throw new CommandError(`cannot write ${path.relative(cwd, html)}: ${err.code || err.message}`);
  }
  return html;
}

module.exports = { resolveTarget };
