'use strict';
// Garbage collection is shown apart from a module's own work: it falls on whichever module is
// loading when the heap fills up, so counting it as that module's self time misranks modules.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { gcByModule } = require('../lib/analyze/module-gc.js');
const { ms } = require('../lib/report/terminal-format.js');
const { runCli, rm } = require('./helpers/app.js');

/** A flat profile: one leaf per sample, `stepUs` apart from startTime 0. */
function flatProfile(leaves, stepUs = 1000) {
  const names = [...new Set(leaves)];
  const nodes = [{ id: 1, callFrame: { functionName: '(root)', url: '' }, children: names.map((_, i) => i + 2) }];
  names.forEach((name, i) => nodes.push({ id: i + 2, callFrame: { functionName: name, url: '' }, children: [] }));
  return {
    nodes,
    startTime: 0,
    endTime: leaves.length * stepUs,
    samples: leaves.map((name) => names.indexOf(name) + 2),
    timeDeltas: leaves.map((_, i) => (i === 0 ? 0 : stepUs)),
  };
}

test('a collection is counted for the innermost module loading at that moment, idle apart', () => {
  // parent.js loads 0..10 ms and requires child.js at 2..5 ms; an ES module evaluates 12..14 ms.
  const modules = [
    { file: '/a/parent.js', kind: 'cjs', startMs: 0, inclusiveMs: 10 },
    { file: '/a/child.js', kind: 'cjs', startMs: 2, inclusiveMs: 3 },
    { file: '/a/esm.mjs', kind: 'esm', startMs: 11, inclusiveMs: 0, evalStartMs: 12, evalMs: 2 },
  ];
  //            0       1       2       3                      4       5       6                      7
  const leaves = ['work', 'work', 'work', '(garbage collector)', 'work', 'work', '(garbage collector)', 'work',
    'work', 'work', 'work', 'work', '(idle)', 'work', 'work'];
  const apart = gcByModule(modules, flatProfile(leaves), (ms) => ms * 1000);
  assert.deepEqual(apart.get('/a/child.js'), { gcMs: 1, idleMs: 0, gapMs: 0 });
  assert.deepEqual(apart.get('/a/parent.js'), { gcMs: 1, idleMs: 0, gapMs: 0 });
  assert.deepEqual(apart.get('/a/esm.mjs'), { gcMs: 0, idleMs: 1, gapMs: 0 });
});

test('a sample straddling two modules is split between them by time', () => {
  const modules = [
    { file: '/a/one.js', kind: 'cjs', startMs: 0, inclusiveMs: 1.5 },
    { file: '/a/two.js', kind: 'cjs', startMs: 1.5, inclusiveMs: 1.5 },
  ];
  const apart = gcByModule(modules, flatProfile(['work', '(garbage collector)', 'work']), (ms) => ms * 1000);
  assert.equal(apart.get('/a/one.js').gcMs, 0.5);
  assert.equal(apart.get('/a/two.js').gcMs, 0.5);
});

test('a gap between samples is the thread not running: counted where it falls, apart from a collection before it', () => {
  // Samples every 1 ms, then none for 8 ms after the one at 3 ms (a collection): the thread was off
  // the CPU from 4 to 11 ms, all inside slow.js (2..12 ms).
  const profile = flatProfile(['work', 'work', 'work', '(garbage collector)', ...Array(10).fill('work')]);
  profile.timeDeltas[4] = 8000;
  profile.endTime = 21000;
  const modules = [{ file: '/a/fast.js', kind: 'cjs', startMs: 0, inclusiveMs: 2 }, { file: '/a/slow.js', kind: 'cjs', startMs: 2, inclusiveMs: 10 }];
  const apart = gcByModule(modules, profile, (ms) => ms * 1000);
  assert.deepEqual(apart.get('/a/fast.js'), { gcMs: 0, idleMs: 0, gapMs: 0 });
  assert.deepEqual(apart.get('/a/slow.js'), { gcMs: 1, idleMs: 0, gapMs: 7 });
});

test('profile: a module that allocates shows its collections apart from its self time', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-gc-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"gc-app","private":true}\n');
    // Enough short-lived garbage for the young generation to be collected many times.
    fs.writeFileSync(path.join(dir, 'churn.js'), [
      "'use strict';",
      'let kept = 0;',
      'for (let i = 0; i < 3e6; i++) { const o = { i, s: "x" + i }; if (i % 1000 === 0) kept += o.s.length; }',
      'module.exports = kept;',
    ].join('\n'));
    fs.writeFileSync(path.join(dir, 'server.js'), "require('./churn.js');\nrequire('http').createServer().listen(0);\n");
    const { code, stdout, stderr } = await runCli(['profile', '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(code, 0, stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    const churn = report.modules.find((m) => m.file === 'churn.js');
    assert.ok(churn.gcMs > 0, `collections inside churn.js: ${churn.gcMs} ms`);
    const inModules = report.modules.reduce((s, m) => s + (m.gcMs || 0), 0);
    assert.ok(inModules <= report.categories.gc + 0.05, `${inModules} ms of gc in modules, ${report.categories.gc} ms in the profile`);
    const pkg = report.packages.find((p) => p.name === '(app)');
    assert.ok(pkg.gcMs >= churn.gcMs);
    assert.match(stdout, /Top modules by self time \(own work; gc = collections during its load, apart\)/);
    assert.match(stdout, new RegExp(`churn\\.js\\s+[\\d.]+ ms\\s+gc ${ms(churn.gcMs)}`));
  } finally {
    rm(dir);
  }
});
