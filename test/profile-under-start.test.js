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
