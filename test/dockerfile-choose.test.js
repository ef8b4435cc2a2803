'use strict';
// coldstart dockerfile --choose: both starts coldstart writes (the modules, the ncc bundle) made
// here, each proven to answer as plain node does, timed alternated beside plain node, Node's
// compile cache and the bundle with it; the Dockerfile of the faster proven one is written, and
// a start that answers otherwise is never chosen and says why.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { decide } = require('../lib/dockerfile/choose-start.js');

let dir;
test.before(() => { dir = copyFixture('bundle-answers'); });
test.after(() => rm(dir));

test('a bundle that answers otherwise is never chosen: both bundle starts say why, the modules are written', async () => {
  // GET /file: where lib/greeting.js is, by its __filename: inside a bundle there is no such file.
  const r = await runCli(['dockerfile', '--choose', '--json', '--runs', '2', '--request', 'GET /file', '--out', 'Dockerfile'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const { choice } = JSON.parse(r.stdout);
  assert.equal(choice.chosen, 'modules');
  assert.deepEqual(choice.rows.map((row) => row.name), ['plain', 'compile-cache', 'bundle-compile-cache', 'start', 'bundle-start']);
  const row = (name) => choice.rows.find((x) => x.name === name);
  for (const name of ['bundle-compile-cache', 'bundle-start']) {
    assert.equal(row(name).proven, false, name);
    assert.match(row(name).problem, /^it does not answer as plain node does: GET \/file answered a different body$/, name);
  }
  assert.equal(row('start').proven, true, 'coldstart start of the modules answers as plain node');
  assert.equal(row('start').samples.length, 2);
  assert.deepEqual(choice.requests, [{ method: 'GET', path: '/file', status: 200 }]);
  const text = fs.readFileSync(path.join(dir, 'Dockerfile'), 'utf8');
  assert.match(text, /^RUN node node_modules\/coldstart\/bin\/coldstart\.js pack --code-cache --out \/startup\.tar -- node server\.js$/m);
  assert.doesNotMatch(text, / bundle /, 'not the bundle Dockerfile');
});

test('the printed table: every start with its median, its factor to plain and its answer; the chosen one marked', async () => {
  const r = await runCli(['dockerfile', '--choose', '--runs', '2', '--out', 'Dockerfile.text'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Chosen: coldstart start of the (modules|ncc bundle) \(2 starts each, alternated, on this machine; asked GET \/ 200\)$/m);
  for (const label of ['plain node', "Node's compile cache alone", "ncc bundle \\+ Node's compile cache", 'coldstart start of the modules \\(the default Dockerfile\\)', 'coldstart start of the ncc bundle \\(the --bundle Dockerfile\\)']) {
    assert.match(r.stdout, new RegExp(`^ {2}[> ] {2}${label} +\\S+ ms \\[\\S+–\\S+\\] +\\d\\.\\d\\d`, 'm'), label);
  }
  assert.equal((r.stdout.match(/^ {2}> /gm) || []).length, 1, 'one start chosen');
});

test('decide: the faster proven start coldstart writes; within the noise, the modules; none proven, none', () => {
  const runs = (ms) => Array.from({ length: 8 }, (_, i) => ms + i);
  const reference = [{ method: 'GET', path: '/', status: 200, body: 'x', error: null }];
  const all = { plain: runs(600), 'compile-cache': runs(580), 'bundle-compile-cache': runs(300), start: runs(400), 'bundle-start': runs(250) };
  const faster = decide({ samples: all, problems: {}, runs: 8, reference });
  assert.equal(faster.chosen, 'bundle');
  assert.equal(faster.noise, false);
  assert.equal(faster.versusBest.name, 'bundle-compile-cache');
  assert.equal(faster.versusBest.comparison.verdict, 'faster');
  // The bundle a millisecond faster by its median, within the noise: the modules.
  const close = decide({ samples: { ...all, 'bundle-start': runs(399) }, problems: {}, runs: 8, reference });
  assert.equal(close.chosen, 'modules');
  assert.equal(close.noise, true);
  const unproven = decide({ samples: all, problems: { start: 'it does not answer as plain node does', 'bundle-start': 'no bundle' }, runs: 8, reference });
  assert.equal(unproven.chosen, null);
});

test('--choose needs --out and takes no other way to start: one line, exit 2', async () => {
  for (const [flags, message] of [
    [['--choose'], /^coldstart: --choose writes the Dockerfile it chose: give --out, e.g. --out Dockerfile$/],
    [['--choose', '--bundle', '--out', 'D'], /^coldstart: --choose with --bundle: --choose picks the way to start; leave out one of them$/],
  ]) {
    const r = await runCli(['dockerfile', ...flags], { cwd: dir });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr.trim(), message);
  }
});
