'use strict';
// Module self times come from disjoint segments of startup: nested windows give the inner one its
// time, overlapping ones (an asynchronous ES module graph) are never counted twice, and the total
// is at most the wall time the windows cover.
const test = require('node:test');
const assert = require('node:assert');
const { ownSegments, ownTotals } = require('../lib/analyze/own-segments.js');
const { moduleRecords } = require('../lib/capture/module-records.js');

const covered = (windows) => {
  const sorted = windows.map((w) => [w.from, w.to]).sort((a, b) => a[0] - b[0]);
  let sum = 0;
  let end = -Infinity;
  for (const [from, to] of sorted) {
    if (to > end) sum += to - Math.max(from, end);
    end = Math.max(end, to);
  }
  return sum;
};

test('nested windows: the innermost open window owns each moment', () => {
  const totals = ownTotals(ownSegments([
    { from: 0, to: 10, file: 'a' },
    { from: 2, to: 5, file: 'b' },
    { from: 3, to: 4, file: 'c' },
    { from: 6, to: 10, file: 'd' },
  ]));
  assert.deepStrictEqual(Object.fromEntries(totals), { a: 3, b: 2, c: 1, d: 4 });
});

test('overlapping windows (many ES modules in flight at once): the totals add up to the time covered, never more', () => {
  // 40 modules whose windows overlap heavily, as an asynchronous graph's loads do.
  const windows = [];
  for (let i = 0; i < 40; i++) windows.push({ from: i * 3, to: i * 3 + 50 + (i % 7) * 10, file: `m${i}` });
  windows.push({ from: 20, to: 22, file: 'm0' }); // a second window of one module
  const totals = ownTotals(ownSegments(windows));
  const sum = [...totals.values()].reduce((a, b) => a + b, 0);
  const naive = windows.reduce((a, w) => a + (w.to - w.from), 0);
  assert.ok(naive > 5 * covered(windows), 'the spans summed would count the time several times over');
  assert.ok(Math.abs(sum - covered(windows)) < 1e-9, `${sum} = ${covered(windows)}`);
});

test('module records: require(esm) seen only as reads (Node 20) are ES modules, the module that required them one too; self times add up to at most the time covered', () => {
  const payload = {
    readyAt: 100,
    modules: [
      { file: '/app/main.js', kind: 'cjs', parent: null, startMs: 0, resolveMs: 0, inclusiveMs: 90, childMs: 80 },
      { file: '/app/node_modules/fw/index.js', kind: 'cjs', parent: '/app/main.js', startMs: 5, resolveMs: 1, inclusiveMs: 80, childMs: 0 },
    ],
    esmReads: [
      { file: '/app/node_modules/fw/a.js', parent: '/app/node_modules/fw/index.js', startMs: 10, loadMs: 2 },
      { file: '/app/node_modules/fw/b.js', parent: '/app/node_modules/fw/index.js', startMs: 13, loadMs: 3 },
    ],
  };
  const records = moduleRecords(payload);
  const byFile = new Map(records.map((m) => [m.file, m]));
  assert.strictEqual(byFile.get('/app/node_modules/fw/a.js').kind, 'esm');
  assert.strictEqual(byFile.get('/app/node_modules/fw/index.js').kind, 'esm');
  assert.strictEqual(byFile.get('/app/main.js').kind, 'cjs');
  assert.strictEqual(byFile.get('/app/node_modules/fw/a.js').selfMs, 2);
  assert.strictEqual(byFile.get('/app/node_modules/fw/index.js').selfMs, 75);
  assert.strictEqual(byFile.get('/app/main.js').selfMs, 10);
  assert.ok(records.reduce((s, m) => s + m.selfMs, 0) <= 90);
});

test('module records: ES modules timed on the hooks thread (Node 20) own only their evaluation on the app\'s thread', () => {
  const payload = {
    readyAt: 50,
    modules: [],
    esm: [
      { file: '/app/a.mjs', url: 'file:///app/a.mjs', format: 'module', parent: null, startMs: 0, resolveMs: 30, loadMs: 30, thread: 'hooks', evalStartMs: 40, evalMs: 5 },
      { file: '/app/b.mjs', url: 'file:///app/b.mjs', format: 'module', parent: '/app/a.mjs', startMs: 1, resolveMs: 30, loadMs: 30, thread: 'hooks', evalStartMs: 35, evalMs: 4 },
    ],
  };
  const records = moduleRecords(payload);
  assert.deepStrictEqual(records.map((m) => [m.file, m.selfMs]), [['/app/a.mjs', 5], ['/app/b.mjs', 4]]);
  assert.strictEqual(records.find((m) => m.file === '/app/a.mjs').inclusiveMs, 9);
});
