'use strict';
// bundle's proof that the bundle answers as the app does: the status and body of GET / (or of each
// --request) from the app's first two starts and the bundle's first. A body that differs between
// two starts of the app itself is compared by status only, and the summary says so.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');

let dir;
test.before(() => { dir = copyFixture('bundle-answers'); });
test.after(() => rm(dir));

test('a bundle that answers as the app does: GET / by status and body, a body that changes at every start by status only', async () => {
  const r = await runCli(['bundle', '--json', '--runs', '2', '--request', 'GET /', '--request', 'GET /time', '--out', 'dist-same', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const { answers } = JSON.parse(r.stdout);
  assert.deepEqual(answers.requests, [{ method: 'GET', path: '/', status: 200 }, { method: 'GET', path: '/time', status: 200 }]);
  assert.deepEqual(answers.statusOnly, ['GET /time']);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'dist-same', '.coldstart-bundle.json'), 'utf8'));
  assert.deepEqual(manifest.verify.answers, answers, 'the bundle directory records what was proven');
});

test('a bundle whose answer differs (require.cache holds one module where the app has two) is refused: one line, exit 1, the bundle left to inspect', async () => {
  const r = await runCli(['bundle', '--runs', '2', '--request', 'GET /modules', '--out', 'dist-differs', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 1, r.stdout);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /^coldstart: the bundle does not answer as the app does: GET \/modules answered a different body \(the bundle is left in dist-differs to inspect\)$/);
});

test('the default request is GET /, and a 404 the app gives is the answer the bundle must give', async () => {
  const r = await runCli(['bundle', '--json', '--runs', '1', '--request', 'GET /nowhere', '--out', 'dist-404', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).answers.requests, [{ method: 'GET', path: '/nowhere', status: 404 }]);
  const plain = await runCli(['bundle', '--json', '--runs', '1', '--out', 'dist-default', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(JSON.parse(plain.stdout).answers, { requests: [{ method: 'GET', path: '/', status: 200 }], statusOnly: [] });
});

test('--request with --no-verify is a usage error', async () => {
  const r = await runCli(['bundle', '--no-verify', '--request', 'GET /', '--out', 'dist-x', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^coldstart: --request is what the verification asks: not with --no-verify\n$/);
});
