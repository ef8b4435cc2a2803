'use strict';
// profile() of the programmatic API is the engine `coldstart profile` runs: on one app, with the
// same runs, it resolves to the report `coldstart profile --json` prints (the same fields, the
// runs and the machine's floor, the same modules), writing its artifacts only when given outDir.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');
const { profile } = require('../lib/index.js');

test('profile() resolves to what coldstart profile --json prints; artifacts only with outDir', { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-api-profile-'));
  try {
    fs.writeFileSync(path.join(dir, 'main.js'), "require('./lib.js');\nrequire('http').createServer((req, res) => res.end('ok')).listen(0);\n");
    fs.writeFileSync(path.join(dir, 'lib.js'), 'module.exports = 1;\n');
    const cli = await runCli(['profile', '--runs', '2', '--out', 'cli-out', '--json', '--', 'node', 'main.js'], { cwd: dir });
    assert.strictEqual(cli.code, 0, cli.stderr);
    const fromCli = JSON.parse(cli.stdout);
    const { report: fromApi, profile: cpu } = await profile({ command: ['node', 'main.js'], cwd: dir, runs: 2 });

    assert.deepStrictEqual(Object.keys(fromApi).sort(), Object.keys(fromCli).sort());
    assert.deepStrictEqual(fromApi.artifacts, {}, 'no artifacts without outDir');
    assert.deepStrictEqual([fromApi.until, fromApi.answer.status], [fromCli.until, fromCli.answer.status], 'ready at the first answer, as the CLI');
    assert.deepStrictEqual(Object.keys(fromApi.runs).sort(), Object.keys(fromCli.runs).sort());
    assert.deepStrictEqual([fromApi.runs.count, fromApi.runs.asked], [2, 2]);
    assert.strictEqual(typeof fromApi.machine.floorMs, 'number', "the machine's floor, as the CLI reports it");
    assert.strictEqual(typeof fromCli.machine.floorMs, 'number');
    const own = (report) => report.modules.filter((m) => !m.package).map((m) => path.basename(m.file || m.path || m.id)).sort();
    assert.deepStrictEqual(own(fromApi), own(fromCli));
    assert.ok(cpu && Array.isArray(cpu.nodes), 'the raw CPU profile');
    assert.deepStrictEqual(fs.readdirSync(dir).sort(), ['cli-out', 'lib.js', 'main.js'], 'nothing written without outDir');

    const written = await profile({ command: ['node', 'main.js'], cwd: dir, outDir: 'api-out' });
    assert.deepStrictEqual(Object.keys(written.report.artifacts).sort(), Object.keys(fromCli.artifacts).sort());
    assert.deepStrictEqual(fs.readdirSync(path.join(dir, 'api-out')).sort(), fs.readdirSync(path.join(dir, 'cli-out')).sort());
  } finally {
    rm(dir);
  }
});
