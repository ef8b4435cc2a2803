'use strict';
// Two report.json documents compared: the headline figures, the packages that appear or vanish
// at startup, and what moved most. Pure: reports in, plain data or a string out.
const { ms, size, palette, table, shorten, count } = require('./terminal.js');

const { CATEGORIES } = require('../analyze/cpuprofile-categories.js');

const round = (n) => Math.round(n * 100) / 100;

function change(before, after) {
  const b = Number.isFinite(before) ? before : null;
  const a = Number.isFinite(after) ? after : null;
  const delta = b != null && a != null ? round(a - b) : null;
  const pct = delta != null && b > 0 ? round((100 * delta) / b) : null;
  return { before: b, after: a, delta, pct };
}

/** Movers by |change| of one figure, a row per key present in either list. */
function movers(beforeList, afterList, key, field, { top, minMs }) {
  const before = new Map(beforeList.map((x) => [x[key], x]));
  const after = new Map(afterList.map((x) => [x[key], x]));
  const rows = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(name);
    const a = after.get(name);
    const c = change(b ? b[field] || 0 : 0, a ? a[field] || 0 : 0);
    if (Math.abs(c.delta) < minMs) continue;
    rows.push({
      [key]: name,
      ...(key === 'file' ? { package: (a || b).package } : {}),
      status: !b ? 'added' : !a ? 'removed' : 'changed',
      before: b ? c.before : null,
      after: a ? c.after : null,
      delta: c.delta,
    });
  }
  rows.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || String(x[key]).localeCompare(String(y[key])));
  return rows.slice(0, top);
}

/**
 * Compares two reports (report.json content, or a baseline written by `coldstart check`).
 * @param {object} before
 * @param {object} after
 * @param {{ top?: number, minMs?: number }} [options] top: rows per movers list (default 10);
 *   minMs: smaller changes are noise and left out of the movers (default 0.5)
 * @returns {{ readyAt, modules, packages, files, bytes: {before, after, delta, pct},
 *   categories: object|null, packagesAdded: object[], packagesRemoved: object[],
 *   modulesAdded: number, modulesRemoved: number, packageMovers: object[], moduleMovers: object[] }}
 */
function diffReports(before, after, { top = 10, minMs = 0.5 } = {}) {
  const beforePackages = new Map(before.packages.map((p) => [p.name, p]));
  const afterPackages = new Map(after.packages.map((p) => [p.name, p]));
  const brief = (p) => ({ name: p.name, modules: p.modules, selfMs: p.selfMs, loadMs: p.loadMs });
  const beforeFiles = new Set(before.modules.map((m) => m.file));
  const afterFiles = new Set(after.modules.map((m) => m.file));
  let categories = null;
  if (before.categories && after.categories) {
    categories = {};
    for (const k of CATEGORIES) {
      if (before.categories[k] != null || after.categories[k] != null) {
        categories[k] = change(before.categories[k] || 0, after.categories[k] || 0);
      }
    }
  }
  return {
    readyAt: change(before.readyAt, after.readyAt),
    modules: change(before.modules.length, after.modules.length),
    packages: change(before.packages.length, after.packages.length),
    files: change(before.files, after.files),
    bytes: change(before.bytes, after.bytes),
    categories,
    packagesAdded: after.packages.filter((p) => !beforePackages.has(p.name)).map(brief),
    packagesRemoved: before.packages.filter((p) => !afterPackages.has(p.name)).map(brief),
    modulesAdded: [...afterFiles].filter((f) => !beforeFiles.has(f)).length,
    modulesRemoved: [...beforeFiles].filter((f) => !afterFiles.has(f)).length,
    // Own (self) time: it partitions startup, so a mover points at the code that changed
    // rather than at every module above it.
    packageMovers: movers(before.packages, after.packages, 'name', 'selfMs', { top, minMs }),
    moduleMovers: movers(before.modules, after.modules, 'file', 'selfMs', { top, minMs }),
  };
}

// ---- terminal rendering -------------------------------------------------------------------

const fmtMs = (n) => (n == null ? '–' : ms(n));
const fmtBytes = (n) => (n == null ? '–' : size(n));
// Sign in front of the magnitude: '+1.2 kB', '-30 ms'.
const signed = (n, fmt) => (n == null ? '–' : n > 0 ? `+${fmt(n)}` : n < 0 ? `-${fmt(-n)}` : '±0');
const fmtCount = (n) => (n == null ? '–' : String(n));
// Module paths in a diff get a little less room: four columns share the line.
const shortFile = (file) => shorten(file, 56);

