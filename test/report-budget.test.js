'use strict';
// The verdicts of coldstart check: an interval against a limit, never one figure.
const test = require('node:test');
const assert = require('node:assert');
const { parseTolerance, evaluateBudget, intervalVerdict } = require('../lib/report/budget.js');
const { medianInterval, compareSamples, runsForMedianInterval } = require('../lib/stats.js');
const { UsageError } = require('../lib/errors.js');

const around = (center, spread, n = 9) => Array.from({ length: n }, (_, i) => center + spread * (i / (n - 1) - 0.5) * 2);

test('--tolerance takes a percentage or a duration', () => {
  assert.deepStrictEqual(parseTolerance('10%'), { percent: 10 });
  assert.deepStrictEqual(parseTolerance('2.5%'), { percent: 2.5 });
  assert.deepStrictEqual(parseTolerance('0%'), { percent: 0 });
  assert.deepStrictEqual(parseTolerance('25ms'), { ms: 25 });
  assert.deepStrictEqual(parseTolerance('0.5s'), { ms: 500 });
  assert.deepStrictEqual(parseTolerance('0'), { ms: 0 });
  assert.deepStrictEqual(parseTolerance(undefined), { percent: 10, atLeastMs: 10 }, 'not given: 10%, at least 10 ms');
  for (const bad of ['10', '-5%', '%', 'ten', '5 %', '']) {
    assert.throws(() => parseTolerance(bad), (err) => err instanceof UsageError && /invalid --tolerance/.test(err.message), bad);
  }
});

test('an interval against a limit: above it fails, within it passes, across it is undecided', () => {
  assert.strictEqual(intervalVerdict(801, 900, 800), 'fail');
  assert.strictEqual(intervalVerdict(700, 800, 800), 'pass', 'the limit itself is within');
  assert.strictEqual(intervalVerdict(790, 810, 800), 'undecided');
  assert.strictEqual(intervalVerdict(null, null, 800), 'undecided', 'no interval decides nothing');
});

test('the budget judges the median\'s interval: pass, fail, undecided', () => {
  const samples = around(700, 20); // 680 .. 720
  const mi = medianInterval(samples);
  const pass = evaluateBudget({ samples, modules: 10 }, { budgetMs: 800 });
  assert.deepStrictEqual([pass.ok, pass.undecided, pass.checks[0].verdict], [true, false, 'pass']);
  assert.strictEqual(pass.checks[0].low, mi.low);
  assert.strictEqual(pass.checks[0].high, mi.high);
  assert.match(pass.checks[0].message, /^time to ready 700 ms \[\d+–\d+\] \(9\d% interval\) is within the budget of 800 ms$/);

  const fail = evaluateBudget({ samples, modules: 10 }, { budgetMs: 650 });
  assert.deepStrictEqual([fail.ok, fail.checks[0].verdict], [false, 'fail']);
  assert.match(fail.checks[0].message, /is over the budget of 650 ms \(by [\d.]+ ms at least\)/);

  // The median is under the budget, but the interval reaches over it: too wide to decide.
  const undecided = evaluateBudget({ samples, modules: 10 }, { budgetMs: 705 });
  assert.deepStrictEqual([undecided.ok, undecided.undecided, undecided.checks[0].verdict], [true, true, 'undecided']);
  assert.match(undecided.checks[0].message, /straddles the budget of 705 ms: the interval is too wide to decide; run more \(-n 18\)/);
  // Over the budget with its median, still not a failure while part of the interval is within it.
  assert.strictEqual(evaluateBudget({ samples, modules: 10 }, { budgetMs: 695 }).checks[0].verdict, 'undecided');
});

