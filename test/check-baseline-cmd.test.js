'use strict';
// coldstart check --baseline-cmd: the baseline revision runs alternately with the app, on the same
// machine at the same time, and the two are compared run against run.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');
const { fastSkips } = require('./helpers/suite.js');

const MANY_RUNS = fastSkips('many timed runs of an app');

function app() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-baseline-cmd-'));
  const server = "require('http').createServer((req, res) => res.end('ok')).listen(0);\n";
  fs.writeFileSync(path.join(dir, 'main.js'), `'use strict';\n${server}`);
  fs.writeFileSync(path.join(dir, 'slow.js'), "'use strict';\n// Busy-waits 50 ms while being required.\nconst start = Date.now();\nwhile (Date.now() - start < 50);\n");
  fs.writeFileSync(path.join(dir, 'branch.js'), `'use strict';\nrequire('./slow.js');\n${server}`);
  return dir;
}

test('check --baseline-cmd: 50 ms more than the baseline command fails and names the module; the same app does not', MANY_RUNS, async () => {
  const dir = app();
  try {
    // A burst of load from elsewhere can leave even 30 runs a side inconclusive (never a pass): a
    // second, independent try then decides; a systematic error fails both.
    let grown;
    let doc;
    let c;
    const seen = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      grown = await runCli(['check', '-n', '10', '--baseline-cmd', 'node main.js', '--json', '--', 'node', 'branch.js'], { cwd: dir });
      doc = JSON.parse(grown.stdout);
      c = doc.checks[0];
      seen.push(JSON.stringify(c));
      assert.deepStrictEqual([c.name, c.method], ['baseline', 'alternated'], 'run for run: no control app needed');
      assert.strictEqual(c.verdict, c.low > c.limit ? 'fail' : c.high <= c.limit && (c.high < 0 || (c.high - c.low) / 2 <= c.minEffect) ? 'pass' : 'inconclusive', JSON.stringify(c));
      assert.notStrictEqual(c.verdict, 'pass', JSON.stringify(c));
      if (c.verdict === 'fail') break;
    }
    assert.strictEqual(c.verdict, 'fail', seen.join('\n'));
    assert.strictEqual(grown.code, 1, grown.stderr);
    assert.deepStrictEqual([doc.baselineCommand, doc.baseline, doc.command], ['node main.js', null, ['node', 'branch.js']]);
    assert.strictEqual(doc.control, null);
    assert.strictEqual(doc.diff.method, 'runs');
    assert.deepStrictEqual(doc.diff.moduleMovers.filter((m) => m.file === 'slow.js').map((m) => [m.status, m.verdict]), [['added', 'slower']]);
    assert.deepStrictEqual(fs.readdirSync(dir).sort(), ['branch.js', 'main.js', 'slow.js'], 'nothing written');

    const same = await runCli(['check', '-n', '6', '--baseline-cmd', 'node main.js', '--', 'node', 'main.js'], { cwd: dir });
    assert.ok([0, 3].includes(same.code), same.stdout + same.stderr);
    assert.match(same.stdout, /^coldstart check: node main\.js$/m);
    assert.match(same.stdout, /(pass|inconclusive) {2}time to ready( \(less waiting for a CPU\))? against the baseline command, run alternately: /);
    assert.match(same.stdout, /Against the baseline --baseline-cmd 'node main\.js'/);
  } finally {
    rm(dir);
  }
});

test('check --baseline-cmd: usage errors exit 2 with one coldstart: line', async () => {
  const dir = app();
  try {
    const cases = [
      [['--baseline-cmd', ''], /invalid --baseline-cmd "": give the start command of the baseline revision/],
      [['--baseline-cmd', 'node main.js', '--update-baseline'], /--baseline-cmd runs the baseline here and now/],
      [['--baseline-cmd', 'node main.js', '--baseline', 'b.json'], /give --baseline \(a saved baseline\) or --baseline-cmd/],
      [['--baseline-cmd', 'node main.js | tee log'], /invalid --baseline-cmd "node main\.js \| tee log": \| \(it needs a shell\)/],
      [['--baseline-cmd', "node 'main.js"], /an unclosed '/],
      [['--baseline-cmd', 'node ../main/server.js'], /entry file not found: \.\.\/main\/server\.js/],
    ];
    const missing = await runCli(['check', '--baseline-cmd', 'node main.js', '--', 'node', 'nope.js'], { cwd: dir });
    assert.deepStrictEqual([missing.code, missing.stderr], [2, `coldstart: entry file not found: nope.js (looked in ${dir})\n`]);
    for (const [flags, pattern] of cases) {
      const r = await runCli(['check', ...flags, '--', 'node', 'main.js'], { cwd: dir });
      assert.strictEqual(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
      assert.strictEqual(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^coldstart: /);
      assert.match(r.stderr, pattern);
      assert.strictEqual(r.stdout, '');
    }
  } finally {
    rm(dir);
  }
});
