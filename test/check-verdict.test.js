'use strict';
// The verdicts of coldstart check: an interval against a limit, never one figure.
const test = require('node:test');
const assert = require('node:assert');
const { evaluateChecks, intervalVerdict } = require('../lib/check/verdict.js');
const { parseTolerance } = require('../lib/options.js');
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

test('an interval against a limit: above it fails, within it passes, across it is inconclusive', () => {
  assert.strictEqual(intervalVerdict(801, 900, 800), 'fail');
  assert.strictEqual(intervalVerdict(700, 800, 800), 'pass', 'the limit itself is within');
  assert.strictEqual(intervalVerdict(790, 810, 800), 'inconclusive');
  assert.strictEqual(intervalVerdict(null, null, 800), 'inconclusive', 'no interval decides nothing');
});

test('the budget judges the median\'s interval: pass, fail, inconclusive', () => {
  const samples = around(700, 20); // 680 .. 720
  const mi = medianInterval(samples);
  const pass = evaluateChecks({ samples, modules: 10 }, { budgetMs: 800 });
  assert.deepStrictEqual([pass.ok, pass.inconclusive, pass.checks[0].verdict], [true, false, 'pass']);
  assert.strictEqual(pass.checks[0].low, mi.low);
  assert.strictEqual(pass.checks[0].high, mi.high);
  assert.match(pass.checks[0].message, /^time to ready 700 ms \[\d+–\d+\] \(9\d% interval\) is within the budget of 800 ms$/);

  const fail = evaluateChecks({ samples, modules: 10 }, { budgetMs: 650 });
  assert.deepStrictEqual([fail.ok, fail.checks[0].verdict], [false, 'fail']);
  assert.match(fail.checks[0].message, /is over the budget of 650 ms \(by [\d.]+ ms at least\)/);

  // The median is under the budget, but the interval reaches over it: too wide to decide.
  const undecided = evaluateChecks({ samples, modules: 10 }, { budgetMs: 705 });
  assert.deepStrictEqual([undecided.ok, undecided.inconclusive, undecided.checks[0].verdict], [true, true, 'inconclusive']);
  assert.match(undecided.checks[0].message, /straddles the budget of 705 ms: about \d+ runs would tell \(-n \d+, or -n N\.\.\d+ to go on from N runs only while inconclusive\)/);
  // Over the budget with its median, still not a failure while part of the interval is within it.
  assert.strictEqual(evaluateChecks({ samples, modules: 10 }, { budgetMs: 695 }).checks[0].verdict, 'inconclusive');
});

test('fewer runs than a 95% interval needs (6) decide no budget: inconclusive, run -n 6 or more', () => {
  const one = evaluateChecks({ samples: [120], modules: 1 }, { budgetMs: 30000 });
  assert.deepStrictEqual([one.ok, one.inconclusive, one.checks[0].verdict], [true, true, 'inconclusive']);
  assert.match(one.checks[0].message, /^time to ready 120 ms \(1 run, no interval\) against the budget of 30000 ms: too few runs to decide \(a 95% interval needs 6\); run more \(-n 6 or more\)$/);
  // Far over the budget, yet the whole range of 5 runs covers the median only 93% of the time.
  const five = evaluateChecks({ samples: around(700, 20, 5), modules: 1 }, { budgetMs: 100 });
  assert.deepStrictEqual([five.ok, five.checks[0].verdict, five.checks[0].low, five.checks[0].high], [true, 'inconclusive', 680, 720]);
  assert.match(five.checks[0].message, /700 ms \[680–720\] \(93% interval\) against the budget of 100 ms: too few runs to decide/);
  // 6 runs reach 96%: decided.
  assert.strictEqual(evaluateChecks({ samples: around(700, 20, 6), modules: 1 }, { budgetMs: 100 }).checks[0].verdict, 'fail');
  assert.strictEqual(evaluateChecks({ samples: around(700, 20, 6), modules: 1 }, { budgetMs: 800 }).checks[0].verdict, 'pass');
  assert.strictEqual(runsForMedianInterval(0.95), 6);
  assert.strictEqual(runsForMedianInterval(0.99), 8);
});

test('--budget modules= counts modules', () => {
  assert.strictEqual(evaluateChecks({ samples: [1], modules: 1500 }, { maxModules: 1500 }).ok, true);
  const fail = evaluateChecks({ samples: [1], modules: 1620 }, { maxModules: 1500 });
  assert.strictEqual(fail.ok, false);
  assert.match(fail.checks[0].message, /1620 modules loaded to start, over the modules budget of 1500 \(by 120\)/);
});

