'use strict';
// coldstart check as CI runs it: a baseline is recorded, the same app passes, the app with one
// more module that takes 50 ms to load fails, and says which module grew; an inconclusive check
// exits 3, and 1 under --strict.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { cpuWorkModule } = require('./helpers/cpu-work.js');
const { formatMs } = require('../lib/report/terminal-format.js');
const { fastSkips } = require('./helpers/suite.js');

const MANY_RUNS = fastSkips('many timed runs of an app');

// slow-require's server.js without its slow module: the app before the regression.
function withoutSlowModule(source) {
  const lines = source.split('\n').filter((l) => !l.includes("require('./slow.js')"));
  return lines.join('\n').replace('${slow.spun}', 'ok');
}

const ATTEMPTS = 3;

/** A signed figure as printed ('+12.3', '−4.50', '0'). */
const num = (text) => Number(text.replace('−', '-'));

/**
 * The verdict printed must follow from the figures printed, whatever the timing was: the shift's
 * interval against the tolerance. Figures within rounding of the tolerance are not judged.
 */
function assertConsistent(r) {
  const m = /against the baseline: ([+−]?[\d.]+) ms \[([+−]?[\d.]+) … ([+−]?[\d.]+) ms\], \d+% interval.*[ (]tolerance (?:of )?([\d.]+) ms/.exec(r.stdout);
  assert.ok(m, `a shift with its interval and the tolerance are printed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  const [low, high, tolerance] = [num(m[2]), num(m[3]), Number(m[4])];
  assert.ok(low <= num(m[1]) && num(m[1]) <= high, `the shift lies in its interval\n${r.stdout}`);
  // Within the tolerance passes only when the interval could have seen a change of its size.
  // An interval wholly below 0 (faster) passes however wide.
  const verdict = low > tolerance ? 'FAIL' : high <= tolerance && (high < 0 || (high - low) / 2 <= tolerance) ? 'pass' : 'inconclusive';
  if (Math.abs(low - tolerance) > 1 && Math.abs(high - tolerance) > 1 && Math.abs((high - low) / 2 - tolerance) > 1) {
    assert.match(r.stdout, new RegExp(`^  ${verdict}  time to ready`, 'm'), `${low} .. ${high} against ${tolerance}\n${r.stdout}`);
    assert.strictEqual(r.code, { FAIL: 1, pass: 0, inconclusive: 3 }[verdict], r.stdout + r.stderr);
  }
  return r.code;
}

test('check fails when the app gains a 50 ms module over its baseline, does not fail without it, names the module', MANY_RUNS, async () => {
  const dir = copyFixture('slow-require');
  try {
    // 50 ms of CPU work rather than the fixture's busy-wait on the clock: the check compares with
    // the control app, and work, unlike a wait, takes longer when the machine is busy.
    fs.writeFileSync(path.join(dir, 'slow.js'), cpuWorkModule(50));
    const server = path.join(dir, 'server.js');
    const withSlow = fs.readFileSync(server, 'utf8');
    // Runs go on while they cannot decide, as a CI job on a shared runner would let them.
    const check = ['check', '-n', '10..30', '--', 'node', 'server.js'];
    // Wall-clock time on a shared machine: the verdict logic is checked exactly on every attempt;
    // the timing outcome must come out right in one of a few attempts.
    const attempts = [];
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      fs.writeFileSync(server, withoutSlowModule(withSlow));
      const record = await runCli(['check', '-n', '10', '--update-baseline', '--', 'node', 'server.js'], { cwd: dir });
      assert.strictEqual(record.code, 0, record.stdout + record.stderr);
      assert.match(record.stdout, /Baseline written: \.coldstart\/baseline\.json/);
      assert.match(record.stdout, /time to ready: median [\d.]+ ms \[[\d.]+–[\d.]+\] \(97% interval, order statistics\) of 10 runs/);
      assert.match(record.stdout, /control app \(a dozen modules and an http server, run alternately\): median [\d.]+ ms/);
      const baseline = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'baseline.json'), 'utf8'));
      assert.strictEqual(baseline.check.samples.length, 10, 'every timed run is kept');
      assert.strictEqual(baseline.check.control.length, 10, 'and the control run paired with it');
      assert.strictEqual(baseline.check.detail.runs, 10);
      assert.strictEqual(baseline.check.detail.moduleSelfMs['server.js'].length, 10);
      assert.ok(baseline.readyAt > 0);
      assert.deepStrictEqual(baseline.modules.map((m) => m.file), ['server.js']);
      assert.deepStrictEqual(fs.readdirSync(path.join(dir, '.coldstart')), ['baseline.json'], 'written atomically: no temp file left');

      const same = await runCli(check, { cwd: dir });
      const sameCode = assertConsistent(same);
      // A 95% interval calls an unchanged app slower now and then, more often when the machine's
      // load comes in bursts: that attempt is retried (check-busy-machine holds the load case).
      if (sameCode === 0) assert.doesNotMatch(same.stdout, /Biggest movers: modules/, 'nothing grew');

      fs.writeFileSync(server, withSlow);
      const slower = await runCli(check, { cwd: dir });
      const slowerCode = assertConsistent(slower);
      // What grew comes from the module records of the detailed runs: always there.
      assert.match(slower.stdout, /Biggest movers: modules[\s\S]*slow\.js \(new\)\s+–\s+[\d.]+ ms\s+\+[\d.]+ ms\s+\[\+[\d.]+ … \+[\d.]+\]/, 'names the module that grew');
      assert.match(slower.stdout, /modules\s+1\s+2\s+\+1/);
      assert.doesNotMatch(slower.stdout, /\u001b\[/, 'no colour when stdout is not a terminal');
      assert.doesNotMatch(slower.stdout, /slow-require listening/, "the app's own output stays out of the report");
      if (slowerCode === 1) assert.match(slower.stdout, /coldstart check: FAILED \(1 of 1 check\)/);
      attempts.push(`attempt ${attempt + 1}: same app exit ${sameCode}, with the slow module exit ${slowerCode}`);
      // The unchanged app must not fail (pass, or inconclusive on a noisy machine); the grown one must.
      if (sameCode !== 1 && slowerCode === 1) return;
    }
    assert.fail(`expected the unchanged app not to fail and the app with the slow module to fail in one attempt:\n${attempts.join('\n')}`);
  } finally {
    rm(dir);
  }
});

test('check against a baseline of one run is inconclusive: exit 3, and --strict fails it; --json has the intervals; one median per quantity', MANY_RUNS, async () => {
  const dir = copyFixture('slow-require');
  try {
    // A report of a single run (what profile writes) as the baseline: nothing to compare runs with.
    const profiled = await runCli(['profile', '--out', 'one', '-q', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(profiled.code, 0, profiled.stderr);
    const check = ['check', '-n', '4', '--baseline', 'one/report.json'];
    const app = ['--', 'node', 'server.js'];
    const plain = await runCli([...check, ...app], { cwd: dir });
    assert.strictEqual(plain.code, 3, plain.stdout + plain.stderr);
    assert.match(plain.stdout, /inconclusive {2}time to ready .*the baseline holds one run, too few to decide; record it again with --update-baseline/);
    assert.match(plain.stdout, /^coldstart check: inconclusive \(1 of 1 check\): the runs cannot decide; exit 3, or 1 with --strict$/m);
    assert.match(plain.stdout, /Single runs compared/, 'the baseline has no runs to compare module by module');
    assert.match(plain.stderr, /^coldstart: warning: time to ready .*the baseline holds one run, too few to decide/m);
    // The median of this check's runs is one figure: the summary's and the table's.
    const summary = /time to ready: median ([\d.]+) ms/.exec(plain.stdout)[1];
    const row = /^ {2}time to ready +([\d.]+) ms +([\d.]+) ms/m.exec(plain.stdout);
    assert.strictEqual(row[2], summary, plain.stdout);
    assert.strictEqual(row[1], formatMs(JSON.parse(fs.readFileSync(path.join(dir, 'one', 'report.json'), 'utf8')).readyAt), 'the baseline as it recorded itself');

    const strict = await runCli(['--strict', ...check, ...app], { cwd: dir });
    assert.strictEqual(strict.code, 1, strict.stdout + strict.stderr);
    // One failure line: the --strict one every command prints, not a second one of check's own.
    assert.match(strict.stdout, /^coldstart check: inconclusive \(1 of 1 check\)/m);
    assert.doesNotMatch(strict.stdout, /FAILED|passed/);
    assert.strictEqual(strict.stderr, strict.stderr.match(/^coldstart: --strict: time to ready .*\(CHECK_INCONCLUSIVE\)\n$/m)[0], strict.stderr);

    const json = await runCli([...check, '--json', '--strict', ...app], { cwd: dir });
    assert.strictEqual(json.code, 1, json.stderr);
    const doc = JSON.parse(json.stdout);
    assert.deepStrictEqual([doc.ok, doc.verdict], [false, 'inconclusive']);
    assert.deepStrictEqual(doc.warnings.map((w) => [w.code, w.context.check]), [['CHECK_INCONCLUSIVE', 'baseline']]);
    assert.strictEqual(doc.readyAtInterval.n, 4);
    assert.strictEqual(doc.readyAtInterval.median, doc.readyAt, 'readyAt is the median of the timed runs as kept');
    assert.strictEqual(doc.diff.readyAt.after, doc.readyAt, 'and the diff shows the same figure');
    assert.ok(doc.readyAtInterval.low <= doc.readyAt && doc.readyAt <= doc.readyAtInterval.high);
    assert.ok(doc.readyAtInterval.confidence > 0.8);
    assert.strictEqual(doc.control.samples.length, 4);
    assert.strictEqual(doc.checks[0].verdict, 'inconclusive');
    assert.strictEqual(doc.diff.method, 'single');
    assert.ok(['noise', 'slower', 'faster', 'cannot tell'].includes(doc.diff.readyAt.verdict), doc.diff.readyAt.verdict);
  } finally {
    rm(dir);
  }
});

test('check --budget with a time to ready and modules= without a baseline; --json', MANY_RUNS, async () => {
  const dir = copyFixture('slow-require');
  try {
    // 8 runs: the fewest a budget decides on at the first of the 4 looks of the default -n 8 (8..24).
    const over = await runCli(['check', '-n', '8', '--budget', '20ms,modules=1', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(over.code, 1, over.stderr);
    const doc = JSON.parse(over.stdout);
    assert.strictEqual(doc.ok, false);
    assert.strictEqual(doc.samples.length, 8);
    assert.strictEqual(doc.modules, 2);
    assert.deepStrictEqual(doc.checks.map((c) => [c.name, c.verdict]), [['budget', 'fail'], ['max-modules', 'fail']]);
    assert.ok(doc.checks[0].low > 20, 'the whole interval is over the budget');
    assert.strictEqual(doc.readyAtInterval.n, 8);
    assert.strictEqual(doc.baseline, null);

    // One run cannot decide a budget, however far within it: inconclusive (exit 3), run -n 6 or more.
    const within = await runCli(['check', '-n', '1..1', '--budget', '30s', '--budget', 'modules=10', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(within.code, 3, within.stdout + within.stderr);
    assert.match(within.stdout, /inconclusive {2}time to ready( \(less waiting for a CPU\))? [\d.]+ ms \(1 run, no interval\) against the budget of 30000 ms: too few runs to decide .*run more \(-n 6 or more\)/);
    assert.match(within.stdout, /pass {2}2 modules, within the modules budget of 10/);
    assert.strictEqual(fs.existsSync(path.join(dir, '.coldstart')), false, 'nothing written without --update-baseline');
    // By default a check that cannot decide goes on, up to three times -n, looking at 1.5 times the
    // runs each time: -n 3 looks at 3, 5, 8 and 9 runs, each look at 1 - 5%/4, which a budget
    // reaches with 8 runs.
    const extended = await runCli(['check', '-n', '3', '--budget', '30s', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(extended.code, 0, extended.stderr);
    assert.deepStrictEqual([JSON.parse(extended.stdout).runs, JSON.parse(extended.stdout).samples.length], [8, 8]);
    assert.strictEqual(JSON.parse(extended.stdout).checks[0].confidence >= 0.9875, true);
  } finally {
    rm(dir);
  }
});

test('check: usage errors exit 2 with one coldstart: line, before the app runs', async () => {
  const dir = copyFixture('slow-require');
  try {
    fs.mkdirSync(path.join(dir, 'broken'));
    fs.writeFileSync(path.join(dir, 'broken', 'baseline.json'), 'not json');
    const cases = [
      [['--budget', 'fast'], /invalid --budget "fast"/],
      [['--budget', '800ms', '--tolerance', '10'], /invalid --tolerance "10"/],
      [['--baseline', 'nope.json'], /baseline not found: nope\.json/],
      [[], /nothing to check: give --budget \(e\.g\. 800ms,modules=1500,advice=50ms,rss=256MiB\) or a baseline/],
      [['--budget', '1s', '-n', '0'], /invalid --runs "0"/],
      [['--budget', 'modules=many'], /^coldstart: invalid --budget "modules=many": modules takes a whole number of modules >= 1, e\.g\. modules=1500$/],
      [['--budget', '800ms,speed=3'], /^coldstart: invalid --budget "speed=3": unknown limit "speed"; use a time to ready \(800ms or ready=800ms\), modules=1500, advice=50ms, rss=256MiB or heap=128MiB$/],
      [['--budget', 'advice=5'], /^coldstart: invalid --budget "advice=5": advice takes a duration such as 50ms$/],
      [['--budget', '1s,ready=2s'], /^coldstart: --budget gives ready twice \("1s", "ready=2s"\): give each limit once$/],
      [['--budget', 'modules=5', '--budget', 'modules=6'], /^coldstart: --budget gives modules twice/],
      [['--budget', '1s', '-n', '6..5'], /^coldstart: invalid --runs "6\.\.5": N\.\.M goes on from N runs up to M, so M must be at least N$/],
      [['--budget', '1s', '-n', '0..5'], /^coldstart: invalid --runs "0\.\.5": at least 1 run$/],
      [['--budget', '1s', '-n', '6-9'], /^coldstart: invalid --runs "6-9": give a number of runs N, or N\.\.M/],
      [['--baseline', 'broken/baseline.json'], /is not JSON/],
    ];
    for (const [flags, pattern] of cases) {
      const r = await runCli(['check', ...flags, '--', 'node', 'server.js'], { cwd: dir });
      assert.strictEqual(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.strictEqual(lines.length, 1, r.stderr);
      assert.match(lines[0], /^coldstart: /);
      assert.match(lines[0], pattern);
      assert.strictEqual(r.stdout, '');
    }
    const noCommand = await runCli(['check', '--budget', '1s'], { cwd: dir });
    assert.strictEqual(noCommand.code, 2);
    assert.match(noCommand.stderr, /^coldstart: missing app command/);
  } finally {
    rm(dir);
  }
});
