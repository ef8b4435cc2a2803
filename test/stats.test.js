'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { summarize, percentile, histogram, renderHistogram } = require('../lib/stats.js');

const close = (actual, expected, message) => assert.ok(Math.abs(actual - expected) < 1e-9, `${message}: ${actual} != ${expected}`);
const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test('median of an odd and an even count, whatever the input order', () => {
  assert.equal(summarize([3, 1, 2]).median, 2);
  assert.equal(summarize([4, 1, 3, 2]).median, 2.5);
  assert.equal(summarize([10, 1000, 1, 100, 10000]).median, 100);
});

test('sample standard deviation (n - 1) and mean of a known set', () => {
  // Population stddev of this set is exactly 2; the sample one is sqrt(32 / 7).
  const s = summarize([2, 4, 4, 4, 5, 5, 7, 9]);
  assert.equal(s.mean, 5);
  close(s.stddev, Math.sqrt(32 / 7), 'stddev');
  assert.equal(s.min, 2);
  assert.equal(s.max, 9);
  assert.equal(s.n, 8);
});

test('percentile interpolates linearly between closest ranks', () => {
  const sorted = [10, 20, 30, 40, 50];
  assert.equal(percentile(sorted, 0), 10);
  assert.equal(percentile(sorted, 25), 20);
  assert.equal(percentile(sorted, 50), 30);
  close(percentile(sorted, 90), 46, 'p90'); // rank 3.6 -> 40 + 0.6 * 10
  close(percentile(sorted, 95), 48, 'p95');
  close(percentile(sorted, 99), 49.6, 'p99');
  assert.equal(percentile(sorted, 100), 50);
  assert.equal(percentile([], 50), null);
  assert.equal(percentile([7], 99), 7);
  assert.throws(() => percentile(sorted, 101), RangeError);
  assert.throws(() => percentile(sorted, -1), RangeError);
});

test('summarize reports p90/p95/p99 with the same method', () => {
  const s = summarize(range(1, 100).reverse());
  close(s.p90, 90.1, 'p90'); // rank 0.9 * 99 = 89.1 -> 90 + 0.1
  close(s.p95, 95.05, 'p95');
  close(s.p99, 99.01, 'p99');
});

test('outlier strip: floor(n / 100) largest samples; none below 100 samples', () => {
  const hundred = [...range(1, 99), 10000];
  const s100 = summarize(hundred);
  assert.equal(s100.max, 10000);
  assert.equal(s100.stripped.n, 99);
  assert.equal(s100.stripped.max, 99);
  assert.equal(s100.stripped.median, 50);
  assert.ok(s100.stripped.stddev < s100.stddev);

  const s200 = summarize([5000, ...range(1, 198), 6000]);
  assert.equal(s200.stripped.n, 198);
  assert.equal(s200.stripped.max, 198);
  assert.equal(s200.n, 200);

  const s199 = summarize([...range(1, 198), 9999]);
  assert.equal(s199.stripped.n, 198, '199 samples still lose only one');

  const s99 = summarize([...range(1, 98), 10000]);
  assert.equal(s99.stripped.n, 99);
  assert.equal(s99.stripped.max, 10000, 'fewer than 100 samples: nothing stripped');
});

test('no samples and one sample give nulls, never NaN, in JSON', () => {
  const empty = summarize([]);
  assert.equal(empty.n, 0);
  for (const key of ['min', 'max', 'mean', 'median', 'stddev', 'p90', 'p95', 'p99']) {
    assert.equal(empty[key], null, key);
    assert.equal(empty.stripped[key], null, `stripped.${key}`);
  }
  const one = summarize([42]);
  assert.deepEqual(
    { n: one.n, min: one.min, max: one.max, mean: one.mean, median: one.median, stddev: one.stddev, p99: one.p99 },
    { n: 1, min: 42, max: 42, mean: 42, median: 42, stddev: null, p99: 42 },
  );
  for (const s of [empty, one]) assert.doesNotMatch(JSON.stringify(s), /NaN|Infinity/);
});

test('summarize leaves its input alone and rejects non-numbers', () => {
  const samples = [3, 1, 2];
  summarize(samples);
  assert.deepEqual(samples, [3, 1, 2]);
  assert.throws(() => summarize([1, NaN]), TypeError);
  assert.throws(() => summarize([1, '2']), TypeError);
  assert.throws(() => summarize('1,2'), TypeError);
});

