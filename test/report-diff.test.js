'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { diffReports, diffRuns, renderDiff } = require('../lib/report/diff.js');
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
  assert.strictEqual(d.method, 'single');
  assert.deepStrictEqual(d.readyAt, { before: 100, after: 160, delta: 60, pct: 60, band: 48, verdict: 'slower', judged: { before: 100, after: 160, lessCpuWait: false }, busy: [] });
  assert.deepStrictEqual(d.modules, { before: 5, after: 6, delta: 1, pct: 20 });
  assert.deepStrictEqual(d.packages, { before: 4, after: 4, delta: 0, pct: 0 });
  assert.strictEqual(d.files.delta, 3);
  assert.strictEqual(d.bytes.delta, 4000);
  assert.strictEqual(d.categories, null, 'one run a side cannot tell a category\'s move from noise');
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

test('single runs: no package or module time is judged (one run a side has no spread), what appeared is listed', () => {
  const d = diffReports(before, after);
  assert.deepStrictEqual([d.packageMovers, d.moduleMovers, d.movers], [[], [], null]);
  assert.deepStrictEqual(d.packagesAdded.map((p) => p.name), ['@aws-sdk/client-s3']);
  const text = renderDiff(d);
  assert.doesNotMatch(text, /Biggest movers/);
  assert.match(text, /one run of each side cannot tell a package's or module's own time from noise/);
});

test('single runs of a busy machine, one not knowing its wait for a CPU: cannot tell, and says to compare sets of runs', () => {
  const d = diffReports({ ...before, machine: { busy: false } }, { ...after, machine: { busy: true, runQueueMs: 40 } });
  assert.deepStrictEqual([d.readyAt.verdict, d.readyAt.busy], ['cannot tell', ['after']]);
  assert.match(renderDiff(d), /time to ready: cannot tell from single runs: the machine was busy during the after run .*compare sets of runs \(coldstart diff a1\.json \.\.\. -- b1\.json \.\.\.\)/);
});

