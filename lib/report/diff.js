'use strict';
// Two report.json documents (or two sets of runs) compared: the headline figures, the packages that
// appear or vanish at startup, and what moved beyond noise. Pure: reports in, plain data or a
// string out.
//
// Noise. Two sets of runs are compared with compareSamples (lib/stats.js): the shift is the median
// of the pairwise differences, and a change is real only when its whole interval is on one side of
// 0. A single report has no spread of its own, so two single reports are judged against the spread
// measured between runs of one unchanged app (the express fixture, 14 runs on a 2-core machine
// under a load average of 1 to 4): time to ready varied by up to 21% (37% seen under heavier
// load); a package's or module's own time by up to 4.5 ms in 99 of 100 pairs at a load of 1, and
// by up to 20 ms -- 7% of that run's time to ready -- at a load of 4, when the process was held off
// the CPU, or a garbage collection ran, while one module loaded. A change within that band is noise.
const { ms, size, palette, table, shorten, count } = require('./terminal.js');
const { compareSamples, median, formatComparison, formatSignedMs, formatMs } = require('../stats.js');
const { runSamples } = require('./run-samples.js');
const { CATEGORIES } = require('../analyze/cpuprofile-categories.js');
const { moduleCount } = require('../analyze/startup-report.js');

/** The noise band of single runs: a change within it is not told apart from run-to-run spread. */
const SINGLE_RUN_NOISE = Object.freeze({
  readyAtShare: 0.3, // of the larger time to ready
  // A module's, package's or category's own time, whichever is most of: this many ms, this share
  // of the larger time to ready (a busier run is held off the CPU longer), this share of the
  // larger value.
  itemMs: 15,
  itemReadyAtShare: 0.1,
  itemShare: 0.5,
});

// Among hundreds of modules, some move beyond noise by chance (about 3 in 100 at 95%): a mover
// must also have moved by at least this much to be listed.
const LEAST_MOVE = Object.freeze({ ms: 1, share: 0.1 });

const round = (n) => (n == null ? null : Math.round(n * 100) / 100);

function change(before, after) {
  const b = Number.isFinite(before) ? before : null;
  const a = Number.isFinite(after) ? after : null;
  const delta = b != null && a != null ? round(a - b) : null;
  const pct = delta != null && b > 0 ? round((100 * delta) / b) : null;
  return { before: b, after: a, delta, pct };
}

const itemBand = (b, a, readyAt) => round(Math.max(SINGLE_RUN_NOISE.itemMs, SINGLE_RUN_NOISE.itemReadyAtShare * readyAt,
  SINGLE_RUN_NOISE.itemShare * Math.max(b, a)));

/** A change of two single values, judged against a band. */
function singleChange(before, after, band) {
  const c = change(before, after);
  const verdict = c.delta == null ? 'noise' : Math.abs(c.delta) <= band ? 'noise' : c.delta > 0 ? 'slower' : 'faster';
  return { ...c, band, verdict };
}

/** A change of two sets of samples: medians, the shift with its interval, the verdict. */
function runsChange(before, after, confidence) {
  const cmp = compareSamples(before, after, { confidence });
  const c = change(round(median(before)), round(median(after)));
  return {
    ...c, delta: round(cmp.shift), pct: c.before > 0 && cmp.shift != null ? round((100 * cmp.shift) / c.before) : null,
    low: round(cmp.low), high: round(cmp.high), confidence: cmp.confidence, verdict: cmp.verdict,
  };
}

const zeros = (n) => new Array(n).fill(0);

/**
 * Movers beyond noise of one figure, a row per key present in either side, largest change first.
 * @param {Object<string, number|number[]>} before by key: a value (single runs) or samples (runs)
 * @param {Object<string, number|number[]>} after
 */
function movers(before, after, key, { top, judge, packageOf }) {
  const rows = [];
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const has = (side) => Object.prototype.hasOwnProperty.call(side, name);
    const c = judge(has(before) ? before[name] : null, has(after) ? after[name] : null);
    if (c.verdict !== 'slower' && c.verdict !== 'faster') continue;
    if (Math.abs(c.delta) < Math.max(LEAST_MOVE.ms, LEAST_MOVE.share * Math.max(c.before, c.after))) continue;
    rows.push({
      [key]: name,
      ...(packageOf ? { package: packageOf(name) } : {}),
      status: !has(before) ? 'added' : !has(after) ? 'removed' : 'changed',
      ...c,
      before: has(before) ? c.before : null,
      after: has(after) ? c.after : null,
    });
  }
  rows.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || String(x[key]).localeCompare(String(y[key])));
  return rows.slice(0, top);
}

