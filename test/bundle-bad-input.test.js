'use strict';
// Expected failures of `coldstart bundle` end with one clear coldstart line and a non-zero exit.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');

function assertFailure(result, code, pattern) {
  assert.equal(result.code, code, result.stderr);
  const lines = result.stderr.trim().split('\n');
  const ours = lines.filter((l) => l.startsWith('coldstart:'));
  assert.equal(ours.length, 1, `exactly one coldstart line: ${result.stderr}`);
  assert.equal(lines[lines.length - 1], ours[0], 'it is the last line');
  assert.match(ours[0], pattern);
  assert.equal(result.stdout.includes('{'), false, 'no JSON document on failure');
}

/** A throwaway app: files given as { 'rel/path': 'content' }. */
function writeApp(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bundle-bad-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** Nothing left beside the app: no bundle, no temp directory. */
function assertNothingWritten(dir) {
  assert.deepEqual(fs.readdirSync(dir).filter((n) => n.includes('dist-bundle')), []);
}

const LISTEN = "require('http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', () => console.log('up'));\n";

test('not a node command, or no entry', async () => {
  assertFailure(await runCli(['bundle', '--', 'npm', 'start']), 2, /bundle needs a node command with an entry file/);
  assertFailure(await runCli(['bundle', '--', 'node', '-e', '1']), 2, /needs an entry file/);
  assertFailure(await runCli(['bundle']), 2, /missing app command/);
});

test('entry file not found', async () => {
  const dir = copyFixture('plain-http');
  try {
    assertFailure(await runCli(['bundle', '--', 'node', 'nope.js'], { cwd: dir }), 2, /entry file not found: nope\.js/);
    assertNothingWritten(dir);
  } finally { rm(dir); }
});

test('app that fails to start: its error, nothing bundled', async () => {
  const dir = copyFixture('crash-before-listen');
  try {
    const r = await runCli(['bundle', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assertFailure(r, 1, /failed before listening \(exit code 1\): Error: DATABASE_URL is not set/);
    assertNothingWritten(dir);
  } finally { rm(dir); }
});

test('ncc build error (a file required later does not parse): one line naming it, nothing written', async () => {
  const dir = writeApp({
    'server.js': `const later = () => require('./broken.js');\n${LISTEN}`,
    'broken.js': 'module.exports = { a: 1,, };\n',
  });
  try {
    const r = await runCli(['bundle', '--', 'node', 'server.js'], { cwd: dir });
    assertFailure(r, 1, /ncc could not bundle server\.js: Module parse failed: .*module\.exports = \{ a: 1,, \}/);
    assertNothingWritten(dir);
  } finally { rm(dir); }
});

test('bundle that does not reach its ready moment fails loudly', async () => {
  // A package required by a computed name: without automatic externals it is neither in the
  // bundle nor in its node_modules, so the bundle crashes where the original starts.
  const dir = writeApp({
    'server.js': `require(process.env.PLUGIN || 'plugin-a');\n${LISTEN}`,
    'node_modules/plugin-a/package.json': '{ "name": "plugin-a", "version": "1.0.0" }',
    'node_modules/plugin-a/index.js': 'module.exports = 1;\n',
  });
  try {
    const r = await runCli(['bundle', '--no-auto-external', '--runs', '1', '--', 'node', 'server.js'], { cwd: dir, env: { PLUGIN: 'plugin-a' } });
    assertFailure(r, 1, /the bundle did not reach its ready moment: the app failed before listening \(exit code 1\): Error: Cannot find module 'plugin-a'.*left in dist-bundle/);

    // With automatic externals the same app bundles and starts.
    const ok = await runCli(['bundle', '--json', '--runs', '1', '--', 'node', 'server.js'], { cwd: dir, env: { PLUGIN: 'plugin-a' } });
    assert.equal(ok.code, 0, ok.stderr);
    const plugin = JSON.parse(ok.stdout).externals.find((e) => e.name === 'plugin-a');
    assert.deepEqual(plugin.reasons.map((x) => x.code), ['DYNAMIC_REQUIRE']);
  } finally { rm(dir); }
});

test('--out that holds something else, and bad --external names', async () => {
  const dir = writeApp({ 'server.js': LISTEN, 'package.json': '{ "name": "x" }', 'dist-bundle/keep.txt': 'mine' });
  try {
    assertFailure(await runCli(['bundle', '--', 'node', 'server.js'], { cwd: dir }), 2, /--out .*dist-bundle exists and holds something else/);
    assert.equal(fs.readFileSync(path.join(dir, 'dist-bundle', 'keep.txt'), 'utf8'), 'mine');
    assertFailure(await runCli(['bundle', '--out', '.', '--', 'node', 'server.js'], { cwd: dir }), 2, /contains the app itself/);
    assertFailure(await runCli(['bundle', '--out', 'b', '--external', 'http', '--', 'node', 'server.js'], { cwd: dir }), 2, /a Node built-in is never bundled/);
    assertFailure(await runCli(['bundle', '--out', 'b', '--external', 'left-pad', '--', 'node', 'server.js'], { cwd: dir }), 2, /--external left-pad: not installed/);
  } finally { rm(dir); }
});
