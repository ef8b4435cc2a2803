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
    assert.deepStrictEqual(fs.readdirSync(out).sort(), ['report.html', 'report.json', 'startup-files.txt', 'startup.cpuprofile']);
  } finally {
    rm(dir);
  }
});