const selfMsOf = (list, key) => Object.fromEntries(list.map((x) => [x[key], Number(x.selfMs) || 0]));

/**
 * Compares two reports (report.json content, or a baseline written by `coldstart check`). Without
 * samples, the two are single runs and a change within the single-run noise band is noise; with
 * samples of several runs a side (run-samples.js), every time is compared with compareSamples.
 * Counts (modules, packages, files, bytes) are exact and compared as they are.
 * @param {object} before
 * @param {object} after
 * @param {{ top?: number, confidence?: number, samples?: { before: object, after: object } }} [options]
 *   top: rows per movers list (default 10); confidence of the intervals (default 0.95);
 *   samples: runSamples() of each side (their readyAt may be other runs than the reports')
 * @returns {{ method: 'single'|'runs', runs: {before: number, after: number}, readyAt: object,
 *   modules, packages, files, bytes: {before, after, delta, pct}, categories: object|null,
 *   packagesAdded: object[], packagesRemoved: object[], modulesAdded: number, modulesRemoved: number,
 *   packageMovers: object[], moduleMovers: object[] }} every time change has a verdict ('slower',
 *   'faster', 'noise' or 'too few runs'); single runs give its band, runs its interval (low, high)
 */
function diffReports(before, after, { top = 10, confidence = 0.95, samples = null } = {}) {
  const beforePackages = new Map(before.packages.map((p) => [p.name, p]));
  const afterPackages = new Map(after.packages.map((p) => [p.name, p]));
  const brief = (p) => ({ name: p.name, modules: p.modules, selfMs: p.selfMs, loadMs: p.loadMs });
  const beforeFiles = new Set(before.modules.map((m) => m.file));
  const afterFiles = new Set(after.modules.map((m) => m.file));
  const packages = new Map([...before.modules, ...after.modules].map((m) => [m.file, m.package]));
  const packageOf = (file) => packages.get(file) ?? null;

  let readyAt;
  let categories = null;
  let judge;
  let times;
  if (samples) {
    const sides = [samples.before.readyAt.length, samples.after.readyAt.length];
    judge = (b, a) => runsChange(b || zeros(sides[0]), a || zeros(sides[1]), confidence);
    readyAt = runsChange(samples.before.readyAt, samples.after.readyAt, confidence);
    times = (side, kind) => samples[side][kind];
    if (samples.before.categoryMs && samples.after.categoryMs) categories = compareCategories(samples.before.categoryMs, samples.after.categoryMs, judge);
  } else {
    const largerReadyAt = Math.max(before.readyAt, after.readyAt);
    judge = (b, a) => singleChange(b || 0, a || 0, itemBand(b || 0, a || 0, largerReadyAt));
    readyAt = singleChange(before.readyAt, after.readyAt, round(SINGLE_RUN_NOISE.readyAtShare * largerReadyAt));
    const lists = { before, after };
    times = (side, kind) => (kind === 'moduleSelfMs' ? selfMsOf(lists[side].modules, 'file') : selfMsOf(lists[side].packages, 'name'));
    if (before.categories && after.categories) categories = compareCategories(before.categories, after.categories, judge);
  }
  return {
    method: samples ? 'runs' : 'single',
    runs: samples ? { before: samples.before.readyAt.length, after: samples.after.readyAt.length } : { before: 1, after: 1 },
    readyAt,
    modules: change(moduleCount(before), moduleCount(after)),
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
    packageMovers: movers(times('before', 'packageSelfMs'), times('after', 'packageSelfMs'), 'name', { top, judge }),
    moduleMovers: movers(times('before', 'moduleSelfMs'), times('after', 'moduleSelfMs'), 'file', { top, judge, packageOf }),
    // A host profile against one taken in a container (profile --docker), or runc against runsc.
    places: { before: placeOf(before), after: placeOf(after) },
    sideBySide: placeOf(before) !== placeOf(after) ? packagesSideBySide(before, after, Math.max(top, 15)) : null,
  };
}

/** Where a report was taken: 'host', or the container runtime and image. */
function placeOf(report) {
  return report.container ? `${report.container.runtime} (${report.container.image})` : 'host';
}

/**
 * Each package in both reports, its own time in each place and the factor between them, the
 * largest growth first: a package of many small files that a sandbox punishes (every require is
 * several file system calls) stands out from one that is CPU-bound (a factor near the CPU's).
 */
