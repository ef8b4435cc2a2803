'use strict';
// check() of the programmatic API is the engine `coldstart check` runs: on one app, with the same
// limits and baseline, it resolves to the document `coldstart check --json` prints, each check
// judged alike (the times themselves are of other runs).
const test = require('./helpers/suite.js').testLeftOutOfFast('many timed runs of an app');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');
const { check } = require('../lib/index.js');

test('check() resolves to what coldstart check --json prints: the same fields, checks and verdicts, nothing written', { timeout: 180_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-api-check-'));
  try {
    fs.writeFileSync(path.join(dir, 'main.js'), "require('./lib.js');\nrequire('http').createServer((req, res) => res.end('ok')).listen(0);\n");
    fs.writeFileSync(path.join(dir, 'lib.js'), 'module.exports = 1;\n');
    const recorded = await runCli(['check', '-n', '6', '--update-baseline', '--baseline', 'base.json', '--json', '--', 'node', 'main.js'], { cwd: dir });
    assert.strictEqual(recorded.code, 0, recorded.stderr);
    // Over the modules budget by one: a FAIL both must find, whatever the times.
    const limits = ['--budget', '60s,modules=1', '--baseline', 'base.json', '--tolerance', '50ms'];
    const cli = await runCli(['check', '-n', '6..6', ...limits, '--json', '--', 'node', 'main.js'], { cwd: dir });
    assert.strictEqual(cli.code, 1, cli.stderr);
    const fromCli = JSON.parse(cli.stdout);
    const fromApi = await check({ command: ['node', 'main.js'], cwd: dir, runs: 6, maxRuns: 6, budgetMs: 60_000, maxModules: 1, baseline: 'base.json', tolerance: '50ms' });

    assert.deepStrictEqual(Object.keys(fromApi).sort(), Object.keys(fromCli).sort());
    for (const key of ['ok', 'verdict', 'command', 'runs', 'modules', 'files', 'bytes', 'baseline', 'baselineCommand', 'baselineWritten', 'lessCpuWait']) {
      assert.deepStrictEqual(fromApi[key], fromCli[key], key);
    }
    assert.deepStrictEqual(fromApi.checks.map((c) => [c.name, c.limit]), fromCli.checks.map((c) => [c.name, c.limit]));
    const modules = (doc) => doc.checks.find((c) => c.name === 'max-modules');
    assert.deepStrictEqual([modules(fromApi).verdict, modules(fromApi).actual], ['fail', 2]);
    assert.deepStrictEqual([modules(fromCli).verdict, modules(fromCli).actual], ['fail', 2]);
    assert.strictEqual(fromApi.samples.length, 6);
    assert.strictEqual(fromApi.control.samples.length, 6, 'the control app ran alongside');
    assert.ok(fromApi.diff && fromApi.diff.readyAt, 'the diff against the baseline');
    assert.deepStrictEqual(fs.readdirSync(dir).sort(), ['base.json', 'lib.js', 'main.js'], 'the API writes nothing');
  } finally {
    rm(dir);
  }
});