test('fewer runs than a 95% interval needs (6) decide no budget: undecided, run -n 6 or more', () => {
  const one = evaluateBudget({ samples: [120], modules: 1 }, { budgetMs: 30000 });
  assert.deepStrictEqual([one.ok, one.undecided, one.checks[0].verdict], [true, true, 'undecided']);
  assert.match(one.checks[0].message, /^time to ready 120 ms \(1 run, no interval\) against the budget of 30000 ms: too few runs to decide \(a 95% interval needs 6\); run more \(-n 6 or more\)$/);
  // Far over the budget, yet the whole range of 5 runs covers the median only 93% of the time.
  const five = evaluateBudget({ samples: around(700, 20, 5), modules: 1 }, { budgetMs: 100 });
  assert.deepStrictEqual([five.ok, five.checks[0].verdict, five.checks[0].low, five.checks[0].high], [true, 'undecided', 680, 720]);
  assert.match(five.checks[0].message, /700 ms \[680–720\] \(93% interval\) against the budget of 100 ms: too few runs to decide/);
  // 6 runs reach 96%: decided.
  assert.strictEqual(evaluateBudget({ samples: around(700, 20, 6), modules: 1 }, { budgetMs: 100 }).checks[0].verdict, 'fail');
  assert.strictEqual(evaluateBudget({ samples: around(700, 20, 6), modules: 1 }, { budgetMs: 800 }).checks[0].verdict, 'pass');
  assert.strictEqual(runsForMedianInterval(0.95), 6);
  assert.strictEqual(runsForMedianInterval(0.99), 8);
});

test('--max-modules counts modules', () => {
  assert.strictEqual(evaluateBudget({ samples: [1], modules: 1500 }, { maxModules: 1500 }).ok, true);
  const fail = evaluateBudget({ samples: [1], modules: 1620 }, { maxModules: 1500 });
  assert.strictEqual(fail.ok, false);
  assert.match(fail.checks[0].message, /1620 modules loaded to start, over --max-modules 1500 \(by 120\)/);
});

