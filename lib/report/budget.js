'use strict';
// The limits `coldstart check` enforces: an absolute budget for time to ready, a most modules
// count, and a saved baseline with an allowed regression. Time is judged by an interval, never by
// one figure: a limit fails only when the whole interval is beyond it, passes when the whole
// interval is within it, and is undecided when the interval straddles it. Pure: samples in,
// verdicts out.
const { UsageError } = require('../errors.js');
const { parseDuration } = require('../options.js');
const { medianInterval, runsForMedianInterval, compareSamples, median, formatMs, formatSignedMs, formatMedianInterval } = require('../stats.js');
const { floorAdjusted } = require('./machine-floor.js');

// Without --tolerance: 10% of the baseline's median, and never less than 10 ms. Below that a busy
// machine alone moves a small app's start (measured: a 33 ms app, one core busy, +7.9 ms
// [4.3 … 11.8] over its idle baseline while the bare Node floor did not move).
const DEFAULT_TOLERANCE = { percent: 10, atLeastMs: 10 };

/**
 * --tolerance: '10%' (of the baseline's median) or a duration such as '25ms' (absolute); not
 * given: DEFAULT_TOLERANCE.
 * @param {string|number|undefined} value
 * @returns {{ percent: number, atLeastMs?: number } | { ms: number }}
 */
function parseTolerance(value) {
  if (value === undefined) return DEFAULT_TOLERANCE;
  const text = String(value).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (pct) return { percent: Number(pct[1]) };
  if (/^0+(?:\.0+)?(ms|s)?$/.test(text)) return { ms: 0 };
  if (/^\d+(?:\.\d+)?(ms|s|m)$/.test(text)) return { ms: parseDuration(text, '--tolerance') };
  throw new UsageError(`invalid --tolerance "${value}": use a percentage such as 10% or a duration such as 25ms`);
}

/**
 * Where an interval stands against an upper limit: 'fail' when all of it is above the limit,
 * 'pass' when all of it is at or below, 'undecided' when the limit falls inside it or there is no
 * interval (too few runs).
 * @param {?number} low
 * @param {?number} high
 * @param {number} limit
 * @returns {'pass'|'fail'|'undecided'}
 */
function intervalVerdict(low, high, limit) {
  if (low == null || high == null) return 'undecided';
  if (low > limit) return 'fail';
  if (high <= limit) return 'pass';
  return 'undecided';
}

const round = (n) => (n == null ? null : Math.round(n * 100) / 100);
const pct = (c) => `${Math.floor(c * 100)}%`;
const interval = (low, high) => `[${formatSignedMs(low)} … ${formatSignedMs(high)} ms]`;
const describeTolerance = (t, allowed, baseMedian) => {
  if (!('percent' in t)) return `${formatMs(allowed)} ms (--tolerance)`;
  const atLeast = t.atLeastMs ? `, at least ${t.atLeastMs} ms` : '';
  return `${formatMs(allowed)} ms (--tolerance ${t.percent}% of the baseline's ${formatMs(baseMedian)} ms${atLeast})`;
};
/** The regression a tolerance allows over a baseline of this median, in ms. */
const allowedMs = (t, baseMedian) => ('percent' in t ? Math.max((baseMedian * t.percent) / 100, t.atLeastMs || 0) : t.ms);

/** More runs to narrow an interval: twice as many, at least 10 (a 95% interval needs 6). */
const moreRuns = (n) => Math.max(10, 2 * n);

function budgetCheck(samples, budgetMs, confidence) {
  const mi = medianInterval(samples, confidence);
  const shown = mi.low == null ? `${formatMs(mi.median)} ms (1 run, no interval)` : `${formatMedianInterval(mi)} (${pct(mi.confidence)} interval)`;
  // Below the runs a `confidence` interval needs, even min to max does not reach it: too few runs
  // decide nothing, as a baseline of one run decides nothing.
  if (mi.confidence < confidence) {
    const needed = runsForMedianInterval(confidence);
    return {
      name: 'budget', ok: true, verdict: 'undecided', actual: round(mi.median), low: round(mi.low), high: round(mi.high),
      confidence: mi.confidence, limit: budgetMs,
      message: `time to ready ${shown} against the budget of ${formatMs(budgetMs)} ms: too few runs to decide (a ${pct(confidence)} interval needs ${needed}); run more (-n ${needed} or more)`,
    };
  }
  const verdict = intervalVerdict(mi.low, mi.high, budgetMs);
  const message = {
    pass: `time to ready ${shown} is within the budget of ${formatMs(budgetMs)} ms`,
    fail: `time to ready ${shown} is over the budget of ${formatMs(budgetMs)} ms (by ${formatMs(mi.low - budgetMs)} ms at least)`,
    undecided: `time to ready ${shown} straddles the budget of ${formatMs(budgetMs)} ms: the interval is too wide to decide; run more (-n ${moreRuns(mi.n)})`,
  }[verdict];
  return {
    name: 'budget', ok: verdict !== 'fail', verdict, actual: round(mi.median), low: round(mi.low), high: round(mi.high),
    confidence: mi.confidence, limit: budgetMs, message,
  };
}

