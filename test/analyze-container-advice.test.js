'use strict';
// Advice only a start inside a container gets (profile --docker): serve the startup files from
// memory with coldstart start, or give its archive a code cache. Pure, from report.json.
const test = require('node:test');
const assert = require('node:assert');
const { containerAdvice, underColdstartStart } = require('../lib/analyze/container-advice.js');

const report = (command, categories, container = { image: 'svc:1', runtime: 'runsc', command }) => ({
  command, container, files: 300, categories: { totalMs: 400, resolve: 90, read: 60, compile: 120, execute: 100, gc: 10, idle: 0, other: 20, ...categories },
});

test('a plain node start in a container: resolution and reads are what start would serve from memory', () => {
  const [a] = containerAdvice(report(['node', 'server.js'], {}));
  assert.strictEqual(a.kind, 'container-start');
  assert.strictEqual(a.estimatedMs, 150);
  assert.match(a.evidence, /150 ms of the profile under gVisor \(runsc\) resolved and read 300 startup files/);
  assert.match(a.fix, /coldstart pack --code-cache.*coldstart start/);
});

test('under coldstart start: a large compile share asks for a code cache; a small one says nothing', () => {
  const start = ['node', 'node_modules/coldstart/bin/coldstart.js', 'start', '--archive', 'startup.tar', '--', 'node', 'server.js'];
  assert.ok(underColdstartStart(start) && underColdstartStart(['npx', 'coldstart', 'start', '--', 'node', 'a.js']));
  assert.ok(!underColdstartStart(['node', 'start.js']));
  const [a] = containerAdvice(report(start, {}));
  assert.deepStrictEqual([a.kind, a.estimatedMs], ['container-code-cache', 120]);
  assert.deepStrictEqual(containerAdvice(report(start, { compile: 8 })), []);
});

test('no container, no profile categories, or too little to gain: no finding', () => {
  assert.deepStrictEqual(containerAdvice({ ...report(['node', 'a.js'], {}), container: undefined }), []);
  assert.deepStrictEqual(containerAdvice({ ...report(['node', 'a.js'], {}), categories: null }), []);
  assert.deepStrictEqual(containerAdvice(report(['node', 'a.js'], { resolve: 3, read: 2 })), []);
});
