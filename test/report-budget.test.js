'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { parseTolerance, evaluateBudget } = require('../lib/report/budget.js');
const { UsageError } = require('../lib/errors.js');

test('--tolerance takes a percentage or a duration', () => {
  assert.deepStrictEqual(parseTolerance('10%'), { percent: 10 });
  assert.deepStrictEqual(parseTolerance('2.5%'), { percent: 2.5 });
  assert.deepStrictEqual(parseTolerance('0%'), { percent: 0 });
  assert.deepStrictEqual(parseTolerance('25ms'), { ms: 25 });
  assert.deepStrictEqual(parseTolerance('0.5s'), { ms: 500 });
  assert.deepStrictEqual(parseTolerance('0'), { ms: 0 });
  for (const bad of ['10', '-5%', '%', 'ten', '5 %', '']) {
    assert.throws(() => parseTolerance(bad), (err) => err instanceof UsageError && /invalid --tolerance/.test(err.message), bad);
  }
});

test('the budget: within passes, over fails by the amount', () => {
  const pass = evaluateBudget({ readyMs: 799, modules: 10 }, { budgetMs: 800 });
  assert.strictEqual(pass.ok, true);
  assert.deepStrictEqual(pass.checks.map((c) => [c.name, c.ok]), [['budget', true]]);
  assert.strictEqual(evaluateBudget({ readyMs: 800, modules: 10 }, { budgetMs: 800 }).ok, true, 'equal is within');
  const fail = evaluateBudget({ readyMs: 812, modules: 10 }, { budgetMs: 800 });
  assert.strictEqual(fail.ok, false);
  assert.match(fail.checks[0].message, /time to ready 812 ms is over the budget of 800 ms \(by 12\.0 ms\)/);
});

test('--max-modules counts modules', () => {
  assert.strictEqual(evaluateBudget({ readyMs: 1, modules: 1500 }, { maxModules: 1500 }).ok, true);
  const fail = evaluateBudget({ readyMs: 1, modules: 1620 }, { maxModules: 1500 });
  assert.strictEqual(fail.ok, false);
  assert.match(fail.checks[0].message, /1620 modules loaded to start, over --max-modules 1500 \(by 120\)/);
});

test('baseline with a percentage tolerance (10% by default)', () => {
  const baseline = { readyMs: 200 };
  assert.strictEqual(evaluateBudget({ readyMs: 220, modules: 1 }, { baseline }).ok, true, '+10% is allowed');
  const fail = evaluateBudget({ readyMs: 221, modules: 1 }, { baseline });
  assert.strictEqual(fail.ok, false);
  assert.strictEqual(fail.checks[0].limit, 220);
  assert.match(fail.checks[0].message, /time to ready 221 ms is 10\.5% over the baseline 200 ms \(limit 220 ms with --tolerance 10%\)/);
  const faster = evaluateBudget({ readyMs: 150, modules: 1 }, { baseline, tolerance: { percent: 0 } });
  assert.strictEqual(faster.ok, true);
  assert.match(faster.checks[0].message, /-25\.0%/);
});

test('baseline with an absolute tolerance', () => {
  const limits = { baseline: { readyMs: 40 }, tolerance: { ms: 25 } };
  assert.strictEqual(evaluateBudget({ readyMs: 65, modules: 1 }, limits).ok, true);
  const fail = evaluateBudget({ readyMs: 95, modules: 1 }, limits);
  assert.strictEqual(fail.ok, false);
  assert.strictEqual(fail.checks[0].limit, 65);
});

test('every limit given is checked; one breach fails the whole', () => {
  const v = evaluateBudget({ readyMs: 300, modules: 2000 },
    { budgetMs: 800, maxModules: 1500, baseline: { readyMs: 290 }, tolerance: { percent: 10 } });
  assert.deepStrictEqual(v.checks.map((c) => [c.name, c.ok]), [['budget', true], ['max-modules', false], ['baseline', true]]);
  assert.strictEqual(v.ok, false);
  assert.deepStrictEqual(evaluateBudget({ readyMs: 1, modules: 1 }, {}), { ok: true, checks: [] });
});