test('histogram: equal-width bins, last bin closed, counts sum to n', () => {
  const hist = histogram(range(0, 10), { bins: 5 });
  assert.deepEqual(hist.map((b) => b.count), [2, 2, 2, 2, 3]);
  assert.deepEqual(hist.map((b) => [b.from, b.to]), [[0, 2], [2, 4], [4, 6], [6, 8], [8, 10]]);

  // Default: Sturges' rule, ceil(log2(11)) + 1 = 5 bins.
  assert.equal(histogram(range(0, 10)).length, 5);

  // Awkward floating point widths: nothing lost at the edges.
  const samples = Array.from({ length: 1000 }, (_, i) => 1203.1 + ((i * 7919) % 1000) * 0.037);
  for (const bins of [1, 3, 7, 13, 64]) {
    const h = histogram(samples, { bins });
    assert.equal(h.length, bins);
    assert.equal(h.reduce((sum, b) => sum + b.count, 0), samples.length, `bins=${bins}`);
    assert.equal(h[0].from, Math.min(...samples));
    assert.equal(h[bins - 1].to, Math.max(...samples));
  }
});

test('histogram edge cases: empty, all equal, fixed range', () => {
  assert.deepEqual(histogram([]), []);
  assert.deepEqual(histogram([5, 5, 5]), [{ from: 5, to: 5, count: 3 }]);
  // A shared axis for comparing runs: samples outside the range are not counted.
  const h = histogram([1, 2, 3, 50], { bins: 2, min: 0, max: 10 });
  assert.deepEqual(h, [{ from: 0, to: 5, count: 3 }, { from: 5, to: 10, count: 0 }]);
  assert.throws(() => histogram([1, 2], { bins: 0 }), RangeError);
  assert.throws(() => histogram([1, 2], { min: 3, max: 1 }), RangeError);
});

test('renderHistogram draws one line per bin, longest bar at full width', () => {
  const hist = [
    { from: 1200, to: 1210, count: 10 },
    { from: 1210, to: 1220, count: 0 },
    { from: 1220, to: 1230, count: 5 },
    { from: 1230, to: 1240, count: 1 },
  ];
  const text = renderHistogram(hist, { width: 20, unit: 'ms' });
  const lines = text.split('\n');
  assert.equal(lines.length, 4);
  assert.ok(!text.endsWith('\n'));
  assert.equal((lines[0].match(/█/g) || []).length, 20);
  assert.match(lines[0], /^1200 – 1210 ms │█{20} 10$/);
  assert.match(lines[1], /│0$/, 'an empty bin has no bar');
  assert.equal((lines[2].match(/█/g) || []).length, 10);
  assert.match(lines[3], /│[█▏▎▍▌▋▊▉]+ 1$/, 'a small count still shows a sliver');
  // Labels are aligned so the bars start in one column.
  assert.equal(new Set(lines.map((l) => l.indexOf('│'))).size, 1);

  assert.equal(renderHistogram([]), '(no samples)');
  assert.match(renderHistogram(histogram([0.5, 0.52, 0.61], { bins: 2 }), { unit: 's' }), /^0\.500 – 0\.555 s │/);
});

test('medianInterval: order-statistic interval with its real coverage', () => {
  const { medianInterval } = require('../lib/stats.js');
  // n = 5 cannot reach 95%: min to max, which covers 1 - 2/32.
  assert.deepEqual(medianInterval([5, 1, 4, 2, 3]), { n: 5, median: 3, low: 1, high: 5, confidence: 0.9375 });
  // n = 20: x(6)..x(15) is the narrowest interval with at least 95%.
  const twenty = medianInterval(Array.from({ length: 20 }, (_, i) => i + 1));
  assert.equal(twenty.low, 6);
  assert.equal(twenty.high, 15);
  assert.ok(twenty.confidence >= 0.95 && twenty.confidence < 0.97, String(twenty.confidence));
  assert.equal(medianInterval([7]).low, null);
});

test('compareSamples: a shift beyond the spread is real, one inside it is noise', () => {
  const { compareSamples } = require('../lib/stats.js');
  const base = [100, 102, 98, 101, 99];
  const slower = compareSamples(base, [150, 152, 148, 151, 149]);
  assert.equal(slower.verdict, 'slower');
  assert.equal(slower.shift, 50);
  assert.deepEqual([slower.low, slower.high], [47, 53]); // D(3) and D(23) of the 25 differences
  assert.equal(compareSamples(base, [101, 99, 103, 97, 100]).verdict, 'noise');
  assert.equal(compareSamples([150, 152, 148, 151], base).verdict, 'faster');
  // Two runs a side can never reach 95%: the tool must not call that a change.
  assert.equal(compareSamples([1, 2], [30, 40]).verdict, 'too few runs');
});

