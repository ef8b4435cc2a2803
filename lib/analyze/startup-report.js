'use strict';
// The report.json document: everything a person or a later command (view, diff,
// check) needs from one capture, without the raw CPU profile. Pure.
const { packageTotals, topModules } = require('./require-tree.js');
const { relativeInside } = require('../capture/module-records.js');

const SCHEMA_VERSION = 1;

// Time by category, flat ({ totalMs, resolve, read, ... }); null without a profile.
function categoriesOf(profile) {
  if (!profile) return null;
  const { categorize } = require('./cpuprofile-categories.js');
  const { totalMs, categories } = categorize(profile);
  return { totalMs, ...categories };
}
const round = (n) => (n == null ? n : Math.round(n * 100) / 100);

/**
 * @param {object} result CaptureResult (its CPU profile, when it has one, gives the categories)
 * @param {{ artifacts?: object }} [extra]
 */
function buildReport(result, extra = {}) {
  const show = (file) => (file && relativeInside(result.root, file)) || file;
  const modules = result.modules.map((m) => ({
    file: show(m.file),
    package: m.package,
    kind: m.kind,
    parent: m.parent ? show(m.parent) : null,
    startMs: round(m.startMs),
    resolveMs: round(m.resolveMs),
    loadMs: round(m.loadMs),
    selfMs: round(m.selfMs),
    inclusiveMs: round(m.inclusiveMs),
  }));
  const bytes = result.files.reduce((sum, f) => sum + f.bytes, 0);
  return {
    schema: SCHEMA_VERSION,
    command: result.command,
    cwd: result.cwd,
    root: result.root,
    node: result.node,
    until: result.until,
    partial: result.partial,
    readyAt: round(result.readyAt),
    attachMs: round(result.attachMs),
    pid: result.pid,
    exitCode: result.exitCode ?? null,
    address: result.address ?? null,
    files: result.files.length,
    bytes,
    filesByVia: countBy(result.files, 'via'),
    outsideRoot: result.outsideRoot,
    categories: categoriesOf(result.profile),
    packages: packageTotals(modules, new Map(result.files.map((f) => [f.path, f.bytes]))),
    modules,
    builtins: result.builtins || [],
    artifacts: extra.artifacts || {},
  };
}

function countBy(list, key) {
  const out = {};
  for (const item of list) out[item[key]] = (out[item[key]] || 0) + 1;
  return out;
}

/** The few figures a summary shows first. */
function headline(report, n = 5) {
  return {
    topPackages: report.packages.slice(0, n),
    topInclusive: topModules(report.modules, 'inclusiveMs', n),
    topSelf: topModules(report.modules, 'selfMs', n),
  };
}

module.exports = { buildReport, headline };