test('single runs: time to ready is judged less each run\'s wait for a CPU, and shown as measured; a busy run is judged so too', () => {
  const busy = { ...after, readyAt: 200, machine: { runQueueMs: 90, busy: true } };
  const quiet = { ...before, readyAt: 100, machine: { runQueueMs: 2 } };
  const d = diffReports(quiet, busy);
  assert.deepStrictEqual([d.readyAt.before, d.readyAt.after, d.readyAt.verdict], [100, 200, 'noise']);
  assert.deepStrictEqual(d.readyAt.judged, { before: 98, after: 110, lessCpuWait: true });
  assert.match(renderDiff(d), /no change beyond the spread of single runs \(±33\.0 ms; less each run's wait for a CPU: 98\.0 ms and 110 ms\)/);
});

// Two runs of one unchanged app, as far apart as measured between runs of the express fixture:
// time to ready 21% apart, the app's own code 5 -> 16 ms, a collection inside one small module.
const runA = makeReport({
  readyAt: 195.1,
  rows: [
    ['server.js', null, 5.2, 90],
    ['node_modules/express/index.js', 'server.js', 6.1, 60],
    ['node_modules/cookie/index.js', 'node_modules/express/index.js', 0.3, 0.3],
    ['node_modules/mime-types/index.js', 'node_modules/express/index.js', 7.8, 12],
  ],
});
const runB = makeReport({
  readyAt: 237,
  rows: [
    ['server.js', null, 16.1, 110],
    ['node_modules/express/index.js', 'server.js', 11.9, 70],
    ['node_modules/cookie/index.js', 'node_modules/express/index.js', 6.1, 6.1],
    ['node_modules/mime-types/index.js', 'node_modules/express/index.js', 11.7, 15],
  ],
});

test('two single runs of the same app: every change is noise, no mover', () => {
  const d = diffReports(runA, runB);
  assert.strictEqual(d.readyAt.verdict, 'noise');
  assert.deepStrictEqual([d.packageMovers, d.moduleMovers], [[], []]);
  const text = renderDiff(d, { before: 'a', after: 'b' });
  assert.match(text, /time to ready: no change beyond the spread of single runs \(±71\.1 ms\)/);
  assert.doesNotMatch(text, /Biggest movers/);
  assert.match(text, /Single runs compared: .* coldstart diff a1\.json \.\.\. a6\.json -- b1\.json/);
});

/** A run of the app: the same modules with a little jitter, optionally one more module. */
function run(i, extra) {
  const jitter = (x) => Math.round((x + ((i * 7) % 5) * 0.4) * 100) / 100;
  const rows = [
    ['server.js', null, jitter(5), 40],
    ['node_modules/express/index.js', 'server.js', jitter(8), 30],
    ['node_modules/mime-types/index.js', 'node_modules/express/index.js', jitter(9), 9],
  ];
  if (extra) rows.push(['lib/slow.js', 'server.js', jitter(50), 50]);
  return makeReport({ readyAt: jitter(extra ? 150 : 100), rows });
}

test('runs: a module that takes 50 ms more is the mover, with its interval', () => {
  const d = diffRuns([0, 1, 2, 3, 4, 5].map((i) => run(i)), [0, 1, 2, 3, 4, 5].map((i) => run(i, true)));
  assert.deepStrictEqual([d.method, d.runs], ['runs', { before: 6, after: 6 }]);
  assert.strictEqual(d.readyAt.verdict, 'slower');
  assert.ok(d.readyAt.low > 0 && d.readyAt.high >= d.readyAt.delta);
  assert.deepStrictEqual(d.moduleMovers.map((m) => [m.file, m.status, m.verdict]), [['lib/slow.js', 'added', 'slower']]);
  assert.deepStrictEqual(d.packageMovers.map((p) => [p.name, p.verdict]), [['(app)', 'slower']]);
  const m = d.moduleMovers[0];
  assert.ok(m.low > 45 && m.high < 55, `${m.low} .. ${m.high}`);
  const text = renderDiff(d);
  assert.match(text, /time to ready: 1\.\d\dx slower \(\+50\.0 ms, 9\d% interval/);
  assert.match(text, /lib\/slow\.js \(new\)\s+–\s+50\.\d ms\s+\+50\.\d ms\s+\[\+\d+\.\d+ … \+\d+\.\d+\]/);
  assert.match(text, /Compared 6 runs with 6/);
});

test('runs of the same app: no mover, time to ready within noise', () => {
  const d = diffRuns([0, 1, 2, 3].map((i) => run(i)), [4, 5, 6, 7].map((i) => run(i)));
  assert.strictEqual(d.readyAt.verdict, 'noise');
  assert.deepStrictEqual([d.packageMovers, d.moduleMovers], [[], []]);
  const few = diffRuns([run(0), run(1)], [run(2, true), run(3, true)]);
  assert.strictEqual(few.readyAt.verdict, 'too few runs');
  assert.match(renderDiff(few), /too few runs to tell a difference from noise \(2 runs each\)/);
});

test('reports with extra fields (a module\'s collection time) diff the same', () => {
  const withGc = (r) => ({ ...r, modules: r.modules.map((m) => ({ ...m, gcMs: 1.5, idleMs: 0 })), packages: r.packages.map((p) => ({ ...p, gcMs: 1.5 })) });
  assert.deepStrictEqual(diffReports(withGc(before), withGc(after)), diffReports(before, after));
});

test('a report compared with itself shows no change', () => {
  const d = diffReports(before, before);
  assert.strictEqual(d.readyAt.delta, 0);
  assert.deepStrictEqual([d.packagesAdded, d.packagesRemoved, d.packageMovers, d.moduleMovers], [[], [], [], []]);
  const text = renderDiff(d, { before: 'a', after: 'a' });
  assert.doesNotMatch(text, /New at startup|No longer loaded|Biggest movers/);
});

test('terminal table: signed changes, new and gone packages, no colour unless asked', () => {
  const text = renderDiff(diffReports(before, after), { before: 'old.json', after: 'new.json' });
  assert.match(text, /^coldstart diff: old\.json -> new\.json/);
  assert.match(text, /time to ready\s+100 ms\s+160 ms\s+\+60\.0 ms \(\+60\.0%\)/);
  assert.match(text, /time to ready: slower, beyond the spread of single runs \(±48\.0 ms\)/);
  assert.match(text, /bytes read\s+5\.0 kB\s+9\.0 kB\s+\+4\.0 kB/);
  assert.match(text, /New at startup \(1 package\)\n\s+\+ @aws-sdk\/client-s3\s+2 modules\s+own 70\.0 ms/);
  assert.match(text, /No longer loaded \(1 package\)\n\s+- ms\s+1 module\s/);
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
    fs.mkdirSync(path.join(dir, 'empty'));

    const table = await runCli(['diff', 'a.json', 'b'], { cwd: dir });
    assert.strictEqual(table.code, 0, table.stderr);
    assert.match(table.stdout, /time to ready\s+100 ms\s+160 ms/);
    assert.strictEqual(table.stderr, '');

    const json = await runCli(['diff', 'a.json', 'b/report.json', '--json'], { cwd: dir });
    assert.strictEqual(json.code, 0);
    const doc = JSON.parse(json.stdout);
    assert.strictEqual(doc.readyAt.delta, 60);
    assert.deepStrictEqual(doc.packagesAdded.map((p) => p.name), ['@aws-sdk/client-s3']);

    // Sets of runs: lists either side of --, or directories of reports.
    fs.mkdirSync(path.join(dir, 'runs-before'));
    fs.mkdirSync(path.join(dir, 'runs-after'));
    for (let i = 0; i < 6; i++) {
      fs.writeFileSync(path.join(dir, 'runs-before', `${i}.json`), JSON.stringify(run(i)));
      fs.mkdirSync(path.join(dir, 'runs-after', String(i)));
      fs.writeFileSync(path.join(dir, 'runs-after', String(i), 'report.json'), JSON.stringify(run(i, true)));
    }
    const runs = await runCli(['diff', 'runs-before', 'runs-after', '--json'], { cwd: dir });
    assert.strictEqual(runs.code, 0, runs.stderr);
    const runsDoc = JSON.parse(runs.stdout);
    assert.strictEqual(runsDoc.before.length, 6);
    assert.strictEqual(runsDoc.after[0], path.join('runs-after', '0', 'report.json'));
    assert.deepStrictEqual([runsDoc.method, runsDoc.readyAt.verdict], ['runs', 'slower']);
    assert.ok(runsDoc.readyAt.low > 0 && runsDoc.readyAt.confidence >= 0.95);
    assert.deepStrictEqual(runsDoc.moduleMovers.map((m) => [m.file, m.verdict]), [['lib/slow.js', 'slower']]);
    assert.ok(runsDoc.moduleMovers[0].low > 0);
    const listed = await runCli(['diff', ...[0, 1, 2, 3, 4, 5].map((i) => `runs-before/${i}.json`), '--',
      ...[0, 1, 2, 3, 4, 5].map((i) => `runs-after/${i}`)], { cwd: dir });
    assert.strictEqual(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^coldstart diff: 6 runs \(runs-before\/0\.json …\) -> 6 runs \(runs-after\/0 …\)/);
    assert.match(listed.stdout, /lib\/slow\.js \(new\)/);
    // Four runs a side cannot single out one of four modules at a 1% false discovery rate: none is listed, and it says so.
    const few = await runCli(['diff', ...[0, 1, 2, 3].map((i) => `runs-before/${i}.json`), '--',
      ...[0, 1, 2, 3].map((i) => `runs-after/${i}`)], { cwd: dir });
    assert.doesNotMatch(few.stdout, /lib\/slow\.js \(new\)/);
    assert.match(few.stdout, /With 4 and 4 runs none of 3 packages can be told apart; that takes 6 runs a side or more\./);

    const bad = [
      [['diff', 'a.json', 'missing.json'], /report not found: missing\.json/],
      [['diff', 'a.json', 'broken.json'], /broken\.json is not JSON/],
      [['diff', 'a.json', 'other.json'], /other\.json is not a coldstart report/],
      [['diff', 'a.json'], /diff needs two reports/],
      [['diff', '--', 'a.json'], /diff of sets of runs needs two sets of reports/],
      [['diff', 'a.json', '--', 'b'], /diff: the runs before are 1 report; give at least 2 a side/],
      [['diff', 'a.json', 'runs-before'], /diff: a\.json is not a directory; give two directories of reports/],
      [['diff', 'runs-before', 'empty'], /diff: the runs after are 0 reports/],
      [['diff', 'a.json', 'a.json', '--', 'missing.json', 'b'], /report not found: missing\.json/],
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

test('a host report against one from a container: packages side by side with the factor, the largest growth first', () => {
  const host = makeReport({ readyAt: 100, rows: [['server.js', null, 2, 60], ['node_modules/express/index.js', 'server.js', 10, 40], ['node_modules/debug/index.js', 'server.js', 30, 30]] });
  const sandbox = { ...makeReport({ readyAt: 400, rows: [['server.js', null, 4, 300], ['node_modules/express/index.js', 'server.js', 200, 220], ['node_modules/debug/index.js', 'server.js', 45, 45]] }),
    container: { image: 'svc:1', runtime: 'runsc', command: ['node', 'server.js'] } };
  const d = diffReports(host, sandbox);
  assert.deepStrictEqual(d.places, { before: 'host', after: 'runsc (svc:1)' });
  assert.deepStrictEqual(d.sideBySide.map((r) => [r.name, r.before, r.after, r.ratio]), [['express', 10, 200, 20], ['debug', 30, 45, 1.5], ['(app)', 2, 4, 2]]);
  const text = renderDiff(d, { before: 'host', after: 'sandbox' });
  assert.match(text, /By package: host and runsc \(svc:1\)/);
  assert.match(text, /express +1 +10\.0 ms +200 ms +×20\.0 +10\.0 ms → 200 ms/);
  assert.strictEqual(diffReports(host, host).sideBySide, null, 'one place: no side-by-side table');
});
