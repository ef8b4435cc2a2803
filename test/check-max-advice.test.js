'use strict';
// check --budget advice=: CI fails when the avoidable startup work the advice finds (added up, in
// each of a few profiled runs) is over the limit, and names it.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { cpuWorkModule } = require('./helpers/cpu-work.js');
const { runCli, rm } = require('./helpers/app.js');
const { fastSkips } = require('./helpers/suite.js');

const MANY_RUNS = fastSkips('many timed runs of an app');

/** An app that requires a 60 ms module at top level that only a route uses (not GET /, its first answer). */
function makeApp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-max-advice-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"max-advice","private":true}\n');
  fs.writeFileSync(path.join(dir, 'heavy.js'), cpuWorkModule(60) + 'module.exports.work = function work() { return x; };\n');
  fs.writeFileSync(path.join(dir, 'server.js'), "'use strict';\nconst heavy = require('./heavy');\n" +
    "require('http').createServer((req, res) => res.end(req.url === '/heavy' ? String(heavy.work()) : 'ok')).listen(0);\n");
  return dir;
}

test('check --budget advice=: fails when every profiled run finds more avoidable work than allowed, naming it; passes under a high limit', MANY_RUNS, async () => {
  const dir = makeApp();
  try {
    const over = await runCli(['check', '-n', '2', '--budget', 'advice=10ms', '--json', '--', process.execPath, 'server.js'], { cwd: dir });
    assert.strictEqual(over.code, 1, over.stderr);
    const failed = JSON.parse(over.stdout);
    const check = failed.checks.find((c) => c.name === 'max-advice');
    assert.strictEqual(check.verdict, 'fail', check.message);
    assert.ok(check.low > 10 && check.findings.some((a) => a.kind === 'lazy-load' && a.subject === 'heavy.js'), JSON.stringify(check));
    assert.match(check.message, /avoidable startup work [\d.]+ ms \([\d.]+–[\d.]+ over 3 profiled runs\) is over the advice budget of 10(\.0)? ms: load heavy\.js lazily \(server\.js:2\)/);

    const within = await runCli(['check', '-n', '2', '--budget', 'advice=60s', '--', process.execPath, 'server.js'], { cwd: dir });
    assert.strictEqual(within.code, 0, within.stdout + within.stderr);
    assert.match(within.stdout, /pass +avoidable startup work [\d.]+ ms .* is within the advice budget of 60000 ms/);

    const bad = await runCli(['check', '--budget', 'advice=lots', '--', process.execPath, 'server.js'], { cwd: dir });
    assert.strictEqual(bad.code, 2);
    assert.match(bad.stderr, /invalid --budget "advice=lots"/);
  } finally {
    rm(dir);
  }
});
