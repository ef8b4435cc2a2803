'use strict';
// Statistics over timing samples (milliseconds), as the seed experiment reports them:
// median and standard deviation, percentiles, and a distribution with the slowest 1% stripped.
// Pure functions: arrays of numbers in, plain data out. Where a value is undefined (no samples,
// or spread from a single sample) it is null, never NaN, so results survive JSON.stringify.

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

/** Milliseconds with the precision their size deserves: 1234, 56.7, 8.90; a dash when missing. */
function formatMs(ms) {
  if (ms === null || ms === undefined) return '–';
  if (ms >= 100) return String(Math.round(ms));
  if (ms >= 10) return ms.toFixed(1);
  return ms.toFixed(2);
}

module.exports = { summarize, percentile, histogram, renderHistogram, formatMs, STAT_COLUMNS };
