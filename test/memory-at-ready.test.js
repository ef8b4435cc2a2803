'use strict';
// Memory at the ready moment: process.memoryUsage() read while the app is held there, and the
// package that allocated the heap it holds (V8's sampling heap profile). Ground truth: the app
// reads its own memoryUsage() as it listens, and its one package keeps exactly 50 MB of doubles.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCli, rm, writeFiles } = require('./helpers/app.js');

const MB = 1e6;
const APP = {
  'package.json': '{ "name": "holds-memory", "private": true }',
  'node_modules/hog/package.json': '{ "name": "hog", "version": "1.0.0", "main": "index.js" }',
  // 500 arrays of 12,500 doubles: 50,000,000 bytes kept alive from its load on.
  'node_modules/hog/index.js': 'const held = [];\nfor (let i = 0; i < 500; i++) held.push(new Array(12500).fill(i + 0.5));\nmodule.exports = held;\n',
  'server.js': [
    "const hog = require('hog');",
    "const server = require('http').createServer((q, r) => r.end(String(hog.length)));",
    // Read right before listen, whose call is the ready moment: a collection can come between the
    // ready moment and the listen callback (the heap then shrinks by its garbage).
    "if (process.env.TRUTH_FILE) require('fs').writeFileSync(process.env.TRUTH_FILE, JSON.stringify(process.memoryUsage()));",
    'server.listen(0);',
    '',
  ].join('\n'),
};

test('memory at ready: RSS and heap as the app reads them, and the package that holds 50 MB named with it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-memory-'));
  try {
    writeFiles(dir, APP);
    const truthFile = path.join(dir, 'truth.json');
    const r = await runCli(['profile', '--json', '--until', 'listen', '--out', 'out', '--', 'node', 'server.js'], { cwd: dir, env: { ...process.env, TRUTH_FILE: truthFile } });
    assert.equal(r.code, 0, r.stderr);
    const { memory } = JSON.parse(r.stdout);
    const truth = JSON.parse(fs.readFileSync(truthFile, 'utf8'));
    const near = (ours, theirs, what) => assert.ok(Math.abs(ours - theirs) <= 0.05 * theirs, `${what}: ${ours} against the app's own ${theirs}`);
    near(memory.rssBytes, truth.rss, 'rss');
    near(memory.heapUsedBytes, truth.heapUsed, 'heap used');
    near(memory.heapTotalBytes, truth.heapTotal, 'heap total');
    const [top] = memory.sampled.packages;
    assert.equal(top.package, 'hog', JSON.stringify(memory.sampled));
    assert.ok(Math.abs(top.bytes - 50 * MB) <= 5 * MB, `hog holds ${top.bytes} bytes`);
    assert.ok(memory.sampled.packages.reduce((sum, p) => sum + p.bytes, 0) <= memory.heapUsedBytes, "what the packages hold fits in the heap");

    const summary = await runCli(['profile', '--until', 'listen', '--out', 'out2', '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(summary.code, 0, summary.stderr);
    // The modules' sources and code, and the agent's records, are said from 1 MB on: the heap
    // profiler samples them (one sample can stand for a megabyte), so either may be there.
    assert.match(summary.stdout, /^ {2}memory at ready: [\d.]+ MB resident, heap [\d.]+ MB used of [\d.]+ MB, [\d.]+ [kM]?B outside it; held most by hog (4[5-9]|5[0-5])\.\d MB(; (module sources and code|coldstart's own records) [\d.]+ MB(, coldstart's own records [\d.]+ MB)?)?$/m);
    const diff = await runCli(['diff', 'out/report.json', 'out2/report.json'], { cwd: dir });
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stdout, /^ {2}resident at ready +[\d.]+ MB +[\d.]+ MB +(±0|[+-][\d.]+ [kM]?B)$/m);
    assert.match(diff.stdout, /^ {2}heap at ready +[\d.]+ MB +[\d.]+ MB +(±0|[+-][\d.]+ [kM]?B)$/m);
    const html = fs.readFileSync(path.join(dir, 'out2', 'report.html'), 'utf8');
    assert.match(html, /Memory at ready/);
    assert.match(html, /hog/);
  } finally {
    rm(dir);
  }
});

test('check --budget rss= / heap=: over the limit FAILs naming the package that holds the heap, within it passes; a size needs its unit', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-memory-check-'));
  try {
    writeFiles(dir, APP);
    const over = await runCli(['check', '-n', '2', '--budget', 'heap=32MiB,rss=4GiB', '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(over.code, 1, over.stdout + over.stderr);
    // Node 20 names no CommonJS module in the heap profile of a run without the CPU profiler.
    const named = Number(process.versions.node.split('.')[0]) >= 22 ? ': the heap alive at ready was allocated most by hog (4[3-9]|5[0-2])\\.\\d MiB' : '';
    assert.match(over.stdout, new RegExp(`FAIL {2}JavaScript heap used at ready [\\d.]+ MiB \\([\\d.]+ MiB–[\\d.]+ MiB over 2 runs\\) is over the limit of 32 MiB${named}`));
    assert.match(over.stdout, /pass {2}resident memory \(RSS\) at ready [\d.]+ MiB .* is within the limit of 4096 MiB/);
    const json = await runCli(['check', '-n', '2', '--json', '--budget', 'rss=4GiB', '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(json.code, 0, json.stderr);
    const [rss] = JSON.parse(json.stdout).checks;
    assert.equal(rss.name, 'max-rss');
    assert.ok(rss.actual > 50 * MB && rss.actual < rss.limit, JSON.stringify(rss));
    const bad = await runCli(['check', '--budget', 'rss=256', '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'coldstart: invalid --budget "rss=256": rss takes a size with its unit, e.g. rss=256MiB (Mi = 2^20 bytes, MB = 10^6)\n');
  } finally {
    rm(dir);
  }
});
