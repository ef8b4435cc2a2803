'use strict';
// check's limits in one list flag and its runs in one flag: --budget 800ms,modules=N,advice=DURATION
// (repeatable), --runs N..M; and under GitHub Actions the verdict appended to $GITHUB_STEP_SUMMARY.
const test = require('./helpers/suite.js').testLeftOutOfFast('many timed runs of an app');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli } = require('./helpers/app.js');

/** A two-module app that ends at once (--until exit), in a fresh directory. */
function app(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-budget-list-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'app.js'), "require('./two.js');\nconsole.log('app ran');\n");
  fs.writeFileSync(path.join(dir, 'two.js'), 'module.exports = 2;\n');
  return dir;
}

const check = (dir, flags, env = {}) => runCli(['check', '--until', 'exit', ...flags, '--', 'node', 'app.js'], { cwd: dir, env });

test('--budget modules= and advice=, given in one list or repeated, are each a check; --runs N..N takes exactly N runs', async (t) => {
  const dir = app(t);
  const listed = await check(dir, ['-n', '2..2', '--budget', 'modules=1,advice=60s', '--json']);
  assert.strictEqual(listed.code, 1, listed.stderr);
  const doc = JSON.parse(listed.stdout);
  assert.deepStrictEqual(doc.checks.map((c) => [c.name, c.verdict, c.limit]), [['max-modules', 'fail', 1], ['max-advice', 'pass', 60000]]);
  assert.match(doc.checks[0].message, /^2 modules loaded to start, over the modules budget of 1 \(by 1\)$/);
  assert.strictEqual(doc.samples.length, 2);

  const repeated = await check(dir, ['--runs', '1..1', '--budget', 'modules=2', '--budget', ' ready = 60s ']);
  assert.strictEqual(repeated.code, 3, repeated.stderr); // one run cannot decide a time to ready
  assert.match(repeated.stdout, /inconclusive {2}time to ready( \(less waiting for a CPU\))? [\d.]+ ms \(1 run, no interval\) against the budget of 60000 ms/);
  assert.match(repeated.stdout, /pass {2}2 modules, within the modules budget of 2$/m);
});

test('--runs N..M goes on from N runs up to M while the runs cannot decide; --runs N alone up to 3 times N', async (t) => {
  const dir = app(t);
  // However far within the budget, a 95% interval of the median needs more runs than these: each
  // goes on to its most and stays inconclusive (exit 3).
  for (const [runs, taken] of [['2..4', 4], ['2', 6]]) {
    const r = await check(dir, ['-n', runs, '--budget', '60s', '--json']);
    assert.strictEqual(r.code, 3, r.stderr);
    assert.strictEqual(JSON.parse(r.stdout).samples.length, taken, `-n ${runs}`);
  }
});

test('under GitHub Actions the Markdown verdict is appended to $GITHUB_STEP_SUMMARY whatever stdout has; an unwritable one is one warning line, never a failure', async (t) => {
  const dir = app(t);
  const summary = path.join(dir, 'summary.md');
  fs.writeFileSync(summary, '# earlier step\n');
  const json = await check(dir, ['-n', '1..1', '--budget', 'modules=5', '--json'], { GITHUB_STEP_SUMMARY: summary });
  assert.strictEqual(json.code, 0, json.stderr);
  assert.strictEqual(JSON.parse(json.stdout).ok, true, 'stdout is the JSON document alone');
  const text = fs.readFileSync(summary, 'utf8');
  assert.ok(text.startsWith('# earlier step\n## coldstart check: ✅ passed\n'), text);
  assert.match(text, /^- ✅ pass 2 modules, within the modules budget of 5$/m);

  const plain = await check(dir, ['-n', '1..1', '--budget', 'modules=1'], { GITHUB_STEP_SUMMARY: summary });
  assert.strictEqual(plain.code, 1, plain.stderr);
  assert.match(plain.stdout, /^coldstart check: FAILED \(1 of 1 check\)$/m, 'stdout stays text');
  assert.match(fs.readFileSync(summary, 'utf8').slice(text.length), /^## coldstart check: ❌ FAILED \(1 of 1\)$/m);

  // A directory is no file to append to: the check still passes, under --strict too.
  const unwritable = await check(dir, ['-n', '1..1', '--budget', 'modules=5', '--strict'], { GITHUB_STEP_SUMMARY: dir });
  assert.strictEqual(unwritable.code, 0, unwritable.stderr);
  assert.match(unwritable.stdout, /coldstart check: passed/);
  assert.deepStrictEqual(unwritable.stderr.split('\n').filter(Boolean), [`coldstart: warning: could not append the verdict to $GITHUB_STEP_SUMMARY (${dir}): EISDIR`]);
});
