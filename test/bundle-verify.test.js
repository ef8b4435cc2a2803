'use strict';
// bundle's verification: the original and the bundle start in alternation, and what it prints
// about their speed is a median with its interval per variant and a verdict that follows from
// the interval of the difference, never a bare percentage.
const test = require('node:test');
const { roundsOf } = require('./helpers/rounds.js');
const assert = require('node:assert/strict');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { fastSkips } = require('./helpers/suite.js');

const MANY_RUNS = fastSkips('many timed runs of an app');

let dir;
test.before(() => { dir = copyFixture('slow-require'); });
test.after(() => rm(dir));

/** "−25.0" / "+12.0" / "0" as printed, to a number. */
const signed = (text) => Number(text.replace('−', '-'));

test('--json: the timed starts alternate original and bundle, each round in an order drawn at random, and the comparison is the bundle against the original', MANY_RUNS, async () => {
  const r = await runCli(['bundle', '--json', '--runs', '5', '--out', 'dist-json', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const { timing } = JSON.parse(r.stdout);
  assert.equal(timing.runs, 5);
  // Each round starts with the other one: original bundle, bundle original, ...
  for (const round of roundsOf(timing.order.map((o) => o.variant), 2)) assert.deepEqual([...round].sort(), ['bundle', 'original'], 'each round starts both once');
  timing.order.slice(1).forEach((o, i) => assert.ok(o.startedMs > timing.order[i].startedMs, 'in the order they ran'));
  assert.deepEqual(timing.original, timing.order.filter((o) => o.variant === 'original').map((o) => o.readyAt));
  assert.deepEqual(timing.bundle, timing.order.filter((o) => o.variant === 'bundle').map((o) => o.readyAt));

  const c = timing.comparison;
  assert.deepEqual([c.before.n, c.after.n], [5, 5]);
  assert.equal(c.before.median, timing.originalMedian);
  assert.equal(c.after.median, timing.bundleMedian);
  assert.ok(c.low <= c.shift && c.shift <= c.high);
  assert.equal(c.verdict, c.low > 0 ? 'slower' : c.high < 0 ? 'faster' : 'noise');
  assert.equal(c.verdict, c.factor.low > 1 ? 'slower' : c.factor.high < 1 ? 'faster' : 'noise', 'the factor agrees');
});

test('the printout: medians with intervals, and a verdict the printed interval supports', MANY_RUNS, async () => {
  const r = await runCli(['bundle', '--runs', '5', '--out', 'dist-text', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.ok(lines.some((l) => /^Verified \(median \[\d+% interval\] of 5 starts each, original and bundle alternated, no profiler\)$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^ {2}ready after +\S+ ms \[\S+–\S+\] original +\S+ ms \[\S+–\S+\] bundle$/.test(l)), r.stdout);
  assert.doesNotMatch(r.stdout, /%\s*(faster|slower)/, 'no bare percentage');

  const line = lines.find((l) => l.startsWith('  bundle '));
  const m = /^ {2}bundle +(no difference beyond noise|\d+\.\d\dx faster|\d+\.\d\dx slower|faster|slower) \((\S+) ms, 9\d% interval (\S+) … (\S+) ms(?:; (\d+\.\d\d)–(\d+\.\d\d)x)?\)$/.exec(line);
  assert.ok(m, `the verdict line: ${line}`);
  const [low, high] = [signed(m[3]), signed(m[4])];
  assert.ok(low <= signed(m[2]) && signed(m[2]) <= high, line);
  if (m[1] === 'no difference beyond noise') assert.ok(low <= 0 && high >= 0, line);
  else {
    assert.ok(m[1].includes('faster') ? high <= 0 : low >= 0, line);
    // "1.48x faster (…; 1.30–1.71x)": the factor's own interval stays on the same side of 1.
    if (m[5]) assert.ok(Number(m[5]) >= 1 && Number(m[5]) <= Number(m[6]), line);
  }
});

test('too few runs for 95%: says so and names the flag that gives more', async () => {
  const r = await runCli(['bundle', '--runs', '2', '--out', 'dist-few', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}bundle +too few runs to tell a difference from noise \(2 runs each\): use --runs 7 or more$/m);
});

test('npm start in the bundle directory starts the bundle, as it started the app', async () => {
  const r = await runCli(['bundle', '--no-verify', '-q', '--out', 'dist-npm', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const path = require('path');
  const out = path.join(dir, 'dist-npm');
  const pj = JSON.parse(require('fs').readFileSync(path.join(out, 'package.json'), 'utf8'));
  assert.equal(pj.scripts.start, 'node server.js');
  const { runNodeUntil } = require('./helpers/app.js');
  // npm's own script (the `npm` on PATH links to it), run by this Node.
  const npmCli = require('fs').realpathSync(require('child_process').execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
  const started = await runNodeUntil(out, [npmCli, 'start'], /slow-require listening/);
  assert.match(started, /> node server\.js/, 'npm ran the start script');
});

test('bundle prints no deprecation of Node under test, whatever ncc asks of fs (run with --throw-deprecation)', () => {
  const { spawnSync } = require('node:child_process');
  const { BIN } = require('./helpers/app.js');
  const r = spawnSync(process.execPath, ['--throw-deprecation', BIN, 'bundle', '--no-verify', '-q', '--out', 'dist-deprecation', '--', 'node', 'server.js'],
    { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: '' } });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /DeprecationWarning|DEP0\d+/, r.stderr);
});
