'use strict';
// Two report.json documents (or two sets of runs) compared: the headline figures, the packages that
// appear or vanish at startup, and what moved beyond noise. Pure: reports in, plain data or a
// string out.
//
// Noise. Two sets of runs are compared with compareSamples (lib/stats.js): the shift is the median
// of the pairwise differences, and a change is real only when its whole interval is on one side of
// 0. Among hundreds of packages and modules some differ "at 95%" by chance, so a mover is listed
// only when the Benjamini-Hochberg procedure (false discovery rate 1%, on each list's exact
// Mann-Whitney p-values) selects it, with its interval drawn at the level that stays honest after
// that selection (Benjamini-Yekutieli); with too few runs a side none can be selected, and the
// diff says how many it would take. A single report has no spread of its own: two single reports
// are judged on time to ready only, against the spread measured between single runs of unchanged
// apps, less the time each run waited for a CPU where Linux reports it (a busy machine's queue);
// a package's or module's own time moved by a preemption or a collection in one run (measured:
// protobufjs 243 -> 67 ms between two runs of one unchanged app), so single runs list no movers.
const { ms, formatMs, size, palette, table, shorten, count } = require('./terminal-format.js');
const { compareSamples, median, formatComparison, formatSignedMs, mannWhitneyP, falseDiscoveries } = require('../stats.js');
const { runSamples } = require('./run-samples.js');
const { CATEGORIES } = require('../analyze/cpuprofile-categories.js');
const { moduleCount } = require('../analyze/startup-report.js');

/**
 * The spread of single runs of one unchanged app: time to ready (less the wait for a CPU) moved by
 * up to this share of the larger of two runs in 95% of pairs (BENCHMARKS.md, "diff of unchanged
 * runs"); a change within it is noise.
 */
const SINGLE_RUN_NOISE = Object.freeze({ readyAtShare: 0.3 });

/**
 * The false discovery rate of the movers: when nothing changed, the chance that a diff lists any
 * mover at all. At 5% an unchanged app checked 18 times listed six false movers once (BENCHMARKS.md).
 */
const MOVER_FDR = 0.01;
/** A mover smaller than this is real but says nothing to act on: not listed. */
const LEAST_MOVE_MS = 1;

const round = (n) => (n == null ? null : Math.round(n * 100) / 100);

function change(before, after) {
  const b = Number.isFinite(before) ? before : null;
  const a = Number.isFinite(after) ? after : null;
  const delta = b != null && a != null ? round(a - b) : null;
  const pct = delta != null && b > 0 ? round((100 * delta) / b) : null;
  return { before: b, after: a, delta, pct };
}

/** A change of two single values, judged against a band. */
function singleChange(before, after, band) {
  const c = change(before, after);
  const verdict = c.delta == null ? 'noise' : Math.abs(c.delta) <= band ? 'noise' : c.delta > 0 ? 'slower' : 'faster';
  return { ...c, band, verdict };
}

/**
 * A change of two sets of samples: the medians and their difference (the figures shown side by
 * side), the shift (median of the pairwise differences) with its interval, the verdict.
 */
function runsChange(before, after, confidence) {
  const cmp = compareSamples(before, after, { confidence });
  return {
    ...change(median(before), median(after)),
    shift: round(cmp.shift), low: round(cmp.low), high: round(cmp.high), confidence: cmp.confidence, verdict: cmp.verdict,
  };
}

/**
 * Time to ready of a single report as compared: less the time it waited for a CPU, when both
 * reports know it (Linux schedstat), so that a busier run is not called slower for the wait.
 */
function singleReadyAt(before, after) {
  const wait = (r) => r.machine && Number.isFinite(r.machine.runQueueMs) ? r.machine.runQueueMs : null;
  if (wait(before) == null || wait(after) == null) return { before: before.readyAt, after: after.readyAt, lessCpuWait: false };
  return { before: round(before.readyAt - wait(before)), after: round(after.readyAt - wait(after)), lessCpuWait: true };
}

const zeros = (n) => new Array(n).fill(0);

/**
 * Movers beyond noise of one figure across runs: a row per key present in either side that the
 * Benjamini-Hochberg procedure selects, largest change first, each with its interval at the
 * selection-adjusted level. A key a run did not load counts 0 ms there.
 * @param {Object<string, number[]>} before samples by key
 * @param {Object<string, number[]>} after
 * @returns {{ rows: object[], compared: number }} compared: how many keys were tested
 */
