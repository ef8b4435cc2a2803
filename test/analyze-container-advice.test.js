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
  // Not a timed start: said so, with how to time it, in the summary and report.html alike.
  assert.strictEqual(a.verified.verdict, 'not verified');
  assert.match(require('../lib/report/terminal.js').verifiedText(a.verified), /^not verified: the time this profile spent, not a start timed with the change: profile the image built with it \(coldstart profile --docker IMAGE --runtime runsc\) and compare the two with coldstart diff$/);
});

test('under coldstart start: a large compile share asks for a code cache; a small one says nothing', () => {
  const start = ['node', 'node_modules/coldstart/bin/coldstart.js', 'start', '--archive', 'startup.tar', '--', 'node', 'server.js'];
  assert.ok(underColdstartStart(start) && underColdstartStart(['npx', 'coldstart', 'start', '--', 'node', 'a.js']));
  assert.ok(!underColdstartStart(['node', 'start.js']));
  const [a] = containerAdvice(report(start, {}));
  assert.deepStrictEqual([a.kind, a.estimatedMs, a.verified.verdict], ['container-code-cache', 120, 'not verified']);
  assert.deepStrictEqual(containerAdvice(report(start, { compile: 8 })), []);
});

test('no container, no profile categories, or too little to gain: no finding', () => {
  assert.deepStrictEqual(containerAdvice({ ...report(['node', 'a.js'], {}), container: undefined }), []);
  assert.deepStrictEqual(containerAdvice({ ...report(['node', 'a.js'], {}), categories: null }), []);
  assert.deepStrictEqual(containerAdvice(report(['node', 'a.js'], { resolve: 3, read: 2 })), []);
});

test('under start: the time its check of each packed file took, from the profile; none with --trust-archive (or its old spelling --verify none)', () => {
  const start = ['node', 'bin/coldstart.js', 'start', '--archive', 'a.tar', '--', 'node', 'server.js'];
  const verifying = { ...report(start, { compile: 1 }), startVerifyMs: 42.5 };
  assert.deepStrictEqual(containerAdvice(verifying).map((a) => [a.kind, a.estimatedMs, a.fix.split(':')[0]]), [['container-verify', 42.5, 'start --trust-archive']]);
  for (const trusting of [['--trust-archive'], ['--verify', 'none']]) {
    const none = { ...report([...start.slice(0, 5), ...trusting, ...start.slice(5)], { compile: 1 }), startVerifyMs: 42.5 };
    assert.deepStrictEqual(containerAdvice(none), [], trusting.join(' '));
  }
});

test('startVerifyMs: the samples under start\'s check of a packed file', () => {
  const { startVerifyMs } = require('../lib/analyze/container-advice.js');
  const frame = (id, functionName, url, children = []) => ({ id, callFrame: { functionName, url, lineNumber: 0, columnNumber: 0 }, children });
  const profile = {
    nodes: [frame(1, '(root)', '', [2, 4]), frame(2, 'usable', '/opt/cs/lib/start/memory-loader.js', [3]), frame(3, 'statSync', 'node:fs'), frame(4, 'main', '/app/server.js')],
    startTime: 0, endTime: 4000, samples: [3, 2, 4, 3], timeDeltas: [0, 1000, 1000, 1000],
  };
  assert.strictEqual(startVerifyMs(profile), 3); // three samples of 1 ms under usable (the last one to endTime)
  assert.strictEqual(startVerifyMs(null), 0);
});

test('what start said of itself decides: no code-cache advice when the archive has one, no check advice when it is off, none under a snapshot', () => {
  const start = ['node', 'bin/coldstart.js', 'start', '--archive', 'a.tar', '--', 'node', 'server.js'];
  const served = (s) => ({ ...report(start, {}), startVerifyMs: 42.5, served: { mode: 'memory', verify: 'size', codeCacheModules: 0, index: true, ...s } });
  assert.deepStrictEqual(containerAdvice(served({})).map((a) => a.kind).sort(), ['container-code-cache', 'container-verify']);
  assert.deepStrictEqual(containerAdvice(served({ codeCacheModules: 310 })).map((a) => a.kind), ['container-verify']);
  assert.deepStrictEqual(containerAdvice(served({ codeCacheModules: 310, verify: 'none' })), []);
  assert.deepStrictEqual(containerAdvice(served({ mode: 'snapshot' })), []);
  // Started through a wrapper script the command does not show: start's own word still counts.
  assert.deepStrictEqual(containerAdvice({ ...served({ codeCacheModules: 310, verify: 'none' }), command: ['sh', 'run.sh'] }), []);
});
