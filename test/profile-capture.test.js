'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { capture } = require('../lib/capture/capture.js');
const { readModuleSpan, outsideSpan } = require('./helpers/module-span.js');
const { copyFixture, runCli, rm } = require('./helpers/app.js');

function assertValidProfile(p) {
  assert.ok(Array.isArray(p.nodes) && p.nodes.length > 0, 'nodes');
  assert.strictEqual(typeof p.startTime, 'number');
  assert.ok(p.endTime > p.startTime, 'endTime after startTime');
  assert.strictEqual(p.samples.length, p.timeDeltas.length, 'one delta per sample');
  const ids = new Set(p.nodes.map((n) => n.id));
  for (const s of p.samples) assert.ok(ids.has(s), `sample ${s} refers to a node`);
  for (const n of p.nodes) {
    assert.ok(n.callFrame && typeof n.callFrame.functionName === 'string');
    for (const c of n.children || []) assert.ok(ids.has(c));
  }
}

/** Samples whose stack holds the agent's hold (holdForCli > inspector.waitForDebugger). */
function holdSamples(p) {
  const parent = new Map();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const inHold = (id) => {
    for (let at = id; at !== undefined; at = parent.get(at)) {
      if (/^(holdForCli|inspectorWaitForDebugger|waitForDebugger)$/.test(byId.get(at).callFrame.functionName)) return true;
    }
    return false;
  };
  return p.samples.filter(inHold).length;
}

test('the profile covers process start to the listen moment', async () => {
  const dir = copyFixture('plain-http');
  try {
    const r = await capture({ command: ['node', 'server.js'], cwd: dir });
    assertValidProfile(r.profile);
    const firstModule = r.modules[0];
    assert.strictEqual(path.basename(firstModule.file), 'server.js');
    // Convert the first module's start to the profile clock (µs, monotonic).
    const firstModuleUs = r.clock.startUs + r.clock.pausedUs + firstModule.startMs * 1000;
    assert.ok(r.profile.startTime >= r.clock.resumeUs, 'the profile starts when the start hold ends');
    assert.strictEqual(holdSamples(r.profile), 0);
    assert.ok(r.profile.startTime <= firstModuleUs, 'the profile spans the first user module from its start');
    const afterListenMs = (r.profile.endTime - r.clock.readyUs) / 1000;
    assert.ok(afterListenMs >= 0 && afterListenMs <= 10, `profile ends within 10 ms after listen (was ${afterListenMs} ms)`);
    assert.ok(r.readyAt > 0 && r.readyAt < 30000);
    assert.strictEqual(r.until, 'listen');
    assert.strictEqual(r.partial, false);
    assert.ok(r.address && r.address.port > 0, 'listen address recorded');
  } finally {
    rm(dir);
  }
});

test('a module that busy-waits 50 ms is reported at the span it measured itself, inside its parent', async () => {
  const dir = copyFixture('slow-require');
  try {
    const spanFile = path.join(dir, 'span.txt');
    const r = await capture({ command: ['node', 'server.js'], cwd: dir, profile: false, env: { ...process.env, SLOW_SPAN_FILE: spanFile } });
    const span = readModuleSpan(spanFile);
    const slow = r.modules.find((m) => m.file.endsWith('slow.js'));
    const server = r.modules.find((m) => m.file.endsWith('server.js'));
    assert.ok(slow && server);
    // Ground truth from the same process at the same time: between the module's own span and its caller's.
    assert.strictEqual(outsideSpan(slow.selfMs, span), '');
    assert.strictEqual(slow.parent, server.file);
    assert.ok(server.inclusiveMs >= slow.inclusiveMs, 'parent inclusive contains the child');
    assert.ok(server.selfMs < server.inclusiveMs - 45, 'the child is not counted in the parent self time');
  } finally {
    rm(dir);
  }
});