/**
 * The shift from the baseline with its interval. Over the machine's floor, the two comparisons of
 * machine-floor.js are made and the interval covers both: a regression is called only when both
 * models see it, and a change is noise when either calls it noise.
 */
function baselineShift(floor, confidence) {
  const multiple = compareSamples(floor.before, floor.after, { confidence });
  if (!floor.above) return { ...multiple, models: null };
  const above = compareSamples(floor.above.before, floor.above.after, { confidence });
  const models = { multiple: brief(multiple), above: brief(above) };
  if (multiple.verdict === 'too few runs' || above.verdict === 'too few runs') return { ...multiple, verdict: 'too few runs', models };
  const low = Math.min(multiple.low, above.low);
  const high = Math.max(multiple.high, above.high);
  return {
    shift: Math.abs(multiple.shift) <= Math.abs(above.shift) ? multiple.shift : above.shift,
    low, high, confidence: Math.min(multiple.confidence, above.confidence),
    verdict: low > 0 ? 'slower' : high < 0 ? 'faster' : 'noise',
    models,
  };
}
const brief = (cmp) => ({ shift: round(cmp.shift), low: round(cmp.low), high: round(cmp.high), verdict: cmp.verdict });

function baselineCheck(measured, baseline, tolerance, confidence) {
  const baseMedian = median(baseline.samples);
  const allowed = round(allowedMs(tolerance, baseMedian));
  const floor = floorAdjusted(baseline, measured);
  const cmp = baselineShift(floor, confidence);
  const verdict = cmp.verdict === 'too few runs' ? 'undecided' : intervalVerdict(cmp.low, cmp.high, allowed);
  const against = baseline.alternated ? 'time to ready against the baseline command, run alternately'
    : floor.method === 'floor' ? 'time to ready over the machine\'s floor, against the baseline'
      : 'time to ready against the baseline';
  const figures = cmp.low == null ? '' : `${formatSignedMs(cmp.shift)} ms ${interval(cmp.low, cmp.high)}, ${pct(cmp.confidence)} interval`;
  const tol = describeTolerance(tolerance, allowed, baseMedian);
  let message;
  if (cmp.verdict === 'too few runs') {
    message = baseline.samples.length < 2 && !baseline.alternated
      ? `${against}: the baseline holds one run, too few to decide; record it again with --update-baseline (-n ${moreRuns(measured.samples.length)})`
      : `${against}: too few runs to decide (${baseline.samples.length} and ${measured.samples.length}); run more (-n ${moreRuns(measured.samples.length)})`;
  } else if (verdict === 'fail') {
    message = `${against}: ${figures}, over the tolerance of ${tol}`;
  } else if (verdict === 'undecided') {
    message = `${against}: ${figures} straddles the tolerance of ${tol}: the interval is too wide to decide; run more (-n ${moreRuns(measured.samples.length)})`;
  } else {
    const words = cmp.verdict === 'noise' ? 'within noise' : cmp.verdict === 'faster' ? 'faster' : 'slower, within the tolerance';
    message = `${against}: ${figures}, ${words} (tolerance ${tol})`;
  }
  return {
    name: 'baseline', ok: verdict !== 'fail', verdict, method: floor.method,
    actual: round(cmp.shift), low: round(cmp.low), high: round(cmp.high), confidence: cmp.confidence, limit: allowed,
    before: round(median(floor.before)), after: round(median(floor.after)), change: cmp.verdict,
    floorBefore: round(floor.floorBefore), floorAfter: round(floor.floorAfter), models: cmp.models, message,
  };
}

