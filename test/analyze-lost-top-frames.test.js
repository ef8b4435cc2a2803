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

test('syncWork: the samples given back go to the lines V8 saw the top level on, never to a line seen once', () => {
  const { syncWork } = require('../lib/analyze/sync-work.js');
  const source = [
    "'use strict';",
    'const t0 = Date.now();',
    'let x = 1;',
    'for (let n = 0; Date.now() - t0 < 50; n++) x = (x * 7) % 13;',
    'module.exports = { x, at: Date.now() };',
    '',
  ].join('\n');
  // a.js's top level: 6 samples V8 saw on line 4, 1 on line 5; 40 more stopped at the loader frame.
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2] },
      { id: 2, callFrame: frame('', 'node:internal/modules/cjs/loader', 1878, 36), children: [3] },
      { id: 3, callFrame: frame('', 'file:///app/a.js'), children: [], positionTicks: [{ line: 4, ticks: 6 }, { line: 5, ticks: 1 }] },
    ],
    startTime: toProfileUs(0),
    samples: [3, ...Array(40).fill(2), 3, 3, 3, 3, 3, 3],
    timeDeltas: [10500, ...Array(46).fill(1000)],
    endTime: toProfileUs(58),
  };
  const modules = [{ file: '/app/a.js', windows: [[10, 58]], selfMs: 47 }];
  const advice = syncWork({ profile, modules }, { readSource: () => source, show: (f) => f.slice('/app/'.length), toProfileUs });
  assert.deepStrictEqual(advice.map((a) => [a.file, a.line, a.subject]), [['a.js', 4, 'top-level code']]);
  assert.ok(advice[0].estimatedMs > 35 && advice[0].estimatedMs <= 47, JSON.stringify(advice[0]));
  const unseen = syncWork({ profile, modules }, { readSource: () => source, show: (f) => f.slice('/app/'.length) });
  assert.ok(unseen[0].estimatedMs < 10, 'without the modules\' clock, only the samples V8 saw');
});