test('profile writes a cpuprofile, the startup file list and report.json; packages add up', async () => {
  const dir = copyFixture('express-app');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const out = path.join(dir, '.coldstart');
    const profile = JSON.parse(fs.readFileSync(path.join(out, 'startup.cpuprofile'), 'utf8'));
    assertValidProfile(profile);
    assert.strictEqual(holdSamples(profile), 0, 'no sample is coldstart waiting for its profiler');
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    for (const key of ['readyAt', 'until', 'partial', 'node', 'modules', 'packages', 'files', 'bytes']) assert.ok(key in report, key);
    assert.strictEqual(report.node, process.version);
    assert.strictEqual(report.files, fs.readFileSync(path.join(out, 'startup-files.txt'), 'utf8').trim().split('\n').length);
    const sum = report.packages.reduce((s, p) => s + p.inclusiveMs, 0);
    assert.ok(sum <= report.readyAt, `packages ${sum} ms <= readyAt ${report.readyAt} ms`);
    // Node's own bootstrap runs before any module: the rest up to the listen is mostly module loading,
    // the packages' CPU and, on a busy machine, the time their modules waited for a CPU (each
    // module's offCpuMs in the same report; none to speak of on an idle machine).
    const afterBootstrap = report.listenAt - report.modules[0].startMs;
    const waited = report.modules.reduce((s, m) => s + (m.offCpuMs || 0), 0);
    assert.ok(sum + waited >= 0.5 * afterBootstrap, `packages ${sum} ms, and ${waited} ms their modules waited for a CPU, account for most of ${afterBootstrap} ms`);
    assert.ok(report.packages.some((p) => p.name === 'express' && p.modules > 1));
    // A package's bytes are its module files' sizes as read at startup.
    const express = report.packages.find((p) => p.name === 'express');
    const expressFiles = report.modules.filter((m) => m.package === 'express').map((m) => fs.statSync(path.join(dir, m.file)).size);
    assert.strictEqual(express.bytes, expressFiles.reduce((a, b) => a + b, 0));
    assert.ok(express.bytes > 0);
    const cats = report.categories;
    for (const k of ['resolve', 'read', 'compile', 'execute', 'other']) assert.ok(typeof cats[k] === 'number', k);
    // The summary tells where things are and how to open them.
    // A server is ready at its first answer (GET /), its listen said apart.
    assert.match(stdout, /ready \(first answer to GET \/\) after/);
    assert.match(stdout, /^  listening at [\d.]+ m?s, answered 200 [\d.]+ m?s later$/m);
    assert.ok(report.listenAt > 0 && report.listenAt <= report.readyAt, `listen ${report.listenAt} ms, ready ${report.readyAt} ms`);
    assert.deepStrictEqual(report.answer, { status: 200 });
    assert.match(stdout, /Top packages/);
    assert.match(stdout, /startup\.cpuprofile/);
    assert.match(stdout, /speedscope/);
    // The app's own output passes through.
    assert.match(stdout, /express-app listening on/);
  } finally {
    rm(dir);
  }
});

test('--json prints exactly one JSON document on stdout; the built-ins are the app\'s own requires, none of coldstart\'s', async () => {
  const dir = copyFixture('plain-http');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const doc = JSON.parse(stdout);
    assert.strictEqual(doc.until, 'answer:/');
    assert.deepStrictEqual(doc.answer, { status: 200 });
    // server.js requires http alone; the agent's own url and net (file reads, the ready moment) are not the app's.
    assert.deepStrictEqual(doc.builtins, ['node:http']);
  } finally {
    rm(dir);
  }
});

test('--until exit profiles a script that ends by itself', async () => {
  const dir = copyFixture('exit-without-listen');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--until', 'exit', '--json', '--', 'node', 'build.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const doc = JSON.parse(stdout);
    assert.strictEqual(doc.until, 'exit');
    const profile = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'startup.cpuprofile'), 'utf8'));
    assert.ok(profile.samples.length > 0);
    assert.strictEqual(holdSamples(profile), 0, 'no sample is coldstart waiting for its profiler, at start or at exit');
    assert.strictEqual(doc.exitCode, 0);
    assert.ok(doc.modules.some((m) => m.file === 'build.js'));
  } finally {
    rm(dir);
  }
});

test('--until <duration> stops at a fixed time for an app that never listens', async () => {
  const dir = copyFixture('never-listens');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--until', '700ms', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const doc = JSON.parse(stdout);
    assert.strictEqual(doc.until, '700ms');
    assert.strictEqual(doc.partial, false);
    assert.ok(doc.readyAt >= 300, `readyAt ${doc.readyAt}`);
  } finally {
    rm(dir);
  }
});

// An app that listens within a few ms of being let go at its start reaches its ready moment while
// coldstart may still be waiting to hear it resumed from the start: it is held there all the same,
// let go once profiled, and what its listen callback prints reaches the terminal (it was lost when
// the ready moment came first, or when a release sent twice for the start ended the ready hold).
test('profile: a tiny app ready right after its start is let go at the ready moment, its listen line printed', async () => {
  const dir = copyFixture('plain-http');
  try {
    const runs = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => runCli(['profile', '--out', `out${i}`, '--', 'node', 'server.js'], { cwd: dir })));
    for (const r of runs) {
      assert.strictEqual(r.code, 0, r.stderr);
      assert.match(r.stdout, /plain-http listening on \d+/);
      assert.match(r.stdout, /coldstart: ready \(first answer to GET \/\)/);
    }
  } finally {
    rm(dir);
  }
});
