'use strict';
// Statistics over timing samples (milliseconds): median and standard deviation, percentiles, a
// distribution with the slowest 1% stripped, the median's confidence interval, and the comparison
// of two sets of runs that tells a real change from noise (used by bench, check, diff and bundle).
// Pure functions: arrays of numbers in, plain data out. Where a value is undefined (no samples,
// or spread from a single sample) it is null, never NaN, so results survive JSON.stringify.

const { formatMs } = require('./format-units.js');

const BARS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const FULL_BAR = '█';

function checkSamples(samples, fn) {
  if (!Array.isArray(samples)) throw new TypeError(`${fn}: samples must be an array of numbers`);
  for (const x of samples) {
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new TypeError(`${fn}: samples must be finite numbers, got ${String(x)}`);
    }
  }
}

/**
 * The p-th percentile of an ascending array, by linear interpolation between closest ranks
 * (the method numpy and Excel's PERCENTILE.INC use, "R-7"): with rank h = (n - 1) * p / 100,
 * the result is sorted[floor(h)] + (h - floor(h)) * (sorted[floor(h) + 1] - sorted[floor(h)]).
 * So p = 0 is the minimum, p = 100 the maximum and p = 50 the usual median.
 * @param {number[]} sorted samples in ascending order (not checked, not modified)
 * @param {number} p from 0 to 100
 * @returns {number|null} null when there are no samples
 */
function percentile(sorted, p) {
  if (typeof p !== 'number' || !(p >= 0 && p <= 100)) throw new RangeError(`percentile: p must be 0..100, got ${p}`);
  const n = sorted.length;
  if (n === 0) return null;
  const h = ((n - 1) * p) / 100;
  const lo = Math.floor(h);
  const fraction = h - lo;
  if (fraction === 0 || lo + 1 >= n) return sorted[lo];
  return sorted[lo] + fraction * (sorted[lo + 1] - sorted[lo]);
}

/** How many of n samples the 1% outlier strip removes: floor(n / 100), so nothing below 100. */
function outlierCount(n) {
  return Math.floor(n / 100);
}

function describeSorted(sorted) {
  const n = sorted.length;
  if (n === 0) {
    return { n: 0, min: null, max: null, mean: null, median: null, stddev: null, p90: null, p95: null, p99: null };
  }
  let sum = 0;
  for (const x of sorted) sum += x;
  const mean = sum / n;
  let stddev = null;
  // One sample says nothing about spread: the sample (n - 1) standard deviation is undefined there.
  if (n > 1) {
    let squares = 0;
    for (const x of sorted) squares += (x - mean) * (x - mean);
    stddev = Math.sqrt(squares / (n - 1));
  }
  return {
    n,
    min: sorted[0],
    max: sorted[n - 1],
    mean,
    median: percentile(sorted, 50),
    stddev,
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
  };
}

/**
 * Summary of timing samples, plus the same summary after stripping the slowest 1%.
 * The strip removes floor(n / 100) of the largest samples: 1 of 100, 1 of 199, 2 of 200, none below
 * 100 samples (rounding up would drop a sample from every tiny run, where "1%" means nothing).
 * @param {number[]} samples finite numbers in any order (not modified)
 * @returns {{n: number, min: ?number, max: ?number, mean: ?number, median: ?number, stddev: ?number,
 *   p90: ?number, p95: ?number, p99: ?number, stripped: object}} stddev is the sample (n - 1) one,
 *   null for fewer than 2 samples; stripped has the same fields (without its own stripped)
 */
function summarize(samples) {
  checkSamples(samples, 'summarize');
  const sorted = [...samples].sort((a, b) => a - b);
  const kept = sorted.slice(0, sorted.length - outlierCount(sorted.length));
  return { ...describeSorted(sorted), stripped: describeSorted(kept) };
}

/**
 * Equal-width histogram. The range is [min, max] of the samples unless given (give the same
 * min/max to compare runs on one axis; samples outside a given range are not counted).
 * Every bin is [from, to) except the last, which includes its upper edge.
 * @param {number[]} samples finite numbers
 * @param {{bins?: number, min?: number, max?: number}} [options] bins defaults to Sturges'
 *   rule, ceil(log2(n)) + 1
 * @returns {{from: number, to: number, count: number}[]} empty for no samples; one bin when all
 *   samples are equal
 */
