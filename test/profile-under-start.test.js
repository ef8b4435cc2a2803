'use strict';
// A profile of an app served by `coldstart start` (what profile --docker sees of an image built from
// coldstart's own Dockerfile): coldstart is invisible (no module, package, advice line or profile
// frame of its own) and the advice knows what the start already does (code cache, --trust-archive).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { copyFixture, runCli, rm, REPO } = require('./helpers/app.js');
const { containerAdvice } = require('../lib/analyze/container-advice.js');

const COLDSTART = path.join(REPO, 'bin', 'coldstart.js');
const own = (s) => /\/(lib|bin)\/[\w/-]+\.c?js/.test(s) && (s.includes(REPO) || s.includes('coldstart'));

test('profile of an app under coldstart start with a code cache and --trust-archive', async () => {
  const dir = copyFixture('busy-machine');
  try {
    const packed = await runCli(['pack', '--code-cache', '--out', 'startup.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const r = await runCli(['profile', '--json', '--out', 'out', '--', 'node', COLDSTART, 'start', '--archive', 'startup.tar', '--trust-archive', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.strictEqual(report.served.mode, 'memory');
    assert.strictEqual(report.served.verify, 'none');
    assert.ok(report.served.codeCacheModules > 0, JSON.stringify(report.served));

    assert.deepStrictEqual(report.modules.map((m) => m.file).sort(), ['busy.js', 'one.js', 'server.js'], 'the app\'s modules only');
    assert.ok(!report.packages.some((p) => p.name === 'coldstart' || own(p.name)), JSON.stringify(report.packages.map((p) => p.name)));
    for (const a of report.advice) assert.ok(!own(a.file || '') && !(a.chain || []).some(own), JSON.stringify(a));

    const frames = (name) => JSON.parse(fs.readFileSync(path.join(dir, 'out', name), 'utf8')).nodes.map((n) => n.callFrame.url);
    assert.ok(frames('startup.raw.cpuprofile').some(own), 'the raw profile keeps coldstart\'s frames');
    assert.ok(!frames('startup.cpuprofile').some(own), 'the profile to open has none');

    // As profile --docker would judge it: nothing to advise that the image already does.
    const inContainer = { ...report, container: { image: 'svc', runtime: 'runsc' }, startVerifyMs: 50, categories: { ...report.categories, compile: report.categories.totalMs } };
    assert.deepStrictEqual(containerAdvice(inContainer), []);
  } finally {
    rm(dir);
  }
});

test('profile of an ES module app under start\'s preload (NODE_OPTIONS, as a Lambda image runs it) lists every ES module', async () => {
  const dir = copyFixture('esm-app');
  try {
    const packed = await runCli(['pack', '--out', 'startup.tar', '--', 'node', 'index.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const plain = await runCli(['profile', '--json', '--out', 'plain', '--', 'node', 'index.js'], { cwd: dir });
    assert.strictEqual(plain.code, 0, plain.stderr);
    const env = { NODE_OPTIONS: `--require ${path.join(REPO, 'start.js')}`, COLDSTART_ARCHIVE: path.join(dir, 'startup.tar') };
    const r = await runCli(['profile', '--json', '--out', 'out', '--', 'node', 'index.js'], { cwd: dir, env });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    // Node 22.15+ serves them from memory through its own module hooks, which run before the profile's.
    if (typeof require('node:module').registerHooks === 'function') assert.ok(report.served && report.served.mode === 'memory', JSON.stringify(report.served));
    const esm = (rep) => rep.modules.filter((m) => m.kind === 'esm').map((m) => m.file).sort();
    const unserved = esm(JSON.parse(plain.stdout));
    assert.ok(unserved.length >= 3, unserved.join(' '));
    assert.deepStrictEqual(esm(report), unserved, 'the same ES modules as without the preload');
    assert.ok(!report.packages.some((p) => p.name === 'coldstart' || own(p.name)), JSON.stringify(report.packages.map((p) => p.name)));
  } finally {
    rm(dir);
  }
});