function movers(before, after, key, { top, sides, packageOf }) {
  const has = (side, name) => Object.prototype.hasOwnProperty.call(side, name);
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const samplesOf = (side, name, n) => (has(side, name) ? side[name] : zeros(n));
  const pValues = names.map((name) => mannWhitneyP(samplesOf(before, name, sides[0]), samplesOf(after, name, sides[1])));
  const { selected, confidence } = falseDiscoveries(pValues, MOVER_FDR);
  const rows = [];
  names.forEach((name, i) => {
    if (!selected[i]) return;
    const c = runsChange(samplesOf(before, name, sides[0]), samplesOf(after, name, sides[1]), confidence);
    if (c.verdict !== 'slower' && c.verdict !== 'faster') return;
    if (Math.abs(c.shift) < LEAST_MOVE_MS) return;
    rows.push({
      [key]: name,
      ...(packageOf ? { package: packageOf(name) } : {}),
      status: !has(before, name) ? 'added' : !has(after, name) ? 'removed' : 'changed',
      ...c,
      before: has(before, name) ? c.before : null,
      after: has(after, name) ? c.after : null,
      p: pValues[i],
    });
  });
  rows.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || String(x[key]).localeCompare(String(y[key])));
  return { rows: rows.slice(0, top), compared: names.length };
}

/** The runs a side it would take before any of `compared` items could be selected at MOVER_FDR. */
function runsToSelectAmong(compared) {
  for (let n = 2; n <= 50; n++) if (mannWhitneyP(zeros(n), new Array(n).fill(1)) <= MOVER_FDR / Math.max(compared, 1)) return n;
  return null;
}

/**
 * Compares two reports (report.json content, or a baseline written by `coldstart check`). Without
 * samples, the two are single runs: time to ready within the single-run spread is noise, and no
 * package or module time is judged; with samples of several runs a side (run-samples.js), every
 * time is compared with compareSamples and the movers are selected as the header says.
 * Counts (modules, packages, files, bytes) are exact and compared as they are.
 * @param {object} before
 * @param {object} after
 * @param {{ top?: number, confidence?: number, samples?: { before: object, after: object } }} [options]
 *   top: rows per movers list (default 10); confidence of the intervals (default 0.95);
 *   samples: runSamples() of each side (their readyAt may be other runs than the reports')
 * @returns {{ method: 'single'|'runs', runs: {before: number, after: number}, readyAt: object,
 *   modules, packages, files, bytes: {before, after, delta, pct}, categories: object|null,
 *   packagesAdded: object[], packagesRemoved: object[], modulesAdded: number, modulesRemoved: number,
 *   packageMovers: object[], moduleMovers: object[], movers: ?{ compared: { packages: number, modules: number },
 *   runsNeeded: ?number, correction: string } }} every time change has a verdict ('slower', 'faster',
 *   'noise' or 'too few runs'); single runs give its band, runs its interval (low, high); before/after
 *   are the medians shown and delta their difference
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
  let packageMovers = [];
  let moduleMovers = [];
  let moverNote = null;
  if (samples) {
    const sides = [samples.before.readyAt.length, samples.after.readyAt.length];
    readyAt = runsChange(samples.before.readyAt, samples.after.readyAt, confidence);
    // Own (self) time: it partitions startup, so a mover points at the code that changed
    // rather than at every module above it.
    const byPackage = movers(samples.before.packageSelfMs, samples.after.packageSelfMs, 'name', { top, sides });
    const byModule = movers(samples.before.moduleSelfMs, samples.after.moduleSelfMs, 'file', { top, sides, packageOf });
    packageMovers = byPackage.rows;
    moduleMovers = byModule.rows;
    const fewest = runsToSelectAmong(byPackage.compared);
    moverNote = {
      compared: { packages: byPackage.compared, modules: byModule.compared },
      runsNeeded: fewest != null && Math.min(...sides) < fewest ? fewest : null,
      correction: `Benjamini-Hochberg, false discovery rate ${MOVER_FDR * 100}%`,
    };
    if (samples.before.categoryMs && samples.after.categoryMs) {
      const moved = movers(samples.before.categoryMs, samples.after.categoryMs, 'category', { top: CATEGORIES.length, sides }).rows;
      categories = Object.fromEntries(moved.map((row) => [row.category, row]));
    }
  } else {
    // Shown as measured; judged less each run's wait for a CPU where both know it. Where they do
    // not (no schedstat: gVisor, another OS), not at all when either run's machine was busy (a
    // single run there moves by half or more).
    const judged = singleReadyAt(before, after);
    const band = round(SINGLE_RUN_NOISE.readyAtShare * Math.max(judged.before, judged.after));
    const busy = judged.lessCpuWait ? [] : [['before', before], ['after', after]].filter(([, r]) => r.machine && r.machine.busy).map(([side]) => side);
    const verdict = busy.length ? 'cannot tell' : singleChange(judged.before, judged.after, band).verdict;
    readyAt = { ...change(before.readyAt, after.readyAt), band, verdict, judged, busy };
  }
  return {
    method: samples ? 'runs' : 'single',
    runs: samples ? { before: samples.before.readyAt.length, after: samples.after.readyAt.length } : { before: 1, after: 1 },
    readyAt,
    modules: change(moduleCount(before), moduleCount(after)),
    packages: change(before.packages.length, after.packages.length),
    files: change(before.files, after.files),
    bytes: change(before.bytes, after.bytes),
    // Memory at the ready moment, each side's (the reported run's): null when a side has none.
    rss: before.memory && after.memory ? change(before.memory.rssBytes, after.memory.rssBytes) : null,
    heap: before.memory && after.memory ? change(before.memory.heapUsedBytes, after.memory.heapUsedBytes) : null,
    categories,
    packagesAdded: after.packages.filter((p) => !beforePackages.has(p.name)).map(brief),
    packagesRemoved: before.packages.filter((p) => !afterPackages.has(p.name)).map(brief),
    modulesAdded: [...afterFiles].filter((f) => !beforeFiles.has(f)).length,
    modulesRemoved: [...beforeFiles].filter((f) => !afterFiles.has(f)).length,
    packageMovers,
    moduleMovers,
    movers: moverNote,
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
      before: { n: diff.runs.before }, after: { n: diff.runs.after }, verdict: r.verdict, shift: r.shift, low: r.low, high: r.high,
      confidence: r.confidence, ratio: r.before > 0 && r.after != null ? r.after / r.before : null,
    });
  }
  if (r.verdict === 'cannot tell') {
    return `cannot tell from single runs: the machine was busy during the ${r.busy.length === 2 ? 'runs' : `${r.busy[0]} run`} ` +
      '(10% or more of its startup waiting for a CPU, report.machine); compare sets of runs (coldstart diff a1.json ... -- b1.json ...)';
  }
  const band = `±${formatMs(r.band)} ms`;
  const judged = r.judged.lessCpuWait ? `; less each run's wait for a CPU: ${fmtMs(r.judged.before)} and ${fmtMs(r.judged.after)}` : '';
  return r.verdict === 'noise'
    ? `no change beyond the spread of single runs (${band}${judged})`
    : `${r.verdict}, beyond the spread of single runs (${band}${judged})`;
}

/** How the changes were judged, and how to get a statistical answer from single runs. */
function noiseNote(diff) {
  if (diff.method === 'runs') {
    const m = diff.movers;
    const more = m && m.runsNeeded ? ` With ${diff.runs.before} and ${diff.runs.after} runs none of ${m.compared.packages} packages ` +
      `can be told apart; that takes ${m.runsNeeded} runs a side or more.` : '';
    return `Compared ${diff.runs.before} runs with ${diff.runs.after}: a change is the median of the pairwise differences ` +
      `with its interval (Mann-Whitney); one whose interval includes 0 is noise. Movers are selected among all packages ` +
      `(and all modules) compared, ${m ? m.correction : 'Benjamini-Hochberg'}, their intervals adjusted for the selection.${more}`;
  }
  return `Single runs compared: time to ready within their run-to-run spread (${SINGLE_RUN_NOISE.readyAtShare * 100}% of the larger) ` +
    'is noise; one run of each side cannot tell a package\'s or module\'s own time from noise. For that, profile each side ' +
    'several times and compare the runs: coldstart diff a1.json ... a6.json -- b1.json ... b6.json';
}