function histogram(samples, options = {}) {
  checkSamples(samples, 'histogram');
  const n = samples.length;
  if (n === 0) return [];
  let lowest = Infinity;
  let highest = -Infinity;
  for (const x of samples) {
    if (x < lowest) lowest = x;
    if (x > highest) highest = x;
  }
  const min = options.min ?? lowest;
  const max = options.max ?? highest;
  if (!(Number.isFinite(min) && Number.isFinite(max) && min <= max)) {
    throw new RangeError(`histogram: invalid range ${min}..${max}`);
  }
  if (min === max) return [{ from: min, to: max, count: samples.filter((x) => x === min).length }];

  const bins = options.bins ?? Math.ceil(Math.log2(n)) + 1;
  if (!Number.isInteger(bins) || bins < 1) throw new RangeError(`histogram: bins must be a whole number >= 1, got ${bins}`);
  const width = (max - min) / bins;
  const out = [];
  for (let i = 0; i < bins; i++) {
    out.push({ from: min + i * width, to: i === bins - 1 ? max : min + (i + 1) * width, count: 0 });
  }
  for (const x of samples) {
    if (x < min || x > max) continue;
    // Clamp: x === max belongs to the last bin, and rounding may push an edge value one bin up.
    const i = Math.min(bins - 1, Math.floor((x - min) / width));
    out[i].count += 1;
  }
  return out;
}

// Enough decimals to tell neighbouring bin edges apart, and no more.
function decimalsFor(step) {
  if (!(step > 0) || step >= 10) return 0;
  return Math.min(6, Math.max(0, Math.ceil(-Math.log10(step)) + 1));
}

function bar(count, most, width) {
  if (count === 0 || most === 0) return '';
  const eighths = Math.max(1, Math.round((count / most) * width * 8));
  return FULL_BAR.repeat(Math.floor(eighths / 8)) + BARS[eighths % 8];
}

/**
 * Text bars for a terminal, one line per bin: "  1203 – 1210 ms │████▌ 12".
 * The longest bar is `width` columns; non-empty bins always show at least a sliver.
 * @param {{from: number, to: number, count: number}[]} hist from histogram()
 * @param {{width?: number, unit?: string}} [options] width defaults to 40, unit to 'ms'
 * @returns {string} lines joined by '\n' without a trailing newline; '(no samples)' when empty
 */
function renderHistogram(hist, options = {}) {
  const width = options.width ?? 40;
  const unit = options.unit ?? 'ms';
  if (!Array.isArray(hist) || hist.length === 0) return '(no samples)';
  const step = hist[0].to - hist[0].from;
  const decimals = decimalsFor(step);
  const fromLabels = hist.map((b) => b.from.toFixed(decimals));
  const toLabels = hist.map((b) => b.to.toFixed(decimals));
  const fromWidth = Math.max(...fromLabels.map((s) => s.length));
  const toWidth = Math.max(...toLabels.map((s) => s.length));
  const most = Math.max(...hist.map((b) => b.count));
  const suffix = unit ? ` ${unit}` : '';
  return hist
    .map((b, i) => {
      const label = `${fromLabels[i].padStart(fromWidth)} – ${toLabels[i].padStart(toWidth)}${suffix}`;
      const drawn = bar(b.count, most, width);
      return `${label} │${drawn}${drawn ? ' ' : ''}${b.count}`;
    })
    .join('\n');
}

/** The columns every stats table shows, in order. */
const STAT_COLUMNS = ['n', 'median', 'mean', 'stddev', 'min', 'p90', 'p95', 'p99', 'max'];

/** The median of samples in any order (not modified); null when there are none. */
function median(samples) {
  checkSamples(samples, 'median');
  return percentile([...samples].sort((a, b) => a - b), 50);
}

// log(n!) by summing: exact enough for the sample counts a benchmark takes (up to a few thousand).
const logFactorials = [0];
function logFactorial(n) {
  for (let i = logFactorials.length; i <= n; i++) logFactorials[i] = logFactorials[i - 1] + Math.log(i);
  return logFactorials[n];
}

/** P(X <= k) for X ~ Binomial(n, 1/2). */
function binomialHalfCdf(n, k) {
  let p = 0;
  for (let i = 0; i <= k; i++) p += Math.exp(logFactorial(n) - logFactorial(i) - logFactorial(n - i) - n * Math.LN2);
  return Math.min(1, p);
}

