'use strict';
// report.html as text: self-contained, escaped, complete. (test/view-browser.test.js opens it
// in a real browser.)
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { renderReportHtml } = require('../lib/report/html.js');
const { packageTotals } = require('../lib/analyze/require-tree.js');
const { copyFixture, runCli, rm } = require('./helpers/app.js');

function makeReport(overrides = {}) {
  const modules = [
    { file: 'server.js', package: '(app)', kind: 'cjs', parent: null, startMs: 40, resolveMs: 0, loadMs: 80, selfMs: 5, inclusiveMs: 80 },
    { file: 'node_modules/express/index.js', package: 'express', kind: 'cjs', parent: 'server.js', startMs: 41, resolveMs: 1, loadMs: 60, selfMs: 10, inclusiveMs: 61 },
    { file: 'node_modules/debug/src/index.js', package: 'debug', kind: 'cjs', parent: 'node_modules/express/index.js', startMs: 45, resolveMs: 1, loadMs: 50, selfMs: 50, inclusiveMs: 51 },
    { file: 'lib/</script><script>alert(1)</script>.js', package: '(app)', kind: 'esm', parent: 'server.js', startMs: 110, resolveMs: 0.2, loadMs: 9, selfMs: 9, inclusiveMs: 9.2 },
  ];
  return {
    schema: 1, command: ['node', '--require', './my hook.js', 'server.js'], cwd: '/srv/app', root: '/srv/app',
    node: 'v20.20.2', until: 'listen', partial: false, readyAt: 131.5, attachMs: 30, pid: 4242, exitCode: null,
    address: { address: '::', family: 'IPv6', port: 3000 }, files: 12, bytes: 34567, filesByVia: { require: 4, 'package.json': 8 },
    outsideRoot: ['/etc/ssl/openssl.cnf', '/home/dev/.npmrc'],
    categories: { totalMs: 90, resolve: 20, read: 5, compile: 15, execute: 40, gc: 4, idle: 0, other: 6 },
    packages: packageTotals(modules), modules, builtins: ['node:http'], artifacts: {},
    ...overrides,
  };
}

test('self-contained: no network resource, a policy that forbids any, scripts inline', () => {
  const html = renderReportHtml(makeReport());
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  assert.doesNotMatch(html, /\ssrc=/, 'no script or image is loaded from anywhere');
  assert.doesNotMatch(html, /<link\b/);
  assert.doesNotMatch(html, /https?:\/\//, 'no URL at all');
  assert.doesNotMatch(html, /@import|url\(/);
});

test('module and package names are escaped, in the page and in the embedded data', () => {
  const html = renderReportHtml(makeReport());
  assert.strictEqual((html.match(/<script\b/g) || []).length, 2, 'only the data and the page script');
  assert.strictEqual((html.match(/<\/script>/g) || []).length, 2);
  assert.ok(html.includes('lib/&#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62;.js'));
  const json = /<script type="application\/json" id="coldstart-data">([\s\S]*?)<\/script>/.exec(html)[1];
  const data = JSON.parse(json);
  assert.strictEqual(data.modules[3].file, 'lib/</script><script>alert(1)</script>.js');
  assert.strictEqual(data.readyAt, 131.5);
  assert.strictEqual(data.colors['(app)'] !== data.colors.express, true, 'packages get their own colour');
});

test('shows the command as typed, the Node version, time to ready and its split, files outside the root', () => {
  const html = renderReportHtml(makeReport());
  assert.ok(html.includes(`<code id="command">node --require &#39;./my hook.js&#39; server.js</code>`));
  assert.ok(html.includes('<b id="node-version">v20.20.2</b>'));
  assert.match(html, /time to ready \(listening\)<\/div><div class="value">132 ms/);
  // 131.5 ms to ready, 90 ms profiled: 41.5 ms before the profiler started.
  assert.match(html, /before profiling<\/b> 41\.5 ms/);
  for (const cat of ['resolve', 'read', 'compile', 'execute', 'gc', 'other']) assert.match(html, new RegExp(`class="cat-${cat}"`));
  assert.doesNotMatch(html, /class="cat-idle"/, 'a category with no time is left out');
  assert.ok(html.includes('<code>/etc/ssl/openssl.cnf</code>') && html.includes('<code>/home/dev/.npmrc</code>'));
  assert.match(html, /outside the root<\/div><div class="value">2/);
});

test('package and module tables: one row each, slowest first, sort values on the cells', () => {
  const html = renderReportHtml(makeReport());
  const packages = /<table class="sortable" id="packages-table">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)[1];
  const names = [...packages.matchAll(/<tr><td data-v="([^"]+)"/g)].map((m) => m[1]);
  assert.deepStrictEqual(names, ['debug', '(app)', 'express'], 'by own time: debug 50, (app) 14, express 10');
  const modules = /<table class="sortable" id="modules-table">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)[1];
  assert.strictEqual((modules.match(/<tr>/g) || []).length, 4);
  assert.match(modules, /^\s*<tr><td class="file" data-v="server\.js"/, 'by inclusive time: the entry first');
});

