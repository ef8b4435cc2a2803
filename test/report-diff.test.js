'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { diffReports, renderDiff } = require('../lib/report/diff.js');
const { packageTotals } = require('../lib/analyze/require-tree.js');
const { runCli, rm } = require('./helpers/app.js');

/** A report.json as buildReport writes it, from [file, parent, selfMs, inclusiveMs] rows. */
function makeReport({ readyAt, files = 10, bytes = 1000, categories = null, rows }) {
  const pkg = (file) => {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    return m ? m[1] : '(app)';
  };
  const modules = rows.map(([file, parent, selfMs, inclusiveMs], i) => ({
    file, package: pkg(file), kind: 'cjs', parent, startMs: 10 + i, resolveMs: 0.1, loadMs: inclusiveMs - 0.1, selfMs, inclusiveMs,
  }));
  return {
    schema: 1, command: ['node', 'server.js'], cwd: '/app', root: '/app', node: 'v20.20.2', until: 'listen', partial: false,
    readyAt, attachMs: 30, pid: 1, exitCode: null, address: null, files, bytes, filesByVia: {}, outsideRoot: [], categories,
    packages: packageTotals(modules), modules, builtins: [], artifacts: {},
  };
}

const before = makeReport({
  readyAt: 100,
  bytes: 5000,
  categories: { totalMs: 60, resolve: 20, read: 5, compile: 10, execute: 20, gc: 0, idle: 0, other: 5 },
  rows: [
    ['server.js', null, 2, 60],
    ['node_modules/express/index.js', 'server.js', 10, 40],
    ['node_modules/debug/index.js', 'node_modules/express/index.js', 30, 30],
    ['node_modules/ms/index.js', 'server.js', 3, 3],
    ['lib/config.js', 'server.js', 5, 5],
  ],
});
const after = makeReport({
  readyAt: 160,
  bytes: 9000,
  files: 13,
  categories: { totalMs: 120, resolve: 22, read: 6, compile: 14, execute: 73, gc: 0, idle: 0, other: 5 },
  rows: [
    ['server.js', null, 2.2, 120],
    ['node_modules/express/index.js', 'server.js', 10.2, 40],
    ['node_modules/debug/index.js', 'node_modules/express/index.js', 29.9, 29.9],
    ['node_modules/@aws-sdk/client-s3/index.js', 'server.js', 20, 70],
    ['node_modules/@aws-sdk/client-s3/dist/a.js', 'node_modules/@aws-sdk/client-s3/index.js', 50, 50],
    ['lib/config.js', 'server.js', 5, 5],
  ],
});

test('headline figures: time to ready, modules, packages, files, bytes', () => {
  const d = diffReports(before, after);
  assert.deepStrictEqual(d.readyAt, { before: 100, after: 160, delta: 60, pct: 60 });
  assert.deepStrictEqual(d.modules, { before: 5, after: 6, delta: 1, pct: 20 });
  assert.deepStrictEqual(d.packages, { before: 4, after: 4, delta: 0, pct: 0 });
  assert.strictEqual(d.files.delta, 3);
  assert.strictEqual(d.bytes.delta, 4000);
  assert.strictEqual(d.categories.execute.delta, 53);
  assert.strictEqual(d.modulesAdded, 2);
  assert.strictEqual(d.modulesRemoved, 1);
});

test('packages that appear and vanish at startup', () => {
  const d = diffReports(before, after);
  assert.deepStrictEqual(d.packagesAdded.map((p) => p.name), ['@aws-sdk/client-s3']);
  assert.strictEqual(d.packagesAdded[0].modules, 2);
  assert.strictEqual(d.packagesAdded[0].selfMs, 70);
  assert.deepStrictEqual(d.packagesRemoved.map((p) => p.name), ['ms']);
});

