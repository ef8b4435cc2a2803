'use strict';
// coldstart diff on real profiles: two runs of the same app name no mover; sets of runs before and
// after an app gained a 50 ms module name that module and its package, with their intervals.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { fastSkips } = require('./helpers/suite.js');

const MANY_RUNS = fastSkips('many timed runs of an app');

const profile = async (dir, out, entry) => {
  const r = await runCli(['profile', '-q', '--out', out, '--', 'node', entry], { cwd: dir });
  assert.strictEqual(r.code, 0, r.stderr);
};

test('diff of two profiles of the same express app: no mover beyond noise, and it says single runs were compared', MANY_RUNS, async () => {
  const dir = copyFixture('express-app');
  try {
    await profile(dir, 'a', 'server.js');
    await profile(dir, 'b', 'server.js');
    const json = await runCli(['diff', 'a', 'b', '--json'], { cwd: dir });
    assert.strictEqual(json.code, 0, json.stderr);
    const doc = JSON.parse(json.stdout);
    assert.strictEqual(doc.method, 'single');
    assert.deepStrictEqual(doc.packageMovers, [], JSON.stringify(doc.packageMovers));
    assert.deepStrictEqual(doc.moduleMovers, [], JSON.stringify(doc.moduleMovers));
    assert.ok(doc.readyAt.band > 0);
    const text = await runCli(['diff', 'a', 'b'], { cwd: dir });
    assert.doesNotMatch(text.stdout, /Biggest movers/);
    // On a busy machine a single pair cannot tell; either way it never calls the same app slower or faster.
    assert.match(text.stdout, /time to ready: (no change beyond the spread of single runs|cannot tell from single runs: the machine was busy)/);
    assert.ok(['noise', 'cannot tell'].includes(doc.readyAt.verdict), doc.readyAt.verdict);
    assert.match(text.stdout, /Single runs compared: .*coldstart diff a1\.json \.\.\. a6\.json -- /);
  } finally {
    rm(dir);
  }
});

test('diff of sets of runs of an app before and after a 50 ms module: that module and its package are the movers', MANY_RUNS, async () => {
  const dir = copyFixture('slow-require');
  try {
    const server = fs.readFileSync(path.join(dir, 'server.js'), 'utf8');
    // The app before the module: server.js without its require of slow.js.
    const without = server.split('\n').filter((l) => !l.includes("require('./slow.js')")).join('\n').replace('${slow.spun}', 'ok');
    fs.writeFileSync(path.join(dir, 'app.js'), without);
    fs.writeFileSync(path.join(dir, 'app-slow.js'), server);
    // Six runs a side: the fewest that single out one of three modules at a 1% false discovery rate.
    for (let i = 0; i < 6; i++) {
      await profile(dir, path.join('before', String(i)), 'app.js');
      await profile(dir, path.join('after', String(i)), 'app-slow.js');
    }
    const r = await runCli(['diff', 'before', 'after', '--json'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepStrictEqual([doc.method, doc.runs], ['runs', { before: 6, after: 6 }]);
    const slow = doc.moduleMovers.find((m) => m.file === 'slow.js');
    assert.ok(slow, `slow.js is a mover: ${JSON.stringify(doc.moduleMovers)}`);
    assert.deepStrictEqual([slow.status, slow.verdict], ['added', 'slower']);
    assert.ok(slow.low > 0 && slow.low <= slow.delta && slow.delta <= slow.high, JSON.stringify(slow));
    assert.deepStrictEqual(doc.packageMovers.map((p) => [p.name, p.verdict]), [['(app)', 'slower']]);
    // Nothing else grew: the entry files differ by name only, and nothing else was loaded.
    assert.deepStrictEqual(doc.moduleMovers.filter((m) => m.status === 'changed'), []);
  } finally {
    rm(dir);
  }
});