test('a report without a CPU profile, modules or outside files still renders', () => {
  const html = renderReportHtml(makeReport({ categories: null, modules: [], packages: [], outsideRoot: [], partial: true, until: 'exit' }));
  assert.match(html, /No CPU profile in this report/);
  assert.match(html, /No modules were loaded/);
  assert.match(html, /None: every startup file is inside the root/);
  assert.match(html, /partial: interrupted/);
  assert.match(html, /time to ready \(exit\)/);
});

test('coldstart profile writes report.html beside report.json and points at coldstart view', async () => {
  const dir = copyFixture('plain-http');
  try {
    const r = await runCli(['profile', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const out = path.join(dir, '.coldstart');
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    assert.strictEqual(report.artifacts.html, path.join('.coldstart', 'report.html'));
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    assert.strictEqual(html, renderReportHtml(report), 'the page is the report rendered');
    assert.match(r.stdout, /\n {2}\.coldstart\/report\.html\n/);
    assert.match(r.stdout, /coldstart view \.coldstart\/report\.html/);
    assert.match(r.stdout, /coldstart view \.coldstart\/startup\.cpuprofile/);
    assert.deepStrictEqual(fs.readdirSync(out).sort(), ['report.html', 'report.json', 'startup-files.txt', 'startup.cpuprofile', 'startup.raw.cpuprofile']);
  } finally {
    rm(dir);
  }
});

test('the advice leads: its card comes before the split, with each finding\'s evidence', () => {
  const advice = [{
    kind: 'lazy-load', subject: 'debug', file: 'server.js', line: 3, column: 15, request: 'debug', estimatedMs: 51,
    evidence: '1 module loaded before ready', fix: "move require('debug') into the function that uses it",
    samples: 12, runs: { seen: 2, of: 3 }, interval: [40, 60.5], command: "coldstart profile --verify-advice -- node '<app>.js'",
    sites: [{ file: 'server.js', line: 3, column: 15, request: 'debug' }, { file: 'lib/log.js', line: 1, column: 14, request: 'debug' }],
  }, {
    kind: 'sync-work', subject: 'fs.readFileSync', file: 'lib/config.js', line: 9, estimatedMs: 6, evidence: '6 ms blocked',
    fix: 'read it asynchronously', runs: { seen: 1, of: 1 }, chain: ['loadConfig (lib/config.js:9:3)', 'fs.readFileSync'],
  }];
  const html = renderReportHtml(makeReport({ advice }));
  assert.ok(html.indexOf('id="advice"') > 0 && html.indexOf('id="advice"') < html.indexOf('id="split"'), 'advice before the split');
  assert.ok(html.indexOf('id="advice"') > html.indexOf('</header>'), 'right under the header cards');
  const card = /<section class="card" id="advice">([\s\S]*?)<\/section>/.exec(html)[1];
  assert.match(card, /<code class="where">server\.js:3:15<\/code>/);
  assert.match(card, /12 CPU samples; in 2 of 3 runs; estimate 51\.0 ms \[40\.0 ms … 60\.5 ms\]/);
  assert.match(card, /change all 2 places:<ul><li><code>server\.js:3:15<\/code>[\s\S]*<code>lib\/log\.js:1:14<\/code>/);
  assert.match(card, /<code class="command"[^>]*>coldstart profile --verify-advice -- node &#39;&#60;app&#62;\.js&#39;<\/code>/);
  assert.match(card, /6 ms blocked; single run/);
  assert.match(card, /<details class="chain"><summary>[^<]*2 frames\)<\/summary><ol><li><code>loadConfig \(lib\/config\.js:9:3\)<\/code><\/li><li><code>fs\.readFileSync<\/code>/);
  assert.doesNotMatch(card, /<table/, 'a list that wraps, not a table that widens the card');
});

test('no advice: the card says nothing was found when there is a profile, and is left out without one', () => {
  const html = renderReportHtml(makeReport({ advice: [] }));
  assert.match(html, /id="advice"[\s\S]*No advice: nothing found above the evidence thresholds/);
  assert.doesNotMatch(renderReportHtml(makeReport({ categories: null })), /id="advice"/);
});

test('boot is explained, the bare-Node floor sits beside it, off-CPU time and a busy machine are named', () => {
  const machine = { offCpuMs: 30, offCpuShare: 0.23, loadAverage: [6.5, 4, 2], cpus: 2, floorMs: 38.4, busy: true };
  const categories = { totalMs: 100, resolve: 20, read: 5, compile: 15, execute: 30, gc: 4, idle: 0, other: 6, offCpu: 20 };
  const html = renderReportHtml(makeReport({ machine, categories, readyAt: 140 }));
  assert.match(html, /<li data-key="boot"><i class="cat-boot"><\/i><b>Node start, before profiling<\/b> 40\.0 ms/);
  assert.match(html, /bootstrap and coldstart&#39;s agent setup before the profiler starts; not the app&#39;s code/);
  assert.match(html, /a bare Node that listens took 38\.4 ms here in the same run/);
  assert.match(html, /class="seg cat-offCpu"/);
  assert.match(html, /<b>not running \(machine busy\)<\/b> 20\.0 ms/);
  assert.match(html, /time the thread was not on a CPU: it is nobody&#39;s code; a busy machine inflates it/);
  const header = /<header[\s\S]*?<\/header>/.exec(html)[0];
  assert.match(header, /The machine was busy: for 23% of the profiled time the app was not running, waiting for a CPU \(load average 6\.50 on 2 CPUs\); module times leave out the time the profile saw it not running\./);
  const waited = renderReportHtml(makeReport({ machine: { ...machine, runQueueMs: 21, runQueueShare: 0.16 } }));
  assert.match(waited, /The machine was busy: for 16% of the profiled time the app waited for a CPU \(load average 6\.50 on 2 CPUs\); module times are CPU they used\./);
  // A kernel that fakes its load average (gVisor's reads 0): none is quoted.
  const sandbox = /<header[\s\S]*?<\/header>/.exec(renderReportHtml(makeReport({ machine: { ...machine, loadAverage: null } })))[0];
  assert.match(sandbox, /for 23% of the profiled time the app was not running, waiting for a CPU; module times leave out/);
  assert.doesNotMatch(sandbox, /load average/);

  const calm = renderReportHtml(makeReport({ machine: { ...machine, busy: false, floorMs: null } }));
  assert.doesNotMatch(calm, /machine was busy|bare Node/);
  const old = renderReportHtml(makeReport());
  assert.doesNotMatch(old, /machine was busy|bare Node|class="seg cat-offCpu"/, 'a report from before these fields');
});

test('counts are pluralised: 1 module, 1 package', () => {
  const modules = [{ file: 'server.js', package: '(app)', kind: 'cjs', parent: null, startMs: 40, resolveMs: 0, loadMs: 8, selfMs: 8, inclusiveMs: 8 }];
  const html = renderReportHtml(makeReport({ modules, packages: packageTotals(modules) }));
  assert.match(html, /id="module-count">1 module</);
  assert.match(html, /<div class="note">1 package<\/div>/);
  assert.doesNotMatch(html, /\b1 (modules|packages)\b/);
});