test('biggest movers by own time, largest change first, noise left out', () => {
  const d = diffReports(before, after);
  assert.deepStrictEqual(d.packageMovers.map((p) => [p.name, p.status, p.delta]), [
    ['@aws-sdk/client-s3', 'added', 70],
    ['ms', 'removed', -3],
  ], 'changes under 0.5 ms (express +0.2, debug -0.1, (app) +0.2) are noise');
  assert.deepStrictEqual(d.moduleMovers.map((m) => [m.file, m.delta]), [
    ['node_modules/@aws-sdk/client-s3/dist/a.js', 50],
    ['node_modules/@aws-sdk/client-s3/index.js', 20],
    ['node_modules/ms/index.js', -3],
  ]);
  assert.strictEqual(d.moduleMovers[2].before, 3);
  assert.strictEqual(d.moduleMovers[2].after, null);
  assert.strictEqual(diffReports(before, after, { top: 1 }).moduleMovers.length, 1);
  assert.strictEqual(diffReports(before, after, { minMs: 0 }).packageMovers.length, 5);
});

test('a report compared with itself shows no change', () => {
  const d = diffReports(before, before);
  assert.strictEqual(d.readyAt.delta, 0);
  assert.deepStrictEqual([d.packagesAdded, d.packagesRemoved, d.packageMovers, d.moduleMovers], [[], [], [], []]);
  const text = renderDiff(d, { before: 'a', after: 'a' });
  assert.doesNotMatch(text, /New at startup|No longer loaded|movers/);
});

test('terminal table: signed changes, new and gone packages, no colour unless asked', () => {
  const text = renderDiff(diffReports(before, after), { before: 'old.json', after: 'new.json' });
  assert.match(text, /^coldstart diff: old\.json -> new\.json/);
  assert.match(text, /time to ready\s+100 ms\s+160 ms\s+\+60\.0 ms \(\+60\.0%\)/);
  assert.match(text, /bytes read\s+5\.0 kB\s+9\.0 kB\s+\+4\.0 kB/);
  assert.match(text, /New at startup \(1 package\)\n\s+\+ @aws-sdk\/client-s3\s+2 modules\s+own 70\.0 ms/);
  assert.match(text, /No longer loaded \(1 package\)\n\s+- ms\s+1 module\s/);
  assert.match(text, /node_modules\/@aws-sdk\/client-s3\/dist\/a\.js \(new\)\s+–\s+50\.0 ms\s+\+50\.0 ms/);
  assert.match(text, /node_modules\/ms\/index\.js \(gone\)\s+3\.0 ms\s+–\s+-3\.0 ms/);
  assert.doesNotMatch(text, /\u001b\[/);
  assert.match(renderDiff(diffReports(before, after), { color: true }), /\u001b\[31m\+60\.0 ms/);
});

test('coldstart diff: table, --json, and one clear line on bad input', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-diff-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify(before));
    fs.mkdirSync(path.join(dir, 'b'));
    fs.writeFileSync(path.join(dir, 'b', 'report.json'), JSON.stringify(after));
    fs.writeFileSync(path.join(dir, 'broken.json'), '{"readyAt": 1,');
    fs.writeFileSync(path.join(dir, 'other.json'), '{"name": "not a report"}');

    const table = await runCli(['diff', 'a.json', 'b'], { cwd: dir });
    assert.strictEqual(table.code, 0, table.stderr);
    assert.match(table.stdout, /time to ready\s+100 ms\s+160 ms/);
    assert.strictEqual(table.stderr, '');

    const json = await runCli(['diff', 'a.json', 'b/report.json', '--json'], { cwd: dir });
    assert.strictEqual(json.code, 0);
    const doc = JSON.parse(json.stdout);
    assert.strictEqual(doc.readyAt.delta, 60);
    assert.deepStrictEqual(doc.packagesAdded.map((p) => p.name), ['@aws-sdk/client-s3']);

    const bad = [
      [['diff', 'a.json', 'missing.json'], /report not found: missing\.json/],
      [['diff', 'a.json', 'broken.json'], /broken\.json is not JSON/],
      [['diff', 'a.json', 'other.json'], /other\.json is not a coldstart report/],
      [['diff', 'a.json'], /diff needs two reports/],
      [['diff', 'a.json', 'b', '--top', '0'], /invalid --top "0"/],
    ];
    for (const [args, pattern] of bad) {
      const r = await runCli(args, { cwd: dir });
      assert.strictEqual(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.strictEqual(lines.length, 1, r.stderr);
      assert.match(lines[0], /^coldstart: /);
      assert.match(lines[0], pattern);
      assert.strictEqual(r.stdout, '');
    }
  } finally {
    rm(dir);
  }
});