/**
 * The terminal form of a diff.
 * @param {object} diff from diffReports
 * @param {{ color?: boolean, before?: string, after?: string, title?: string, readyVerdict?: boolean }} [opts]
 *   labels of the two sides (file names), a title line; readyVerdict false leaves out the verdict
 *   line on time to ready
 * @returns {string}
 */
function renderDiff(diff, opts = {}) {
  const c = palette(opts.color);
  // Growth is red, shrinkage green: for startup, less is better. Noise is neither.
  const tone = (delta, verdict) => (verdict === 'noise' || verdict === 'too few runs' || verdict === 'cannot tell' ? c.dim : delta > 0 ? c.red : delta < 0 ? c.green : (s) => s);
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
    ...[['resident at ready', diff.rss], ['heap at ready', diff.heap]].filter(([, x]) => x)
      .map(([label, x]) => [label, fmtBytes(x.before), fmtBytes(x.after), signed(x.delta, fmtBytes)]),
  ];
  const deltas = [null, diff.readyAt.delta, diff.modules.delta, diff.packages.delta, diff.files.delta, diff.bytes.delta,
    ...[diff.rss, diff.heap].filter(Boolean).map((x) => x.delta)];
  lines.push(table(headRows, ['l', 'r', 'r', 'r'], (y, i) => (y === 0 ? c.dim : i === 3 ? tone(deltas[y], y === 1 ? diff.readyAt.verdict : null) : (s) => s)));
  // check prints its own verdict on time to ready (over the control app): not a second one here.
  if (opts.readyVerdict !== false) lines.push(`  time to ready: ${tone(diff.readyAt.delta, diff.readyAt.verdict)(readyVerdict(diff))}`);

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
  if (runs && !diff.packageMovers.length && !diff.moduleMovers.length) lines.push('', c.dim('  No package or module moved beyond noise.'));
  if (diff.modulesAdded || diff.modulesRemoved) {
    lines.push('', c.dim(`  ${count(diff.modulesAdded, 'module')} new, ${diff.modulesRemoved} gone`));
  }
  lines.push('', c.dim(noiseNote(diff)));
  return lines.join('\n') + '\n';
}

module.exports = { diffReports, diffRuns, renderDiff, SINGLE_RUN_NOISE };
