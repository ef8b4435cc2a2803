'use strict';
// pack(), bench() and bundle() of the programmatic API are the engines `coldstart pack`, `bench` and
// `bundle` run: on one app they resolve to the documents the commands print with --json (the
// times themselves are of other runs), and print nothing.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');
const { fastSkips } = require('./helpers/suite.js');
const coldstart = require('../lib/index.js');

function smallServer() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-api-engines-')));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "api-engines-app", "private": true }\n');
  fs.writeFileSync(path.join(dir, 'lib.js'), "module.exports = 'ok';\n");
  fs.writeFileSync(path.join(dir, 'main.js'), "const body = require('./lib.js');\nrequire('http').createServer((req, res) => res.end(body)).listen(0);\n");
  return dir;
}

/** The keys of a document and of each object in it, two levels down: its shape, not its values. */
function shape(doc) {
  return Object.fromEntries(Object.keys(doc).sort().map((key) => {
    const value = doc[key];
    return [key, value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).sort() : typeof value];
  }));
}

test('pack() resolves to what coldstart pack --json prints, and writes the same archive', { timeout: 120_000 }, async () => {
  const dir = smallServer();
  try {
    const cli = await runCli(['pack', '--json', '--out', 'cli.tar', '--', 'node', 'main.js'], { cwd: dir });
    assert.strictEqual(cli.code, 0, cli.stderr);
    const fromCli = JSON.parse(cli.stdout);
    const fromApi = await coldstart.pack({ command: ['node', 'main.js'], cwd: dir, out: 'api.tar' });
    assert.deepStrictEqual(shape(fromApi), shape(fromCli));
    for (const key of ['root', 'files', 'bytes', 'codeCache', 'snapshot']) assert.deepStrictEqual(fromApi[key], fromCli[key], key);
    assert.strictEqual(fromApi.archive, path.join(dir, 'api.tar'));
    assert.ok(fromApi.check && fromApi.check.readyAt > 0, `started from the archive alone: ${JSON.stringify(fromApi.check)}`);
    // Deterministic: the same files give the same bytes, whichever way pack was called.
    assert.ok(fs.readFileSync(path.join(dir, 'api.tar')).equals(fs.readFileSync(path.join(dir, 'cli.tar'))), 'the same archive');
  } finally {
    rm(dir);
  }
});

test('bench() resolves to what coldstart bench --json prints: the same series and comparisons', { timeout: 120_000 }, async () => {
  const dir = smallServer();
  try {
    fs.writeFileSync(path.join(dir, 'other.js'), "require('./lib.js');\n");
    const cli = await runCli(['bench', '-n', '3', '--json', '--until', 'exit', '--compare', 'node lib.js', 'node other.js'], { cwd: dir });
    assert.strictEqual(cli.code, 0, cli.stderr);
    const fromCli = JSON.parse(cli.stdout);
    const fromApi = await coldstart.bench({ commands: [['node', 'lib.js'], ['node', 'other.js']], cwd: dir, runs: 3, until: 'exit' });
    assert.deepStrictEqual(shape(fromApi), shape(fromCli));
    const runs = (doc) => doc.series.map((s) => [s.label, s.stats.inside.n]);
    assert.deepStrictEqual(runs(fromApi), runs(fromCli));
    assert.deepStrictEqual(runs(fromApi).map(([, n]) => n), [3, 3]);
    assert.deepStrictEqual(fromApi.comparisons.map((c) => Object.keys(c).sort()), fromCli.comparisons.map((c) => Object.keys(c).sort()));
  } finally {
    rm(dir);
  }
});

test('bundle() resolves to what coldstart bundle --json prints', { timeout: 300_000, ...fastSkips('ncc bundles') }, async () => {
  const dir = smallServer();
  try {
    const cli = await runCli(['bundle', '--json', '--runs', '3', '--out', 'cli-bundle', '--', 'node', 'main.js'], { cwd: dir });
    assert.strictEqual(cli.code, 0, cli.stderr);
    const fromCli = JSON.parse(cli.stdout);
    const fromApi = await coldstart.bundle({ command: ['node', 'main.js'], cwd: dir, out: 'api-bundle', runs: 3 });
    assert.deepStrictEqual(shape(fromApi), shape(fromCli));
    assert.deepStrictEqual(fromApi.externals, fromCli.externals);
    assert.ok(fs.existsSync(path.join(dir, 'api-bundle', 'index.js')) || fs.readdirSync(path.join(dir, 'api-bundle')).length > 0, 'the bundle is written');
  } finally {
    rm(dir);
  }
});
