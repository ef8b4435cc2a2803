'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { copyFixture, runCli, rm } = require('./helpers/app.js');

test('an ESM app with top-level await: modules timed, files listed', async () => {
  const dir = copyFixture('esm-app');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', 'index.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    const byFile = new Map(report.modules.map((m) => [m.file, m]));
    for (const f of ['index.js', 'lib/greeting.js', 'lib/settings.js']) {
      assert.ok(byFile.has(f), `${f} recorded`);
      assert.strictEqual(byFile.get(f).kind, 'esm');
    }
    assert.strictEqual(byFile.get('lib/greeting.js').parent, 'index.js');
    const index = byFile.get('index.js');
    assert.ok(index.inclusiveMs >= byFile.get('lib/settings.js').inclusiveMs);
    const fs = require('fs');
    const list = fs.readFileSync(`${dir}/.coldstart/startup-files.txt`, 'utf8').trim().split('\n');
    for (const f of ['index.js', 'lib/greeting.js', 'lib/settings.js', 'settings.json', 'package.json']) assert.ok(list.includes(f), f);
  } finally {
    rm(dir);
  }
});

test('a --require preload is profiled from its first line', async () => {
  const dir = copyFixture('preload-app');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', '--require', './tracing.js', 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    const files = report.modules.map((m) => m.file);
    assert.ok(files.includes('tracing.js') && files.includes('server.js'));
    assert.ok(files.indexOf('tracing.js') < files.indexOf('server.js'), 'the preload loads first');
    assert.ok(files.includes('tracing-config.json'));
  } finally {
    rm(dir);
  }
});