function packagesSideBySide(before, after, n) {
  const own = (p) => round((p.selfMs || 0) + (p.gcMs || 0));
  const afterByName = new Map(after.packages.map((p) => [p.name, p]));
  return before.packages.filter((p) => afterByName.has(p.name)).map((p) => {
    const q = afterByName.get(p.name);
    return {
      name: p.name, modules: q.modules, before: own(p), after: own(q),
      ratio: own(p) > 0 ? round(own(q) / own(p)) : null,
      msPerModule: { before: p.modules ? round(own(p) / p.modules) : null, after: q.modules ? round(own(q) / q.modules) : null },
    };
  }).sort((a, b) => (b.after - b.before) - (a.after - a.before)).slice(0, n);
}

function compareCategories(before, after, judge) {
  const out = {};
  for (const k of CATEGORIES) {
    if (before[k] != null || after[k] != null) out[k] = judge(before[k] ?? null, after[k] ?? null);
  }
  return out;
}

/**
 * Two sets of runs of an app compared, each run a report.json.
 * @param {object[]} beforeReports
 * @param {object[]} afterReports
 * @param {{ top?: number, confidence?: number }} [options]
 */
function diffRuns(beforeReports, afterReports, options = {}) {
  const samples = { before: runSamples(beforeReports), after: runSamples(afterReports) };
  return diffReports(beforeReports[0], afterReports[0], { ...options, samples });
}

// ---- terminal rendering -------------------------------------------------------------------

const fmtMs = (n) => (n == null ? '–' : ms(n));
const fmtBytes = (n) => (n == null ? '–' : size(n));
// Sign in front of the magnitude: '+1.2 kB', '-30 ms'.
const signed = (n, fmt) => (n == null ? '–' : n > 0 ? `+${fmt(n)}` : n < 0 ? `-${fmt(-n)}` : '±0');
const fmtCount = (n) => (n == null ? '–' : String(n));
// Module paths in a diff get a little less room: four columns share the line.
const shortFile = (file) => shorten(file, 56);
const intervalText = (x) => (x.low == null ? '' : `[${formatSignedMs(x.low)} … ${formatSignedMs(x.high)}]`);

/** The verdict on time to ready in words. */
function readyVerdict(diff) {
  const r = diff.readyAt;
  if (diff.method === 'runs') {
    return formatComparison({
      before: { n: diff.runs.before }, after: { n: diff.runs.after }, verdict: r.verdict, shift: r.delta, low: r.low, high: r.high,
      confidence: r.confidence, ratio: r.before > 0 && r.after != null ? r.after / r.before : null,
    });
  }
  return r.verdict === 'noise'
    ? `within the spread of single runs (±${formatMs(r.band)} ms)`
    : `${r.verdict}, beyond the spread of single runs (±${formatMs(r.band)} ms)`;
}

/** How the changes were judged, and how to get a statistical answer from single runs. */
function noiseNote(diff) {
  if (diff.method === 'runs') {
    return `Compared ${diff.runs.before} runs with ${diff.runs.after}: a change is the median of the pairwise differences ` +
      `with its interval (Mann-Whitney); one whose interval includes 0 is noise, and movers under ${LEAST_MOVE.ms} ms or ` +
      `${LEAST_MOVE.share * 100}% are left out.`;
  }
  return `Single runs compared: a change within their run-to-run spread (${SINGLE_RUN_NOISE.readyAtShare * 100}% of time to ready; ` +
    `for a package's or module's own time ${SINGLE_RUN_NOISE.itemMs} ms, ${SINGLE_RUN_NOISE.itemReadyAtShare * 100}% of time to ready ` +
    `or ${SINGLE_RUN_NOISE.itemShare * 100}% of its value, whichever is most) is noise. ` +
    'For a statistical answer, profile each side several times and compare the runs: ' +
    'coldstart diff --runs a1.json a2.json a3.json a4.json -- b1.json b2.json b3.json b4.json';
}

/**
 * The terminal form of a diff.
 * @param {object} diff from diffReports
 * @param {{ color?: boolean, before?: string, after?: string, title?: string }} [opts] labels of the
 *   two sides (file names), a title line
 * @returns {string}
 */