/**
 * The terminal form of a diff.
 * @param {object} diff from diffReports
 * @param {{ color?: boolean, before?: string, after?: string, title?: string }} [opts] labels of the
 *   two sides (file names), a title line
 * @returns {string}
 */
function renderDiff(diff, opts = {}) {
  const c = palette(opts.color);
  // Growth is red, shrinkage green: for startup, less is better.
  const tone = (delta) => (delta > 0 ? c.red : delta < 0 ? c.green : (s) => s);
  const pct = (x) => (x.pct == null ? '' : ` (${x.pct > 0 ? '+' : ''}${x.pct.toFixed(1)}%)`);
  const lines = [];
  if (opts.title !== '') lines.push(c.bold(opts.title || `coldstart diff: ${opts.before || 'before'} -> ${opts.after || 'after'}`));

  const headRows = [
    ['', 'before', 'after', 'change'],
    ['time to ready', fmtMs(diff.readyAt.before), fmtMs(diff.readyAt.after), signed(diff.readyAt.delta, fmtMs) + pct(diff.readyAt)],
    ['modules', fmtCount(diff.modules.before), fmtCount(diff.modules.after), signed(diff.modules.delta, String)],
    ['packages', fmtCount(diff.packages.before), fmtCount(diff.packages.after), signed(diff.packages.delta, String)],
    ['files read', fmtCount(diff.files.before), fmtCount(diff.files.after), signed(diff.files.delta, String)],
    ['bytes read', fmtBytes(diff.bytes.before), fmtBytes(diff.bytes.after), signed(diff.bytes.delta, fmtBytes)],
  ];
  const deltas = [null, diff.readyAt.delta, diff.modules.delta, diff.packages.delta, diff.files.delta, diff.bytes.delta];
  lines.push(table(headRows, ['l', 'r', 'r', 'r'], (y, i) => (y === 0 ? c.dim : i === 3 ? tone(deltas[y]) : (s) => s)));

  if (diff.categories) {
    const parts = Object.entries(diff.categories)
      .filter(([, x]) => x.delta != null && Math.abs(x.delta) >= 0.05)
      .map(([k, x]) => `${k} ${tone(x.delta)(signed(x.delta, fmtMs))}`);
    if (parts.length) lines.push('', c.bold('By category') + c.dim(' (CPU profile)'), '  ' + parts.join('  ·  '));
  }

  if (diff.packagesAdded.length) {
    lines.push('', c.bold(`New at startup (${count(diff.packagesAdded.length, 'package')})`));
    lines.push(table(diff.packagesAdded.map((p) => ['+ ' + p.name, count(p.modules, 'module'), `own ${fmtMs(p.selfMs)}`, `load ${fmtMs(p.loadMs)}`]),
      ['l', 'r', 'r', 'r']));
  }
  if (diff.packagesRemoved.length) {
    lines.push('', c.bold(`No longer loaded (${count(diff.packagesRemoved.length, 'package')})`));
    lines.push(table(diff.packagesRemoved.map((p) => ['- ' + p.name, count(p.modules, 'module'), `own ${fmtMs(p.selfMs)}`, `load ${fmtMs(p.loadMs)}`]),
      ['l', 'r', 'r', 'r']));
  }

  const mark = (row) => (row.status === 'added' ? ' (new)' : row.status === 'removed' ? ' (gone)' : '');
  if (diff.packageMovers.length) {
    lines.push('', c.bold('Biggest movers: packages') + c.dim(' (own time)'));
    lines.push(table([['package', 'before', 'after', 'change'],
      ...diff.packageMovers.map((p) => [p.name + mark(p), fmtMs(p.before), fmtMs(p.after), signed(p.delta, fmtMs)])],
    ['l', 'r', 'r', 'r'], (y, i) => (y === 0 ? c.dim : i === 3 ? tone(diff.packageMovers[y - 1].delta) : (s) => s)));
  }
  if (diff.moduleMovers.length) {
    lines.push('', c.bold('Biggest movers: modules') + c.dim(' (self time)'));
    lines.push(table([['module', 'before', 'after', 'change'],
      ...diff.moduleMovers.map((m) => [shortFile(m.file) + mark(m), fmtMs(m.before), fmtMs(m.after), signed(m.delta, fmtMs)])],
    ['l', 'r', 'r', 'r'], (y, i) => (y === 0 ? c.dim : i === 3 ? tone(diff.moduleMovers[y - 1].delta) : (s) => s)));
  }
  if (diff.modulesAdded || diff.modulesRemoved) {
    lines.push('', c.dim(`  ${count(diff.modulesAdded, 'module')} new, ${diff.modulesRemoved} gone`));
  }
  return lines.join('\n') + '\n';
}

module.exports = { diffReports, renderDiff };