/**
 * The median with a distribution-free confidence interval from order statistics: the interval
 * [x(j), x(n+1-j)] of the sorted samples holds the true median with probability
 * 1 - 2 P(B <= j - 1), B ~ Binomial(n, 1/2), whatever the distribution of the samples. The
 * narrowest such interval reaching `confidence` is returned; when n is too small for that
 * (n < 6 at 95%), the widest one (min to max) and the confidence it does reach.
 * @param {number[]} samples finite numbers in any order (not modified)
 * @param {number} [confidence=0.95]
 * @returns {{ n: number, median: ?number, low: ?number, high: ?number, confidence: number }}
 *   low/high are null below 2 samples; confidence is the interval's actual coverage
 */
function medianInterval(samples, confidence = 0.95) {
  checkSamples(samples, 'medianInterval');
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  const mid = percentile(sorted, 50);
  if (n < 2) return { n, median: mid, low: null, high: null, confidence: 0 };
  let j = 1;
  while (j + 1 <= n / 2 && 1 - 2 * binomialHalfCdf(n, j) >= confidence) j++;
  return { n, median: mid, low: sorted[j - 1], high: sorted[n - j], confidence: 1 - 2 * binomialHalfCdf(n, j - 1) };
}

/**
 * The fewest runs whose median interval (medianInterval) can reach `confidence`: the widest
 * interval, min to max, covers the median with probability 1 - 2 (1/2)^n. 6 at 95%.
 * @param {number} [confidence=0.95]
 * @returns {number}
 */
function runsForMedianInterval(confidence = 0.95) {
  let n = 2;
  while (1 - 2 * 0.5 ** n < confidence) n++;
  return n;
}

/**
 * Runs a side that bench and bundle ask for to compare two ways of starting: 4 a side can show a
 * shift at 95%, 6 give the medians' own 95% intervals; 7 leaves room for one slow outlier.
 */
const ENOUGH_RUNS = runsForMedianInterval(0.95) + 1;

/**
 * How many of the m*n orderings of two samples without ties give each Mann-Whitney U, as the
 * coefficients of the Gaussian binomial [m+n choose m](q) = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
 * @returns {number[]} counts indexed by U (0..m*n)
 */
function mannWhitneyCounts(m, n) {
  const size = m * n + 1;
  let poly = new Array(size).fill(0);
  poly[0] = 1;
  for (let i = 1; i <= m; i++) {
    const times = poly.slice();
    for (let d = size - 1; d >= n + i; d--) times[d] -= times[d - n - i];
    // Dividing by (1 - q^i) is a running sum with stride i; the division is exact.
    for (let d = i; d < size; d++) times[d] += times[d - i];
    poly = times;
  }
  return poly;
}

/**
 * The largest k with P(U < k) <= alpha / 2 under "no difference": the pairwise differences
 * D(k) .. D(mn+1-k) then bound the shift with confidence 1 - alpha. Exact for up to 10,000 pairs,
 * the normal approximation above that.
 */
function shiftRank(m, n, confidence) {
  const alpha = 1 - confidence;
  if (m * n <= 10000) {
    const counts = mannWhitneyCounts(m, n);
    const total = counts.reduce((s, c) => s + c, 0);
    let below = 0;
    let k = 0;
    while (k < counts.length && (below + counts[k]) / total <= alpha / 2) below += counts[k++];
    return { k, achieved: 1 - (2 * below) / total };
  }
  const z = normalQuantile(1 - alpha / 2);
  const k = Math.max(0, Math.floor((m * n) / 2 - z * Math.sqrt((m * n * (m + n + 1)) / 12)));
  return { k, achieved: confidence };
}