function renderDiff(diff, opts = {}) {
  const c = palette(opts.color);
  // Growth is red, shrinkage green: for startup, less is better. Noise is neither.
  const tone = (delta, verdict) => (verdict === 'noise' || verdict === 'too few runs' ? c.dim : delta > 0 ? c.red : delta < 0 ? c.green : (s) => s);
  const pct = (x) => (x.pct == null ? '' : ` (${x.pct > 0 ? '+' : ''}${x.pct.toFixed(1)}%)`);
  const runs = diff.method === 'runs';
  const lines = [];
  if (opts.title !== '') lines.push(c.bold(opts.title || `coldstart diff: ${opts.before || 'before'} -> ${opts.after || 'after'}`));

  const headRows = [
    ['', runs ? 'before (median)' : 'before', runs ? 'after (median)' : 'after', 'change'],
    ['time to ready', fmtMs(diff.readyAt.before), fmtMs(diff.readyAt.after), signed(diff.readyAt.delta, fmtMs) + pct(diff.readyAt)],
    ['modules', fmtCount(diff.modules.before), fmtCount(diff.modules.after), signed(diff.modules.delta, String)],
    ['packages', fmtCount(diff.packages.before), fmtCount(diff.packages.after), signed(diff.packages.delta, String)],
    ['files read', fmtCount(diff.files.before), fmtCount(diff.files.after), signed(diff.files.delta, String)],
    ['bytes read', fmtBytes(diff.bytes.before), fmtBytes(diff.bytes.after), signed(diff.bytes.delta, fmtBytes)],
  ];
  const deltas = [null, diff.readyAt.delta, diff.modules.delta, diff.packages.delta, diff.files.delta, diff.bytes.delta];
  lines.push(table(headRows, ['l', 'r', 'r', 'r'], (y, i) => (y === 0 ? c.dim : i === 3 ? tone(deltas[y], y === 1 ? diff.readyAt.verdict : null) : (s) => s)));
  lines.push(`  time to ready: ${tone(diff.readyAt.delta, diff.readyAt.verdict)(readyVerdict(diff))}`);

  if (diff.categories) {
    const parts = Object.entries(diff.categories)
      .filter(([, x]) => x.verdict === 'slower' || x.verdict === 'faster')
      .map(([k, x]) => `${k} ${tone(x.delta)(signed(x.delta, fmtMs))}`);
    if (parts.length) lines.push('', c.bold('By category') + c.dim(' (CPU profile, beyond noise)'), '  ' + parts.join('  ·  '));
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
  const moverTable = (heading, key, rows, label) => {
    lines.push('', c.bold(`Biggest movers: ${heading}`) + c.dim(` (${key === 'name' ? 'own' : 'self'} time, beyond noise)`));
    const head = [key === 'name' ? 'package' : 'module', 'before', 'after', 'change', ...(runs ? ['interval'] : [])];
    const body = rows.map((r) => [label(r) + mark(r), fmtMs(r.before), fmtMs(r.after), signed(r.delta, fmtMs), ...(runs ? [intervalText(r)] : [])]);
    lines.push(table([head, ...body], ['l', 'r', 'r', 'r', 'r'], (y, i) => (y === 0 ? c.dim : i === 3 ? tone(rows[y - 1].delta) : (s) => s)));
  };
  if (diff.sideBySide && diff.sideBySide.length) {
    const { before, after } = diff.places;
    lines.push('', c.bold(`By package: ${before} and ${after}`) + c.dim(' (own time; the largest growth first; modules: files the package loaded)'));
    lines.push(table([['package', 'modules', before.split(' ')[0], after.split(' ')[0], 'factor', 'per module'],
      ...diff.sideBySide.map((r) => [r.name, r.modules, fmtMs(r.before), fmtMs(r.after), r.ratio == null ? '–' : `×${r.ratio.toFixed(1)}`,
        `${fmtMs(r.msPerModule.before)} → ${fmtMs(r.msPerModule.after)}`])], ['l', 'r', 'r', 'r', 'r', 'r'], (y) => (y === 0 ? c.dim : (x) => x)));
  }
  if (diff.packageMovers.length) moverTable('packages', 'name', diff.packageMovers, (p) => p.name);
  if (diff.moduleMovers.length) moverTable('modules', 'file', diff.moduleMovers, (m) => shortFile(m.file));
  if (!diff.packageMovers.length && !diff.moduleMovers.length) lines.push('', c.dim('  No package or module moved beyond noise.'));
  if (diff.modulesAdded || diff.modulesRemoved) {
    lines.push('', c.dim(`  ${count(diff.modulesAdded, 'module')} new, ${diff.modulesRemoved} gone`));
  }
  lines.push('', c.dim(noiseNote(diff)));
  return lines.join('\n') + '\n';
}

module.exports = { diffReports, diffRuns, renderDiff, SINGLE_RUN_NOISE };