test('baseline: the shift\'s interval against the tolerance (10% of the baseline\'s median by default)', () => {
  const baseline = { samples: around(200, 10) }; // median 200: 10% is 20 ms
  const same = evaluateChecks({ samples: around(201, 10), modules: 1 }, { baseline });
  const c = same.checks[0];
  assert.deepStrictEqual([c.verdict, c.change, c.method, c.limit], ['pass', 'noise', 'raw', 20]);
  assert.match(c.message, /within noise \(tolerance 20\.0 ms \(--tolerance 10% of the baseline's 200 ms, at least 10 ms\)\)/);

  const slower = evaluateChecks({ samples: around(260, 10), modules: 1 }, { baseline });
  const cmp = compareSamples(baseline.samples, around(260, 10));
  assert.deepStrictEqual([slower.ok, slower.checks[0].verdict], [false, 'fail']);
  assert.strictEqual(slower.checks[0].low, cmp.low);
  assert.ok(slower.checks[0].low > 20);
  assert.match(slower.checks[0].message, /\+60\.0 ms \[\+5\d\.\d … \+6\d\.\d ms\], 9\d% interval, over the tolerance of 20\.0 ms/);

  // A real but small slowdown, wholly under the tolerance, passes and says what it is.
  const small = evaluateChecks({ samples: around(210, 2), modules: 1 }, { baseline: { samples: around(200, 2) } });
  assert.deepStrictEqual([small.checks[0].verdict, small.checks[0].change], ['pass', 'slower']);
  assert.match(small.checks[0].message, /slower, within the tolerance/);

  const straddles = evaluateChecks({ samples: around(220, 40), modules: 1 }, { baseline });
  assert.deepStrictEqual([straddles.ok, straddles.inconclusive, straddles.checks[0].verdict], [true, true, 'inconclusive']);
  assert.match(straddles.checks[0].message, /straddles the tolerance of 20\.0 ms \(.*\); (about \d+ runs a side would tell|more than 200 runs a side would be needed)/);

  const faster = evaluateChecks({ samples: around(150, 10), modules: 1 }, { baseline, tolerance: { percent: 0 } });
  assert.deepStrictEqual([faster.checks[0].verdict, faster.checks[0].change], ['pass', 'faster']);
});

test('baseline of a small app: the default tolerance is at least 10 ms, a percentage given is taken as given', () => {
  const baseline = { samples: around(33, 2) }; // 10% would be 3.3 ms
  const measured = { samples: around(41, 2), modules: 1 }; // +8 ms: what a busy core alone did to such an app
  const byDefault = evaluateChecks(measured, { baseline }).checks[0];
  assert.deepStrictEqual([byDefault.limit, byDefault.verdict], [10, 'pass']);
  assert.match(byDefault.message, /slower, within the tolerance \(tolerance 10\.0 ms \(--tolerance 10% of the baseline's 33\.0 ms, at least 10 ms\)\)/);
  const given = evaluateChecks(measured, { baseline, tolerance: parseTolerance('10%') }).checks[0];
  assert.deepStrictEqual([given.limit, given.verdict], [3.3, 'fail']);
  const grown = evaluateChecks({ samples: around(83, 2), modules: 1 }, { baseline }).checks[0];
  assert.strictEqual(grown.verdict, 'fail', '50 ms more work is over it');
});

test('baseline with an absolute tolerance', () => {
  const limits = { baseline: { samples: around(40, 4) }, tolerance: { ms: 25 } };
  assert.strictEqual(evaluateChecks({ samples: around(50, 4), modules: 1 }, limits).checks[0].verdict, 'pass');
  const fail = evaluateChecks({ samples: around(95, 4), modules: 1 }, limits);
  assert.deepStrictEqual([fail.ok, fail.checks[0].limit], [false, 25]);
  assert.match(fail.checks[0].message, /over the tolerance of 25\.0 ms \(--tolerance\)/);
});

test('baseline over the control app: a busier machine alone does not fail, the app growing does, a changed machine is said', () => {
  // The baseline machine: the control app 60 ms, the app 100 ms.
  const baseline = { samples: around(100, 8), control: around(60, 5) };
  const raw = evaluateChecks({ samples: around(250, 20), modules: 1 }, { baseline: { samples: baseline.samples } });
  assert.strictEqual(raw.checks[0].verdict, 'fail', 'without the control a slower machine looks like a regression');

  // A busy machine that adds 90 ms to every start: over the control nothing changed, and the
  // control moved, so the check says the machine changed and reads the excess scaled as well.
  const busier = evaluateChecks({ samples: around(190, 8), control: around(150, 5), modules: 1 }, { baseline });
  const b = busier.checks[0];
  assert.deepStrictEqual([b.method, b.readings.asMeasured.verdict, b.control.moved], ['control', 'noise', 'slower']);
  assert.notStrictEqual(b.verdict, 'fail');
  assert.deepStrictEqual([b.control.before, b.control.after], [60, 150]);
  assert.match(b.message, /^time to ready over the control app, against the baseline: .*The control app took 60\.0 ms in the baseline and 150 ms now: the machine changed/);

  // The same machine, 50 ms more of the app's own work: fails, and the control did not move.
  const grown = evaluateChecks({ samples: around(150, 8), control: around(60, 5), modules: 1 }, { baseline });
  const g = grown.checks[0];
  assert.deepStrictEqual([grown.ok, g.verdict, g.control.moved, g.readings], [false, 'fail', 'noise', null]);
  assert.ok(g.low > 40 && g.high < 60, JSON.stringify(g));

  // Within the tolerance but too wide to see a change of the size asked for: inconclusive, never pass.
  const wide = evaluateChecks({ samples: around(100, 60), control: around(60, 5), modules: 1 }, { baseline, tolerance: { ms: 60 }, minEffectMs: 20 });
  const w = wide.checks[0];
  assert.deepStrictEqual([wide.ok, w.verdict], [true, 'inconclusive']);
  assert.ok(w.high <= 60, 'within the tolerance');
  assert.match(w.message, /ms wide, too wide to tell a change of 20\.0 ms from none; about \d+ runs a side would tell/);
  assert.ok(w.runsNeeded > 9, String(w.runsNeeded));
});

test('a control that does not move with the app run by run is not subtracted: its noise is not added to the app\'s', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const runs = (centre, spread, n = 16) => Array.from({ length: n }, () => centre + spread * (random() - 0.5) * 2);
  // The app's runs and the control's vary on their own (as a one-file app's do beside it).
  const baseline = { samples: runs(150, 20), control: runs(180, 25) };
  const measured = { samples: runs(150, 20), control: runs(180, 25), modules: 1 };
  const c = evaluateChecks(measured, { baseline }).checks[0];
  assert.ok(c.control.tracking < 0.5, JSON.stringify(c.control));
  const excess = (side) => side.samples.map((x, i) => x - side.control[i]);
  const subtracted = compareSamples(excess(baseline), excess(measured));
  assert.ok(c.high - c.low < subtracted.high - subtracted.low, `[${c.low}, ${c.high}] against [${subtracted.low}, ${subtracted.high}] subtracted`);
  assert.notStrictEqual(c.verdict, 'fail');
  assert.doesNotMatch(c.message, /over the control app/);
  // Whatever the control's share, the shift is printed right after "against the baseline:".
  assert.match(c.message, /, against the baseline: [+−]?[\d.]+ ms \[/);
  // The same runs, the app following its control one for one: judged by its excess, as before.
  const follows = (side) => ({ ...side, samples: side.control.map((x, i) => x - 30 + (i % 3)) });
  const f = evaluateChecks({ ...follows(measured), modules: 1 }, { baseline: follows(baseline) }).checks[0];
  assert.strictEqual(f.control.tracking, 1);
  assert.match(f.message, /^time to ready over the control app, against the baseline/);
});

test('againstControl reads the control at a given share when asked: 0 is the app as measured, 1 its excess over the control', () => {
  const { againstControl } = require('../lib/check/control.js');
  const baseline = { samples: [100, 110, 120, 130], control: [50, 70, 40, 60] };
  const measured = { samples: [105, 115, 125, 135], control: [55, 45, 65, 50] };
  const asMeasured = againstControl(baseline, measured, { tracking: 0 });
  assert.deepStrictEqual([asMeasured.before, asMeasured.after, asMeasured.control.tracking], [baseline.samples, measured.samples, 0]);
  const excess = againstControl(baseline, measured, { tracking: 1 });
  assert.deepStrictEqual(excess.after, [50, 70, 60, 85]);
  assert.strictEqual(excess.control.tracking, 1);
});

test('too few runs on either side decide nothing: inconclusive, with what to do', () => {
  const one = evaluateChecks({ samples: around(300, 10, 5), modules: 1 }, { baseline: { samples: [200] } });
  assert.deepStrictEqual([one.ok, one.checks[0].verdict], [true, 'inconclusive']);
  assert.match(one.checks[0].message, /the baseline holds one run, too few to decide; record it again with --update-baseline/);
  const two = evaluateChecks({ samples: [300, 310], modules: 1 }, { baseline: { samples: [200, 205] } });
  assert.match(two.checks[0].message, /too few runs to decide \(2 and 2\); run more \(-n 10\)/);
});

test('every limit given is checked; one breach fails the whole', () => {
  const v = evaluateChecks({ samples: around(300, 4), modules: 2000 },
    { budgetMs: 800, maxModules: 1500, baseline: { samples: around(290, 4) }, tolerance: { percent: 10 } });
  assert.deepStrictEqual(v.checks.map((c) => [c.name, c.verdict]), [['budget', 'pass'], ['max-modules', 'fail'], ['baseline', 'pass']]);
  assert.strictEqual(v.ok, false);
  assert.deepStrictEqual(evaluateChecks({ samples: [1], modules: 1 }, {}), { ok: true, inconclusive: false, checks: [] });
});

test('a check that goes on while it cannot decide looks at planned run counts, each at a confidence that keeps 95% for all looks', () => {
  const { sequentialLooks } = require('../lib/check/verdict.js');
  assert.deepStrictEqual(sequentialLooks(6, 18), { at: [6, 9, 14, 18], confidence: 1 - 0.05 / 4 });
  assert.deepStrictEqual(sequentialLooks(6, 6), { at: [6], confidence: 0.95 }, 'one look: the interval asked for');
  assert.deepStrictEqual(sequentialLooks(1, 3).at, [1, 2, 3]);
  // The same app on both sides (tolerance 0: every interval wholly above zero is a wrong "slower"):
  // stopping at the first look that decides calls it slower far more often than 2.5% when every
  // look is at 95%, and no more than that with the planned looks.
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const run = () => 100 + 20 * Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const wrongSlower = (at, confidence) => {
    let wrong = 0;
    for (let trial = 0; trial < 2000; trial++) {
      const before = [];
      const after = [];
      for (const n of at) {
        while (before.length < n) { before.push(run()); after.push(run()); }
        const cmp = compareSamples(before, after, { confidence });
        if (cmp.low > 0) { wrong++; break; }
      }
    }
    return wrong / 2000;
  };
  const everyRun = wrongSlower(Array.from({ length: 13 }, (_, i) => 6 + i), 0.95);
  const planned = sequentialLooks(6, 18);
  const looked = wrongSlower(planned.at, planned.confidence);
  assert.ok(everyRun > 0.04, `looking after every run at 95%: ${everyRun}`);
  assert.ok(looked <= 0.025, `the planned looks: ${looked}`);
});

test('runs judged less what each waited for a CPU, when every run of both sides read it; else as measured', () => {
  const { judgedRuns, baselineRuns } = require('../lib/check/baseline-runs.js');
  // Idle baseline: 60 ms, no wait. Now, on a busy machine: 100 ms of which 40 waiting for a CPU.
  const baseline = { readyAt: 60, check: { samples: around(60, 3), runQueue: around(0, 0), control: around(30, 2), controlRunQueue: around(0, 0) } };
  const now = { samples: around(100, 3), runQueue: around(40, 1), control: around(50, 2), controlRunQueue: around(20, 1) };
  const judged = judgedRuns(now, baselineRuns(baseline));
  assert.strictEqual(judged.lessCpuWait, true);
  assert.deepStrictEqual(judged.now.samples, now.samples.map((x, i) => Math.round((x - now.runQueue[i]) * 100) / 100));
  const limits = { baseline: judged.baseline };
  const same = evaluateChecks({ ...judged.now, lessCpuWait: true, modules: 1 }, limits).checks[0];
  assert.strictEqual(same.verdict, 'pass', same.message);
  assert.match(same.message, /^time to ready \(less waiting for a CPU\) over the control app, against the baseline/);
  // As measured, the same runs are 40 ms slower: the wait is what a verdict on wall time would see.
  const asMeasured = evaluateChecks({ samples: now.samples, control: now.control, modules: 1 }, { baseline: { samples: baseline.check.samples } }).checks[0];
  assert.strictEqual(asMeasured.verdict, 'fail', asMeasured.message);

  // A baseline recorded before its runs read the wait, a run that could not read it: as measured.
  const old = judgedRuns(now, baselineRuns({ readyAt: 60, check: { samples: around(60, 3), control: around(30, 2) } }));
  assert.strictEqual(old.lessCpuWait, false);
  assert.deepStrictEqual(old.now.samples, now.samples);
  assert.strictEqual(judgedRuns({ samples: [1, 2], runQueue: [0, null] }).lessCpuWait, false);
  const budget = evaluateChecks({ ...judgedRuns(now).now, lessCpuWait: true, modules: 1 }, { budgetMs: 80 }).checks[0];
  assert.match(budget.message, /^time to ready \(less waiting for a CPU\) 60(\.0)? ms .* is within the budget of 80(\.0)? ms$/);
});