test('compareSamples: large samples use the normal approximation and stay right', () => {
  const { compareSamples } = require('../lib/stats.js');
  let seed = 1;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const a = Array.from({ length: 150 }, random);
  const same = compareSamples(a, a.map((x) => x + 0.001));
  assert.equal(same.verdict, 'noise');
  const moved = compareSamples(a, a.map((x) => x + 0.3));
  assert.equal(moved.verdict, 'slower');
  assert.ok(moved.low < 0.3 && moved.high > 0.3, `${moved.low}..${moved.high}`);
});

test('formatComparison: the words follow the interval', () => {
  const { compareSamples, formatComparison, formatMedianInterval, medianInterval } = require('../lib/stats.js');
  const base = [100, 102, 98, 101, 99];
  assert.equal(formatComparison(compareSamples(base, [150, 152, 148, 151, 149])),
    '1.50x slower (+50.0 ms, 96% interval +47.0 … +53.0 ms)');
  assert.match(formatComparison(compareSamples([150, 152, 148, 151, 149], base)), /^1\.50x faster \(−50\.0 ms, 96% interval −53\.0 … −47\.0 ms\)$/);
  assert.match(formatComparison(compareSamples(base, [101, 99, 103, 97, 100])), /^no difference beyond noise \(.* ms, 96% interval −\S+ … \+\S+ ms\)$/);
  assert.equal(formatComparison(compareSamples([1, 2, 3], [30, 40, 50])), 'too few runs to tell a difference from noise (3 runs each)');
  assert.equal(formatComparison(compareSamples([1, 2], [30, 40, 50])), 'too few runs to tell a difference from noise (2 and 3 runs)');
  assert.equal(formatMedianInterval(medianInterval([312, 298, 330, 305, 320, 301, 315])), '312 ms [298–330]');
  assert.equal(formatMedianInterval(medianInterval([42])), '42.0 ms');
});

test('ratioInterval: the factor with its interval, and the same verdict as the shift', () => {
  const { compareSamples, ratioInterval, formatComparison } = require('../lib/stats.js');
  const base = [100, 102, 98, 101, 99];
  const doubled = base.map((x) => 2 * x);
  const r = ratioInterval(base, doubled);
  close(r.ratio, 2, 'every ratio is near 2');
  assert.ok(r.low > 1 && r.low <= 2 && r.high >= 2, `${r.low}..${r.high}`);
  assert.equal(ratioInterval([0, 1], [1, 2]).ratio, null, 'no ratio to a time of 0');
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let i = 0; i < 50; i++) {
    const a = Array.from({ length: 8 }, () => 100 + 60 * random());
    const b = Array.from({ length: 8 }, () => 100 + 60 * random() + 40 * (i % 3 - 1));
    const c = compareSamples(a, b);
    const f = ratioInterval(a, b);
    assert.equal(f.low > 1 ? 'slower' : f.high < 1 ? 'faster' : 'noise', c.verdict, 'same pairs, same verdict');
  }
  const faster = compareSamples(doubled, base);
  assert.match(formatComparison({ ...faster, factor: ratioInterval(doubled, base) }), /^2\.00x faster \(−100 ms, 96% interval \S+ … \S+ ms; \d\.\d\d–2\.\d\dx\)$/);
});

test('ENOUGH_RUNS (what bench and bundle ask for): the medians reach their 95% interval with a run to spare, and a shift can be shown', () => {
  const { ENOUGH_RUNS, medianInterval, compareSamples } = require('../lib/stats.js');
  assert.equal(ENOUGH_RUNS, 7);
  assert.ok(medianInterval(range(1, ENOUGH_RUNS - 1)).confidence >= 0.95);
  assert.ok(medianInterval(range(1, ENOUGH_RUNS - 2)).confidence < 0.95);
  assert.equal(compareSamples(range(1, ENOUGH_RUNS), range(101, 100 + ENOUGH_RUNS)).verdict, 'slower');
  for (const file of ['bench.js', 'bundle.js']) {
    const source = require('fs').readFileSync(require('path').join(__dirname, '..', 'lib', 'commands', file), 'utf8');
    assert.doesNotMatch(source, /ENOUGH_RUNS\s*=/, `${file} takes ENOUGH_RUNS from lib/stats.js`);
  }
});
