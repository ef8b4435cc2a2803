'use strict';
// A sample V8 stopped at Node's loader frame is given to the top level of the module that frame
// ran, only while that module was the one loading, after its top level was first seen running (the
// loader's own time before it: compiling the module), and only when the module's top level is that
// frame's child.
const test = require('node:test');
const assert = require('node:assert');
const { lostTopFrames } = require('../lib/analyze/lost-top-frames.js');

const frame = (functionName, url, lineNumber = 0, columnNumber = 0) => ({ functionName, url, lineNumber, columnNumber, scriptId: '0' });

// root -> server.js top level -> loader frame -> a.js top level, b.js top level; a.js -> its function f.
const PROFILE = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2] },
    { id: 2, callFrame: frame('', 'file:///app/server.js'), children: [3] },
    { id: 3, callFrame: frame('', 'node:internal/modules/cjs/loader', 1878, 36), children: [4, 5] },
    { id: 4, callFrame: frame('', 'file:///app/a.js'), children: [6] },
    { id: 5, callFrame: frame('', 'file:///app/b.js'), children: [] },
    { id: 6, callFrame: frame('f', 'file:///app/a.js', 3, 10), children: [] },
  ],
};
// Samples V8 saw whole: a.js's function f at 10.5 ms, b.js's top level at 12.5 ms.
const toProfileUs = (ms) => 1000 + ms * 1000;
PROFILE.startTime = toProfileUs(0);
PROFILE.samples = [6, 5];
PROFILE.timeDeltas = [10500, 2000];
PROFILE.endTime = toProfileUs(50);
// a.js loads from 10 to 20 ms (b.js inside it, 12 to 14 ms), then b.js alone from 30 to 40 ms.
const MODULES = [
  { file: '/app/a.js', windows: [[10, 20]] },
  { file: '/app/b.js', windows: [[12, 14], [30, 40]] },
];

test('lostTopFrames: a sample at the loader frame is the top level of the module loading then; other samples are left alone', () => {
  const owner = lostTopFrames(PROFILE, MODULES, toProfileUs);
  const at = (id, ms) => owner({ id, t: toProfileUs(ms) });
  assert.strictEqual(at(3, 10.2), null, "a.js's window before its top level ran: the loader compiling it");
  assert.strictEqual(at(3, 11).id, 4, "a.js's own time");
  assert.strictEqual(at(3, 13).id, 5, 'b.js, loading inside a.js');
  assert.strictEqual(at(3, 18).id, 4, 'a.js again once b.js is done');
  assert.strictEqual(at(3, 35).id, 5);
  assert.strictEqual(at(3, 25), null, 'no module loading: the loader\'s own time');
  assert.strictEqual(at(2, 11), null, 'a sample at a frame of the app is what it says');
  assert.strictEqual(at(6, 11), null);
  assert.strictEqual(at(4, 11), null, 'a sample V8 saw whole');
});

test('lostTopFrames: a module whose top level the loader frame did not call is not given the sample', () => {
  const owner = lostTopFrames(PROFILE, [{ file: '/app/c.js', windows: [[10, 20]] }], toProfileUs);
  assert.strictEqual(owner({ id: 3, t: toProfileUs(15) }), null);
  assert.strictEqual(lostTopFrames(PROFILE, undefined, toProfileUs)({ id: 3, t: toProfileUs(15) }), null, 'no module records');
});