/** Inverse of the standard normal distribution (Acklam's rational approximation, |error| < 1.2e-9). */
function normalQuantile(p) {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q) => (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/**
 * Compares two sets of runs, `after` against `before`: the shift is the Hodges-Lehmann estimate
 * (the median of every difference after[j] - before[i]) and its interval the distribution-free
 * one that inverts the Mann-Whitney test. The change is real ('slower' or 'faster') only when the
 * whole interval lies on one side of zero; otherwise it is 'noise'. With too few runs to reach
 * the confidence asked for, the verdict is 'too few runs' (2 runs a side cannot show anything
 * at 95%; 4 a side can).
 * @param {number[]} before samples of A, any order
 * @param {number[]} after samples of B
 * @param {{ confidence?: number }} [options] default 0.95
 * @returns {{ before: object, after: object, shift: ?number, low: ?number, high: ?number,
 *   ratio: ?number, confidence: number, verdict: 'slower'|'faster'|'noise'|'too few runs' }}
 *   before/after are medianInterval()s; ratio = median(after) / median(before)
 */
function compareSamples(before, after, { confidence = 0.95 } = {}) {
  checkSamples(before, 'compareSamples');
  checkSamples(after, 'compareSamples');
  const a = medianInterval(before, confidence);
  const b = medianInterval(after, confidence);
  const m = before.length;
  const n = after.length;
  const ratio = a.median > 0 && b.median != null ? b.median / a.median : null;
  if (!m || !n) return { before: a, after: b, shift: null, low: null, high: null, ratio, confidence: 0, verdict: 'too few runs' };
  const diffs = [];
  for (const y of after) for (const x of before) diffs.push(y - x);
  diffs.sort((x, y) => x - y);
  const shift = percentile(diffs, 50);
  const { k, achieved } = shiftRank(m, n, confidence);
  if (k < 1) return { before: a, after: b, shift, low: null, high: null, ratio, confidence: 0, verdict: 'too few runs' };
  const low = diffs[k - 1];
  const high = diffs[diffs.length - k];
  const verdict = low > 0 ? 'slower' : high < 0 ? 'faster' : 'noise';
  return { before: a, after: b, shift, low, high, ratio, confidence: achieved, verdict };
}

/**
 * The two-sided p-value of the Mann-Whitney test that `after` and `before` come from one
 * distribution: exact (from the counts of every ordering) up to 10,000 pairs, the normal
 * approximation above. Ties count half; the tail is taken on the side that makes p larger.
 * @param {number[]} before
 * @param {number[]} after
 * @returns {number} 1 when either side is empty
 */
function mannWhitneyP(before, after) {
  checkSamples(before, 'mannWhitneyP');
  checkSamples(after, 'mannWhitneyP');
  const m = before.length;
  const n = after.length;
  if (!m || !n) return 1;
  let u = 0;
  for (const y of after) for (const x of before) u += y > x ? 1 : y === x ? 0.5 : 0;
  if (m * n > 10000) {
    const z = (Math.abs(u - (m * n) / 2) - 0.5) / Math.sqrt((m * n * (m + n + 1)) / 12);
    return Math.min(1, 2 * (1 - normalCdf(Math.max(0, z))));
  }
  const counts = mannWhitneyCounts(m, n);
  const total = counts.reduce((s, c) => s + c, 0);
  let below = 0;
  let above = 0;
  for (let k = 0; k < counts.length; k++) {
    if (k <= Math.ceil(u)) below += counts[k];
    if (k >= Math.floor(u)) above += counts[k];
  }
  return Math.min(1, (2 * Math.min(below, above)) / total);
}

/** The standard normal distribution function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7). */
function normalCdf(z) {
  const t = 1 / (1 + 0.3275911 * Math.abs(z) / Math.SQRT2);
  const erf = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/**
 * Which of many comparisons are discoveries, by the Benjamini-Hochberg procedure: with the
 * p-values sorted, the largest rank k whose p is at most k / m * q, and every comparison up to
 * it. Among hundreds of packages some differ "at 95%" by chance; this keeps the expected share of
 * false discoveries at q (and, when nothing changed, the chance of any at q).
 * @param {number[]} pValues one per comparison
 * @param {number} [q=0.05] the false discovery rate
 * @returns {{ selected: boolean[], confidence: number }} confidence: the level at which the
 *   selected items' intervals are to be drawn so that they stay honest after the selection,
 *   1 - R q / m for R selected of m (Benjamini-Yekutieli's false coverage rate)
 */
function falseDiscoveries(pValues, q = 0.05) {
  const m = pValues.length;
  const order = pValues.map((p, i) => i).sort((a, b) => pValues[a] - pValues[b]);
  let k = 0;
  order.forEach((i, rank) => { if (pValues[i] <= ((rank + 1) / m) * q) k = rank + 1; });
  const selected = new Array(m).fill(false);
  for (let r = 0; r < k; r++) selected[order[r]] = true;
  return { selected, confidence: 1 - ((Math.max(k, 1)) * q) / Math.max(m, 1) };
}

/**
 * The factor between two sets of runs, after / before, with its interval: compareSamples() on the
 * logarithms of the samples, so the estimate is the median of every ratio after[j] / before[i]
 * and the interval the Mann-Whitney one, both turned back into factors. A pair compares the same
 * way before and after the logarithm, so the verdict is always compareSamples' own.
 * @param {number[]} before positive samples (a time of 0 or less has no ratio)
 * @param {number[]} after positive samples
 * @param {{ confidence?: number }} [options] default 0.95
 * @returns {{ ratio: ?number, low: ?number, high: ?number, confidence: number }} nulls where
 *   compareSamples has them, or when a sample is not positive
 */
function ratioInterval(before, after, { confidence = 0.95 } = {}) {
  checkSamples(before, 'ratioInterval');
  checkSamples(after, 'ratioInterval');
  if (before.some((x) => x <= 0) || after.some((x) => x <= 0)) return { ratio: null, low: null, high: null, confidence: 0 };
  const c = compareSamples(before.map(Math.log), after.map(Math.log), { confidence });
  const exp = (x) => (x === null ? null : Math.exp(x));
  return { ratio: exp(c.shift), low: exp(c.low), high: exp(c.high), confidence: c.confidence };
}

/** A signed time for a difference: +12.3, −7.00 (a real minus sign), 0. */
function formatSignedMs(ms) {
  if (ms === null || ms === undefined) return '–';
  if (ms === 0) return '0';
  return `${ms > 0 ? '+' : '−'}${formatMs(Math.abs(ms))}`;
}

/** A median with its interval, from medianInterval(): "312 ms [298–330]"; the median alone below 2 samples. */
function formatMedianInterval(mi) {
  if (mi.median === null) return '–';
  if (mi.low === null) return `${formatMs(mi.median)} ms`;
  return `${formatMs(mi.median)} ms [${formatMs(mi.low)}–${formatMs(mi.high)}]`;
}

/**
 * The verdict of compareSamples() in words, with the shift and its interval, e.g.
 * "no difference beyond noise (−7.00 ms, 95% interval −25.0 … +12.0 ms)" or
 * "1.48x faster (−101 ms, 95% interval −120 … −85.0 ms; 1.30–1.71x)". The interval decides the
 * verdict. The factor and its interval come from `cmp.factor` (ratioInterval()) when given,
 * otherwise the factor is the ratio of the medians. The percentage is the coverage the interval
 * reaches, rounded down.
 * @param {ReturnType<typeof compareSamples> & { factor?: ReturnType<typeof ratioInterval> }} cmp
 * @returns {string}
 */
function formatComparison(cmp) {
  const runs = cmp.before.n === cmp.after.n ? `${cmp.before.n} runs each` : `${cmp.before.n} and ${cmp.after.n} runs`;
  if (cmp.verdict === 'too few runs') return `too few runs to tell a difference from noise (${runs})`;
  const detail = `${formatSignedMs(cmp.shift)} ms, ${Math.floor(cmp.confidence * 100)}% interval ` +
    `${formatSignedMs(cmp.low)} … ${formatSignedMs(cmp.high)} ms`;
  if (cmp.verdict === 'noise') return `no difference beyond noise (${detail})`;
  // As "n times faster" a factor below 1 is the inverse of the ratio, and so are its bounds.
  const f = cmp.factor && cmp.factor.ratio !== null ? cmp.factor : { ratio: cmp.ratio, low: null, high: null };
  const faster = cmp.verdict === 'faster';
  const factor = f.ratio === null ? null : faster ? 1 / f.ratio : f.ratio;
  const head = factor !== null && factor > 1 ? `${factor.toFixed(2)}x ${cmp.verdict}` : cmp.verdict;
  const bounds = f.low === null ? '' : `; ${(faster ? 1 / f.high : f.low).toFixed(2)}–${(faster ? 1 / f.low : f.high).toFixed(2)}x`;
  return `${head} (${detail}${bounds})`;
}

module.exports = {
  median, medianInterval, runsForMedianInterval, ENOUGH_RUNS, compareSamples, summarize, percentile, histogram, renderHistogram, STAT_COLUMNS,
  ratioInterval, mannWhitneyP, falseDiscoveries, formatSignedMs, formatMedianInterval, formatComparison,
};
