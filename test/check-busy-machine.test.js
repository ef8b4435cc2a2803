'use strict';
// A baseline recorded on a quiet machine and checks on a busy one: the machine alone must not fail
// an unchanged app, and 50 ms more of the app's own work must fail it every time.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const os = require('os');
const { runCli, rm } = require('./helpers/app.js');
const { cpuWorkModule } = require('./helpers/cpu-work.js');

// Six checks of the unchanged app, four of the grown one: each check is 2n + 5 starts of Node on a
// loaded machine, and the file must stay bounded.
const SAME_CHECKS = 6;
const GROWN_CHECKS = 4;
// Runs per check: the baseline is recorded once, with more runs (its spread counts in every
// comparison); the unchanged app only has to stay out of "fail"; the grown app needs a narrow
// interval, and when its interval is too wide to decide the check says to run more: the test
// follows that advice once, as a user would.
const BASELINE_RUNS = '30';
const SAME_RUNS = '4';
const GROWN_RUNS = '20';
const GROWN_MORE_RUNS = '40';

/** A figure of the baseline check line, from --json. */
function baselineCheck(r) {
  const doc = JSON.parse(r.stdout);
  const c = doc.checks.find((x) => x.name === 'baseline');
  assert.ok(c, r.stdout + r.stderr);
  assert.strictEqual(c.method, 'floor', 'both sides measured the machine floor');
  // The exit code follows from the interval and the tolerance, nothing else.
  const expected = c.low > c.limit ? 'fail' : c.high <= c.limit ? 'pass' : 'undecided';
  assert.strictEqual(c.verdict, expected, JSON.stringify(c));
  assert.strictEqual(r.code, expected === 'fail' ? 1 : 0, r.stderr);
  return c;
}

test('baseline recorded idle, checks with a busy loop on one core: the unchanged app never fails, 50 ms more work always does', async (t) => {
  // A tiny app: an http server, nothing else.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-busy-'));
  const server = path.join(dir, 'server.js');
  const plain = "'use strict';\nrequire('http').createServer((req, res) => res.end('ok')).listen(0);\n";
  fs.writeFileSync(server, plain);
  fs.writeFileSync(path.join(dir, 'work.js'), cpuWorkModule(50));
  let busy = null;
  const seen = [];
  try {
    const check = (runs) => runCli(['check', '-n', runs, '--json', '--', 'node', 'server.js'], { cwd: dir });
    const record = await runCli(['check', '-n', BASELINE_RUNS, '--update-baseline', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(record.code, 0, record.stderr);
    assert.strictEqual(JSON.parse(record.stdout).control.samples.length, Number(BASELINE_RUNS));

    busy = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
    const shown = (c) => `${c.verdict} ${c.actual} [${c.low}, ${c.high}] floor ${c.floorAfter} ms`;
    for (let i = 0; i < SAME_CHECKS; i++) {
      fs.writeFileSync(server, plain);
      const same = baselineCheck(await check(SAME_RUNS));
      seen.push(`same: ${shown(same)} (tolerance ${same.limit} ms, baseline floor ${same.floorBefore} ms)`);
      assert.notStrictEqual(same.verdict, 'fail', `the unchanged app failed:\n${seen.join('\n')}`);
    }
    fs.writeFileSync(server, `require('./work.js');\n${plain}`);
    for (let i = 0; i < GROWN_CHECKS; i++) {
      let grown = baselineCheck(await check(GROWN_RUNS));
      let line = `+50 ms: ${shown(grown)}`;
      if (grown.verdict === 'undecided') {
        grown = baselineCheck(await check(GROWN_MORE_RUNS));
        line += `, with -n ${GROWN_MORE_RUNS}: ${shown(grown)}`;
      }
      seen.push(line);
      assert.strictEqual(grown.verdict, 'fail', `the app with 50 ms more work did not fail:\n${seen.join('\n')}`);
    }
    t.diagnostic(seen.join('\n'));
  } finally {
    if (busy) busy.kill('SIGKILL');
    rm(dir);
  }
});
