'use strict';
// The CI gate on a busy machine (two busy loops on every core of a 2-core runner): an unchanged app
// checked against itself never fails and lists a mover at most once in six checks (their 1% false
// discovery rate); 50 ms more of the app's own work fails against the baseline command run alongside
// and never passes against a baseline recorded idle: the runs are judged less what they waited for a CPU.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const os = require('os');
const { runCli, rm } = require('./helpers/app.js');
const { cpuWorkModule } = require('./helpers/cpu-work.js');
const { startBusyLoops } = require('./helpers/busy-loops.js');
const { unlessFast, onBenchmarkNode } = require('./helpers/suite.js');

const SAME_CHECKS = 6;
const GROWN_CHECKS = 3;
const RUNS = ['-n', '6..12'];
// A check of the grown app may go on further while its interval straddles the tolerance.
const GROWN_RUNS = ['-n', '6..18'];

function app() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-busy-'));
  const server = "require('http').createServer((req, res) => res.end('ok')).listen(0);\n";
  fs.writeFileSync(path.join(dir, 'main.js'), `'use strict';\n${server}`);
  fs.writeFileSync(path.join(dir, 'work.js'), cpuWorkModule(50));
  fs.writeFileSync(path.join(dir, 'grown.js'), `'use strict';\nrequire('./work.js');\n${server}`);
  return dir;
}

/** The baseline line of a check --json, its exit code following from the verdict alone. */
function baselineCheck(r) {
  const doc = JSON.parse(r.stdout);
  const c = doc.checks.find((x) => x.name === 'baseline');
  assert.ok(c, r.stdout + r.stderr);
  assert.strictEqual(r.code, { fail: 1, pass: 0, inconclusive: 3 }[c.verdict], r.stderr);
  return { ...c, movers: [...doc.diff.packageMovers, ...doc.diff.moduleMovers].map((m) => m.name || m.file) };
}

const shown = (c) => `${c.verdict} ${c.actual} [${c.low}, ${c.high}] ms, tolerance ${c.limit} ms${c.movers.length ? `, movers ${c.movers.join(' ')}` : ''}`;

test('two busy loops: the app against itself never fails and lists a mover at most once in six checks; 50 ms more fails', async (t) => {
  if (!unlessFast(t, 'minutes of a loaded machine')) return;
  // The verdicts and the run-queue reading are Node's alike: two minutes of busy loops once in CI.
  if (!onBenchmarkNode(t, 'check\'s verdicts under two busy loops (no Node changes them)')) return;
  const dir = app();
  const seen = [];
  const busy = await startBusyLoops(2);
  try {
    // Movers are selected at a false discovery rate of 1% per check: one check of six may list one
    // by chance (about 6%), two or more would be 0.15%.
    let withMovers = 0;
    for (let i = 0; i < SAME_CHECKS; i++) {
      const same = baselineCheck(await runCli(['check', ...RUNS, '--baseline-cmd', 'node main.js', '--json', '--', 'node', 'main.js'], { cwd: dir }));
      seen.push(`same: ${shown(same)}`);
      assert.notStrictEqual(same.verdict, 'fail', `the unchanged app failed:\n${seen.join('\n')}`);
      if (same.movers.length) withMovers++;
      assert.ok(withMovers <= 1, `the unchanged app listed movers in ${withMovers} checks:\n${seen.join('\n')}`);
    }
    for (let i = 0; i < GROWN_CHECKS; i++) {
      const grown = baselineCheck(await runCli(['check', ...GROWN_RUNS, '--baseline-cmd', 'node main.js', '--json', '--', 'node', 'grown.js'], { cwd: dir }));
      seen.push(`+50 ms: ${shown(grown)}`);
      assert.strictEqual(grown.verdict, 'fail', `the app with 50 ms more work did not fail:\n${seen.join('\n')}`);
    }
    t.diagnostic(seen.join('\n'));
  } finally {
    await busy.stop();
    rm(dir);
  }
});

test('a baseline recorded idle, checks under two busy loops: the unchanged app never fails, 50 ms more never passes, the machine change is said', async (t) => {
  if (!unlessFast(t, 'minutes of a loaded machine')) return;
  // The verdicts and the run-queue reading are Node's alike: two minutes of busy loops once in CI.
  if (!onBenchmarkNode(t, 'check\'s verdicts under two busy loops (no Node changes them)')) return;
  const dir = app();
  const seen = [];
  let busy = null;
  try {
    const record = await runCli(['check', '-n', '12', '--update-baseline', '--json', '--', 'node', 'main.js'], { cwd: dir });
    assert.strictEqual(record.code, 0, record.stderr);
    assert.strictEqual(JSON.parse(record.stdout).control.samples.length, 12);
    busy = await startBusyLoops(2);
    const check = (entry) => runCli(['check', ...RUNS, '--json', '--', 'node', entry], { cwd: dir });
    for (let i = 0; i < 2; i++) {
      const same = baselineCheck(await check('main.js'));
      seen.push(`same: ${shown(same)}; control ${same.control.before} -> ${same.control.after} ms (${same.control.moved})`);
      assert.strictEqual(same.method, 'control');
      assert.notStrictEqual(same.verdict, 'fail', `the unchanged app failed:\n${seen.join('\n')}`);
    }
    // The grown app is another entry file: the saved baseline is main.js's, compared as the app.
    fs.writeFileSync(path.join(dir, 'main.js'), fs.readFileSync(path.join(dir, 'grown.js')));
    for (let i = 0; i < GROWN_CHECKS; i++) {
      const grown = baselineCheck(await check('main.js'));
      seen.push(`+50 ms: ${shown(grown)}; control ${grown.control.before} -> ${grown.control.after} ms (${grown.control.moved})`);
      assert.notStrictEqual(grown.verdict, 'pass', `the app with 50 ms more work passed:\n${seen.join('\n')}`);
      assert.match(grown.message, /less waiting for a CPU/, 'judged less the wait, as the baseline recorded it');
      if (grown.control.moved === 'slower') assert.match(grown.message, /the machine changed/);
    }
    t.diagnostic(seen.join('\n'));
  } finally {
    if (busy) await busy.stop();
    rm(dir);
  }
});