test('baseline: the shift\'s interval against the tolerance (10% of the baseline\'s median by default)', () => {
  const baseline = { samples: around(200, 10) }; // median 200: 10% is 20 ms
  const same = evaluateBudget({ samples: around(201, 10), modules: 1 }, { baseline });
  const c = same.checks[0];
  assert.deepStrictEqual([c.verdict, c.change, c.method, c.limit], ['pass', 'noise', 'raw', 20]);
  assert.match(c.message, /within noise \(tolerance 20\.0 ms \(--tolerance 10% of the baseline's 200 ms, at least 10 ms\)\)/);

  const slower = evaluateBudget({ samples: around(260, 10), modules: 1 }, { baseline });
  const cmp = compareSamples(baseline.samples, around(260, 10));
  assert.deepStrictEqual([slower.ok, slower.checks[0].verdict], [false, 'fail']);
  assert.strictEqual(slower.checks[0].low, cmp.low);
  assert.ok(slower.checks[0].low > 20);
  assert.match(slower.checks[0].message, /\+60\.0 ms \[\+5\d\.\d … \+6\d\.\d ms\], 9\d% interval, over the tolerance of 20\.0 ms/);

  // A real but small slowdown, wholly under the tolerance, passes and says what it is.
  const small = evaluateBudget({ samples: around(210, 2), modules: 1 }, { baseline: { samples: around(200, 2) } });
  assert.deepStrictEqual([small.checks[0].verdict, small.checks[0].change], ['pass', 'slower']);
  assert.match(small.checks[0].message, /slower, within the tolerance/);

  const straddles = evaluateBudget({ samples: around(220, 40), modules: 1 }, { baseline });
  assert.deepStrictEqual([straddles.ok, straddles.undecided, straddles.checks[0].verdict], [true, true, 'undecided']);
  assert.match(straddles.checks[0].message, /straddles the tolerance of 20\.0 ms \(.*\): the interval is too wide to decide; run more \(-n 18\)/);

  const faster = evaluateBudget({ samples: around(150, 10), modules: 1 }, { baseline, tolerance: { percent: 0 } });
  assert.deepStrictEqual([faster.checks[0].verdict, faster.checks[0].change], ['pass', 'faster']);
});

test('baseline of a small app: the default tolerance is at least 10 ms, a percentage given is taken as given', () => {
  const baseline = { samples: around(33, 2) }; // 10% would be 3.3 ms
  const measured = { samples: around(41, 2), modules: 1 }; // +8 ms: what a busy core alone did to such an app
  const byDefault = evaluateBudget(measured, { baseline }).checks[0];
  assert.deepStrictEqual([byDefault.limit, byDefault.verdict], [10, 'pass']);
  assert.match(byDefault.message, /slower, within the tolerance \(tolerance 10\.0 ms \(--tolerance 10% of the baseline's 33\.0 ms, at least 10 ms\)\)/);
  const given = evaluateBudget(measured, { baseline, tolerance: parseTolerance('10%') }).checks[0];
  assert.deepStrictEqual([given.limit, given.verdict], [3.3, 'fail']);
  const grown = evaluateBudget({ samples: around(83, 2), modules: 1 }, { baseline }).checks[0];
  assert.strictEqual(grown.verdict, 'fail', '50 ms more work is over it');
});

test('baseline with an absolute tolerance', () => {
  const limits = { baseline: { samples: around(40, 4) }, tolerance: { ms: 25 } };
  assert.strictEqual(evaluateBudget({ samples: around(50, 4), modules: 1 }, limits).checks[0].verdict, 'pass');
  const fail = evaluateBudget({ samples: around(95, 4), modules: 1 }, limits);
  assert.deepStrictEqual([fail.ok, fail.checks[0].limit], [false, 25]);
  assert.match(fail.checks[0].message, /over the tolerance of 25\.0 ms \(--tolerance\)/);
});

test('baseline over the machine\'s floor: a slower or busier machine alone does not fail, the app growing does', () => {
  // The baseline machine: floor 60 ms, the app 100 ms.
  const baseline = { samples: around(100, 8), control: around(60, 5) };
  const raw = evaluateBudget({ samples: around(250, 20), modules: 1 }, { baseline: { samples: baseline.samples } });
  assert.strictEqual(raw.checks[0].verdict, 'fail', 'without the floor a slower machine looks like a regression');

  // A machine 2.5 times slower: floor 150 ms, the same app 250 ms. As a multiple of the floor
  // nothing changed; above the floor it did: no model alone decides, and it does not fail.
  const slower = evaluateBudget({ samples: around(250, 20), control: around(150, 12), modules: 1 }, { baseline });
  const s1 = slower.checks[0];
  assert.deepStrictEqual([s1.method, s1.change, s1.models.multiple.verdict, s1.models.above.verdict], ['floor', 'noise', 'noise', 'slower']);
  assert.notStrictEqual(s1.verdict, 'fail');
  assert.deepStrictEqual([s1.floorBefore, s1.floorAfter], [60, 150]);
  assert.match(s1.message, /^time to ready over the machine's floor, against the baseline: /);

  // A busy machine that adds 90 ms to every start: above the floor nothing changed.
  const busier = evaluateBudget({ samples: around(190, 8), control: around(150, 5), modules: 1 }, { baseline });
  assert.deepStrictEqual([busier.checks[0].models.above.verdict, busier.checks[0].verdict], ['noise', 'pass']);

  // 50 ms more of the app's own work on the baseline machine: 125 ms more on the slower one.
  const grown = evaluateBudget({ samples: around(375, 20), control: around(150, 12), modules: 1 }, { baseline });
  assert.deepStrictEqual([grown.ok, grown.checks[0].verdict, grown.checks[0].models.multiple.verdict], [false, 'fail', 'slower']);
  assert.ok(grown.checks[0].low > 40, 'the interval covers both models: the smaller shift bounds it');
});

test('too few runs on either side decide nothing: undecided, with what to do', () => {
  const one = evaluateBudget({ samples: around(300, 10, 5), modules: 1 }, { baseline: { samples: [200] } });
  assert.deepStrictEqual([one.ok, one.checks[0].verdict], [true, 'undecided']);
  assert.match(one.checks[0].message, /the baseline holds one run, too few to decide; record it again with --update-baseline/);
  const two = evaluateBudget({ samples: [300, 310], modules: 1 }, { baseline: { samples: [200, 205] } });
  assert.match(two.checks[0].message, /too few runs to decide \(2 and 2\); run more \(-n 10\)/);
});

test('every limit given is checked; one breach fails the whole', () => {
  const v = evaluateBudget({ samples: around(300, 4), modules: 2000 },
    { budgetMs: 800, maxModules: 1500, baseline: { samples: around(290, 4) }, tolerance: { percent: 10 } });
  assert.deepStrictEqual(v.checks.map((c) => [c.name, c.verdict]), [['budget', 'pass'], ['max-modules', 'fail'], ['baseline', 'pass']]);
  assert.strictEqual(v.ok, false);
  assert.deepStrictEqual(evaluateBudget({ samples: [1], modules: 1 }, {}), { ok: true, undecided: false, checks: [] });
});
