'use strict';
// The verdicts of `coldstart check`: an absolute budget for time to ready, a most modules count,
// a saved baseline (or a baseline command run alongside) with an allowed regression, and the
// avoidable work the advice finds. Time is judged by an interval, never by one figure, and has
// three answers: fail when the whole interval is beyond the limit; pass when the whole interval is
// within it and narrow enough to have seen a change of the size that matters (the tolerance,
// or minEffectMs when given); inconclusive otherwise, with the spread measured and the runs it would
// take. Pure: samples in, verdicts out.
const { DEFAULT_TOLERANCE } = require('../options.js');
const { medianInterval, runsForMedianInterval, compareSamples, median, formatSignedMs, formatMedianInterval } = require('../stats.js');
const { formatMs } = require('../report/terminal-format.js');
const { formatBytes } = require('../format-units.js');
const { formatLimit } = require('../byte-size.js');
const { againstControl } = require('./control.js');

/**
 * Where an interval stands against an upper limit: 'fail' when all of it is above the limit,
 * 'pass' when all of it is at or below, 'inconclusive' when the limit falls inside it or there is
 * no interval (too few runs).
 * @param {?number} low
 * @param {?number} high
 * @param {number} limit
 * @returns {'pass'|'fail'|'inconclusive'}
 */
function intervalVerdict(low, high, limit) {
  if (low == null || high == null) return 'inconclusive';
  if (low > limit) return 'fail';
  if (high <= limit) return 'pass';
  return 'inconclusive';
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

// More runs than this a side are not proposed: a machine that needs them is too noisy to decide.
const MOST_RUNS = 200;

/**
 * The runs a side would need for an interval that decides: its half width shrinks as one over the
 * square root of the runs, and must come under `target` ms.
 * @returns {?number} null when even MOST_RUNS would not do
 */
function runsNeeded(n, low, high, target) {
  const half = (high - low) / 2;
  if (!(target > 0)) return null;
  const needed = Math.max(n + 1, Math.ceil(n * (half / target) ** 2));
  return needed > MOST_RUNS ? null : needed;
}

const moreRunsText = (needed, what, side = ' a side') => (needed == null
  ? `more than ${MOST_RUNS} runs${side} would be needed: this machine is too noisy to tell ${what}`
  : `about ${needed} runs${side} would tell (-n ${needed}, or -n N..${needed} to go on from N runs only while inconclusive)`);

function budgetCheck(samples, budgetMs, confidence, ready) {
  const mi = medianInterval(samples, confidence);
  const shown = mi.low == null ? `${formatMs(mi.median)} ms (1 run, no interval)` : `${formatMedianInterval(mi)} (${pct(mi.confidence)} interval)`;
  const base = { name: 'budget', actual: round(mi.median), low: round(mi.low), high: round(mi.high), confidence: mi.confidence, limit: budgetMs };
  // Below the runs a `confidence` interval needs, even min to max does not reach it: too few runs
  // decide nothing, as a baseline of one run decides nothing.
  if (mi.confidence < confidence) {
    const needed = runsForMedianInterval(confidence);
    return {
      ...base, ok: true, verdict: 'inconclusive', runsNeeded: needed,
      message: `${ready} ${shown} against the budget of ${formatMs(budgetMs)} ms: too few runs to decide (a ${pct(confidence)} interval needs ${needed}); run more (-n ${needed} or more)`,
    };
  }
  const verdict = intervalVerdict(mi.low, mi.high, budgetMs);
  const needed = verdict === 'inconclusive' ? runsNeeded(mi.n, mi.low, mi.high, Math.abs(mi.median - budgetMs)) : null;
  const message = {
    pass: `${ready} ${shown} is within the budget of ${formatMs(budgetMs)} ms`,
    fail: `${ready} ${shown} is over the budget of ${formatMs(budgetMs)} ms (by ${formatMs(mi.low - budgetMs)} ms at least)`,
    inconclusive: `${ready} ${shown} straddles the budget of ${formatMs(budgetMs)} ms: ${moreRunsText(needed, 'which side of the budget it is on', '')}`,
  }[verdict];
  return { ...base, ok: verdict !== 'fail', verdict, ...(verdict === 'inconclusive' ? { runsNeeded: needed } : {}), message };
}

/**
 * The shift from the baseline with its interval. When the control moved (the machine changed),
 * the excess is read both as it is and scaled by the control's slowdown, and the interval covers
 * both: a change is called only when both readings see it.
 */
function baselineShift(model, confidence) {
  const plain = compareSamples(model.before, model.after, { confidence });
  if (!model.rescaled) return { ...plain, readings: null };
  const scaled = compareSamples(model.before, model.rescaled, { confidence });
  const readings = { asMeasured: brief(plain), scaled: brief(scaled) };
  if (plain.verdict === 'too few runs' || scaled.verdict === 'too few runs') return { ...plain, verdict: 'too few runs', readings };
  const low = Math.min(plain.low, scaled.low);
  const high = Math.max(plain.high, scaled.high);
  return {
    shift: Math.abs(plain.shift) <= Math.abs(scaled.shift) ? plain.shift : scaled.shift,
    low, high, confidence: Math.min(plain.confidence, scaled.confidence),
    verdict: low > 0 ? 'slower' : high < 0 ? 'faster' : 'noise',
    readings,
  };
}
const brief = (cmp) => ({ shift: round(cmp.shift), low: round(cmp.low), high: round(cmp.high), verdict: cmp.verdict });

function baselineCheck(measured, baseline, tolerance, minEffectMs, confidence, ready) {
  const baseMedian = median(baseline.samples);
  const allowed = round(allowedMs(tolerance, baseMedian));
  const effect = minEffectMs ?? allowed;
  const model = baseline.alternated
    ? { method: 'alternated', before: baseline.samples, after: measured.samples, rescaled: null, control: null }
    : againstControl(baseline, measured, { confidence });
  const cmp = baselineShift(model, confidence);
  const n = Math.min(model.before.length, model.after.length);
  let verdict = cmp.verdict === 'too few runs' ? 'inconclusive' : intervalVerdict(cmp.low, cmp.high, allowed);
  // Within the tolerance, but too wide to have seen a change of the size that matters. An interval
  // wholly below 0 has seen one: the app got faster, however wide it is.
  const tooWide = verdict === 'pass' && cmp.high >= 0 && effect > 0 && (cmp.high - cmp.low) / 2 > effect;
  if (tooWide) verdict = 'inconclusive';
  const tracking = model.control ? model.control.tracking : null;
  const against = model.method === 'alternated' ? `${ready} against the baseline command, run alternately`
    : tracking === 1 ? `${ready} over the control app, against the baseline`
      : tracking > 0 ? `${ready} less ${Math.round(tracking * 100)}% of the control app's move (what the app followed of it run by run), against the baseline`
        : tracking === 0 ? `${ready} as measured (the control app did not move with it run by run), against the baseline`
          : `${ready} against the baseline`;
  const figures = cmp.low == null ? '' : `${formatSignedMs(cmp.shift)} ms ${interval(cmp.low, cmp.high)}, ${pct(cmp.confidence)} interval`;
  const tol = describeTolerance(tolerance, allowed, baseMedian);
  let message;
  let needed = null;
  if (cmp.verdict === 'too few runs') {
    const more = Math.max(10, 2 * measured.samples.length);
    // A baseline of one run stays one run however long this check goes on.
    const oneRun = baseline.samples.length < 2 && !baseline.alternated;
    needed = oneRun ? null : more;
    message = oneRun
      ? `${against}: the baseline holds one run, too few to decide; record it again with --update-baseline (-n ${more})`
      : `${against}: too few runs to decide (${baseline.samples.length} and ${measured.samples.length}); run more (-n ${more})`;
  } else if (verdict === 'fail') {
    message = `${against}: ${figures}, over the tolerance of ${tol}`;
  } else if (verdict === 'inconclusive') {
    // The interval must shrink until it is on one side of the tolerance, and below the effect asked for.
    const target = tooWide ? effect : Math.min(effect, Math.abs(cmp.shift - allowed));
    needed = runsNeeded(n, cmp.low, cmp.high, target);
    const why = tooWide
      ? `within the tolerance of ${tol}, but the interval is ${formatMs(cmp.high - cmp.low)} ms wide, too wide to tell a change of ${formatMs(effect)} ms from none`
      : `it straddles the tolerance of ${tol}`;
    message = `${against}: ${figures}: ${why}; ${moreRunsText(needed, `a change of ${formatMs(effect)} ms`)}`;
  } else {
    const words = cmp.verdict === 'noise' ? 'within noise' : cmp.verdict === 'faster' ? 'faster' : 'slower, within the tolerance';
    message = `${against}: ${figures}, ${words} (tolerance ${tol})`;
  }
  const control = model.control && {
    before: round(model.control.before), after: round(model.control.after), moved: model.control.moved, tracking,
  };
  if (control && (control.moved === 'slower' || control.moved === 'faster')) {
    message += `. The control app took ${formatMs(control.before)} ms in the baseline and ${formatMs(control.after)} ms now: the machine changed, ` +
      (model.rescaled ? 'and a verdict must hold both as measured and scaled by that'
        : `and the app is judged less the ${Math.round(tracking * 100)}% of that it follows run by run`);
  }
  return {
    name: 'baseline', ok: verdict !== 'fail', verdict, method: model.method,
    actual: round(cmp.shift), low: round(cmp.low), high: round(cmp.high), confidence: cmp.confidence, limit: allowed, minEffect: effect,
    before: round(median(model.before)), after: round(median(model.after)), change: cmp.verdict,
    control, readings: cmp.readings, ...(verdict === 'inconclusive' ? { runsNeeded: needed } : {}), message,
  };
}

/**
 * --budget advice=: the startup time the advice says could be saved (its estimates, added up), in
 * each of a few profiled runs. One run's estimate moves with the machine, so the limit fails only
 * when every run is over it and passes when every run is within it; otherwise it is inconclusive.
 */
function adviceCheck({ totals, findings }, limit) {
  const low = Math.min(...totals);
  const high = Math.max(...totals);
  const verdict = intervalVerdict(low, high, limit);
  const range = totals.length > 1 ? `${formatMs(median(totals))} ms (${formatMs(low)}–${formatMs(high)} over ${totals.length} profiled runs)` : `${formatMs(low)} ms`;
  const top = findings.slice(0, 3).map((a) => `${adviceLabel(a)} ${formatMs(a.estimatedMs)} ms`).join('; ');
  const message = {
    pass: `avoidable startup work ${range} is within the advice budget of ${formatMs(limit)} ms`,
    fail: `avoidable startup work ${range} is over the advice budget of ${formatMs(limit)} ms: ${top}`,
    inconclusive: `avoidable startup work ${range} straddles the advice budget of ${formatMs(limit)} ms: ${top || 'no finding in some runs'}`,
  }[verdict];
  return { name: 'max-advice', ok: verdict !== 'fail', verdict, actual: round(median(totals)), low: round(low), high: round(high), limit, findings, message };
}

// --budget rss= / heap=: what each reads of memory at the ready moment, and its words.
const MEMORY_LIMITS = {
  maxRssBytes: { name: 'max-rss', key: 'rssBytes', what: 'resident memory (RSS) at ready' },
  maxHeapBytes: { name: 'max-heap', key: 'heapUsedBytes', what: 'JavaScript heap used at ready' },
};

/**
 * A memory limit against the runs that read memory at the ready moment: fail when every run is
 * over it, pass when every run is within, inconclusive otherwise. Over it, the packages that
 * allocated most of the heap alive at ready are named: what to load later or hold less of.
 */
function memoryCheck(memory, limitKey, limit, heldBy) {
  const { name, key, what } = MEMORY_LIMITS[limitKey];
  const values = (memory || []).map((m) => m[key]).filter(Number.isFinite);
  if (!values.length) {
    return { name, ok: true, verdict: 'inconclusive', actual: null, limit, message: `${what}: no run read it (the runs that record modules read memory), so the limit of ${formatBytes(limit)} is not judged` };
  }
  const low = Math.min(...values);
  const high = Math.max(...values);
  const verdict = intervalVerdict(low, high, limit);
  // In the limit's own units: 256MiB is said 256 MiB, not 268.4 MB.
  const size = limit % 2 ** 20 === 0 ? (n) => (n % 2 ** 20 === 0 ? formatLimit(n) : `${(n / 2 ** 20).toFixed(1)} MiB`) : formatBytes;
  const range = values.length > 1 ? `${size(median(values))} (${size(low)}–${size(high)} over ${values.length} runs)` : size(low);
  const held = (heldBy || []).filter((p) => p.bytes >= 1e6).slice(0, 3).map((p) => `${p.package} ${size(p.bytes)}`).join(', ');
  const message = {
    pass: `${what} ${range} is within the limit of ${size(limit)}`,
    fail: `${what} ${range} is over the limit of ${size(limit)}${held ? `: the heap alive at ready was allocated most by ${held}` : ''}`,
    inconclusive: `${what} ${range} straddles the limit of ${size(limit)}`,
  }[verdict];
  return { name, ok: verdict !== 'fail', verdict, actual: Math.round(median(values)), low, high, limit, message };
}

/** Every start of the app reached its ready moment, or the ones that did not, each in a line. */
function startsCheck({ attempted, failed }) {
  const ok = failed.length === 0;
  const hung = failed.filter((f) => f.kind === 'hung').length;
  const message = ok ? `all ${attempted} starts reached the ready moment`
    : `${failed.length} of ${attempted} starts did not reach the ready moment (${hung} hung, ${failed.length - hung} crashed): ` +
      failed.slice(0, 3).map((f) => `start ${f.start}: ${f.message}`).join('; ');
  return { name: 'starts', ok, verdict: ok ? 'pass' : 'fail', actual: attempted - failed.length, limit: attempted, failed, message };
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

/**
 * Checks the measured runs against the limits given. A limit that is not given is not checked.
 * @param {{ samples: number[], control?: number[], lessCpuWait?: boolean, modules: number, advice?: object,
 *   memory?: Array<{ rssBytes: number, heapUsedBytes: number }>, heldBy?: Array<{ package: string, bytes: number }>,
 *   starts?: { attempted: number, failed: Array<{ start: number, kind: 'hung'|'crashed', message: string }> } }} measured
 *   times to ready of the timed runs, and of the control app run alternately with them (lessCpuWait:
 *   less what each waited for a CPU, and the baseline's too); memory at
 *   the ready moment of the runs that read it, and the packages that allocated the heap alive then
 * @param {{ budgetMs?: number, maxModules?: number, maxAdviceMs?: number, maxRssBytes?: number, maxHeapBytes?: number, baseline?: { samples: number[],
 *   control?: number[], alternated?: boolean }, tolerance?: { percent: number, atLeastMs?: number } | { ms: number },
 *   minEffectMs?: number, confidence?: number }} limits tolerance defaults to 10%, minEffectMs to
 *   the tolerance, confidence to 0.95; a baseline `alternated` was run with this measurement, run
 *   for run (its samples are compared as they are)
 * @returns {{ ok: boolean, inconclusive: boolean, checks: Array<{ name: 'budget'|'max-modules'|'baseline'|'max-advice'|'max-rss'|'max-heap',
 *   ok: boolean, verdict: 'pass'|'fail'|'inconclusive', actual: number, limit: number, low?: number,
 *   high?: number, runsNeeded?: ?number, message: string }> }} ok is false only for a 'fail';
 *   inconclusive when any check is
 */
function evaluateChecks(measured, limits = {}) {
  const confidence = limits.confidence ?? 0.95;
  // Less the runs' wait for a CPU where every run read it (baseline-runs.js judgedRuns).
  const ready = measured.lessCpuWait ? 'time to ready (less waiting for a CPU)' : 'time to ready';
  const checks = [];
  // A start that failed fails the check whatever else was asked; all of them passing is said only then.
  if (measured.starts && measured.starts.failed.length) checks.push(startsCheck(measured.starts));
  if (limits.budgetMs != null) checks.push(budgetCheck(measured.samples, limits.budgetMs, confidence, ready));
  if (limits.maxModules != null) {
    const ok = measured.modules <= limits.maxModules;
    checks.push({
      name: 'max-modules', ok, verdict: ok ? 'pass' : 'fail', actual: measured.modules, limit: limits.maxModules,
      message: ok
        ? `${measured.modules} module${measured.modules === 1 ? '' : 's'}, within the modules budget of ${limits.maxModules}`
        : `${measured.modules} modules loaded to start, over the modules budget of ${limits.maxModules} (by ${measured.modules - limits.maxModules})`,
    });
  }
  if (limits.baseline) checks.push(baselineCheck(measured, limits.baseline, limits.tolerance || DEFAULT_TOLERANCE, limits.minEffectMs, confidence, ready));
  if (limits.maxAdviceMs != null) checks.push(adviceCheck(measured.advice, limits.maxAdviceMs));
  for (const limitKey of Object.keys(MEMORY_LIMITS)) {
    if (limits[limitKey] != null) checks.push(memoryCheck(measured.memory, limitKey, limits[limitKey], measured.heldBy));
  }
  return { ok: checks.every((c) => c.ok), inconclusive: checks.some((c) => c.verdict === 'inconclusive'), checks };
}

/**
 * The run counts at which a check that goes on while it cannot decide (--runs N..M) looks at its
 * runs: the runs asked for, then half as many more each time, and the most allowed. Each look is
 * a chance to stop on a wrong verdict, so each is judged at `1 - (1 - confidence) / looks`: the
 * looks together keep the error of one (Bonferroni). Few planned looks keep each one's interval
 * near the one asked for; looking after every run would need one far wider.
 * @param {number} runs
 * @param {number} maxRuns
 * @param {number} [confidence=0.95] the confidence asked for the verdict as a whole
 * @returns {{ at: number[], confidence: number }}
 */
function sequentialLooks(runs, maxRuns, confidence = 0.95) {
  const at = [runs];
  while (at[at.length - 1] < maxRuns) at.push(Math.min(maxRuns, Math.max(at[at.length - 1] + 1, Math.ceil(at[at.length - 1] * 1.5))));
  return { at, confidence: 1 - (1 - confidence) / at.length };
}

/**
 * Whether these runs cannot decide the limits yet while more runs could (check --runs N..M goes on
 * while they cannot): not for a baseline of one run, nor past what MOST_RUNS would decide.
 */
function moreRunsWouldDecide(measured, limits) {
  return evaluateChecks(measured, limits).checks.some((c) => c.verdict === 'inconclusive' && c.runsNeeded != null);
}

module.exports = { evaluateChecks, intervalVerdict, moreRunsWouldDecide, sequentialLooks };