/**
 * Checks the measured runs against the limits given. A limit that is not given is not checked.
 * @param {{ samples: number[], control?: number[], modules: number }} measured times to ready of
 *   the timed runs, and of the machine's floor (a bare Node that listens) run alternately with them
 * @param {{ budgetMs?: number, maxModules?: number, baseline?: { samples: number[], control?: number[], alternated?: boolean },
 *   tolerance?: { percent: number, atLeastMs?: number } | { ms: number }, confidence?: number }} limits tolerance
 *   defaults to 10%, confidence to 0.95; a baseline `alternated` was run with this measurement,
 *   run for run (its samples are compared as they are)
 * @returns {{ ok: boolean, undecided: boolean, checks: Array<{ name: 'budget'|'max-modules'|'baseline',
 *   ok: boolean, verdict: 'pass'|'fail'|'undecided', actual: number, limit: number, low?: number,
 *   high?: number, message: string }> }} ok is false only for a 'fail'; undecided when any check is
 */
/**
 * --max-advice-ms: the startup time the advice says could be saved (its estimates, added up), in
 * each of a few profiled runs. One run's estimate moves with the machine, so the limit fails only
 * when every run is over it and passes when every run is within it; otherwise it is undecided.
 */
function adviceCheck({ totals, findings }, limit) {
  const low = Math.min(...totals);
  const high = Math.max(...totals);
  const verdict = intervalVerdict(low, high, limit);
  const range = totals.length > 1 ? `${formatMs(median(totals))} ms (${formatMs(low)}–${formatMs(high)} over ${totals.length} profiled runs)` : `${formatMs(low)} ms`;
  const top = findings.slice(0, 3).map((a) => `${adviceLabel(a)} ${formatMs(a.estimatedMs)} ms`).join('; ');
  const message = {
    pass: `avoidable startup work ${range} is within --max-advice-ms ${formatMs(limit)} ms`,
    fail: `avoidable startup work ${range} is over --max-advice-ms ${formatMs(limit)} ms: ${top}`,
    undecided: `avoidable startup work ${range} straddles --max-advice-ms ${formatMs(limit)} ms: ${top || 'no finding in some runs'}`,
  }[verdict];
  return { name: 'max-advice', ok: verdict !== 'fail', verdict, actual: round(median(totals)), low: round(low), high: round(high), limit, findings, message };
}

/** One finding in a few words, with where to change it. */
function adviceLabel(a) {
  const where = a.line ? `${a.file}:${a.line}` : a.file;
  if (a.kind === 'lazy-load') return `load ${a.subject} lazily (${where})`;
  if (a.kind === 'sync-work') return `${a.subject} (${where})`;
  if (a.kind === 'heavy-entry-point') return `all of ${a.subject} for ${a.parts.join(', ')} (${where})`;
  if (a.kind.startsWith('container-')) return `${a.subject} in the container`;
  return `${a.subject}: ${a.copies ? a.copies.length : 'several'} copies`;
}

function evaluateBudget(measured, limits = {}) {
  const confidence = limits.confidence ?? 0.95;
  const checks = [];
  if (limits.budgetMs != null) checks.push(budgetCheck(measured.samples, limits.budgetMs, confidence));
  if (limits.maxModules != null) {
    const ok = measured.modules <= limits.maxModules;
    checks.push({
      name: 'max-modules', ok, verdict: ok ? 'pass' : 'fail', actual: measured.modules, limit: limits.maxModules,
      message: ok
        ? `${measured.modules} module${measured.modules === 1 ? '' : 's'}, within --max-modules ${limits.maxModules}`
        : `${measured.modules} modules loaded to start, over --max-modules ${limits.maxModules} (by ${measured.modules - limits.maxModules})`,
    });
  }
  if (limits.baseline) checks.push(baselineCheck(measured, limits.baseline, limits.tolerance || DEFAULT_TOLERANCE, confidence));
  if (limits.maxAdviceMs != null) checks.push(adviceCheck(measured.advice, limits.maxAdviceMs));
  return { ok: checks.every((c) => c.ok), undecided: checks.some((c) => c.verdict === 'undecided'), checks };
}

module.exports = { parseTolerance, evaluateBudget, intervalVerdict };
