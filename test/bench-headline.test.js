'use strict';
// bench/headline.js's table, from a made-up report: each cell end to end / in-process, the
// ratio to plain and ms per module from the in-process medians.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { table } = require('../bench/headline.js');

test('headline: each cell is end to end / in-process, ratios and ms/module from in-process', () => {
  const stats = (median) => ({ n: 3, median });
  const row = (variant, runtime, total, inProcess) => ({ variant, runtime, total: stats(total), inProcess: inProcess == null ? null : stats(inProcess) });
  const report = {
    runtimes: ['runc', 'runsc-2024'],
    results: [
      row('floor-node', 'runc', 300, 50), row('floor-node', 'runsc-2024', 520, 90),
      row('plain', 'runc', 650, 400), row('plain', 'runsc-2024', 2000, 1490),
      row('start-memory-cache-verify', 'runc', 480, 250), row('start-memory-cache-verify', 'runsc-2024', 944, 600),
      // No in-process figure (a shell started node): end to end alone, no ratio.
      row('bundle', 'runc', 400, null), row('bundle', 'runsc-2024', 700, null),
    ],
  };
  const lines = table(report, 1000);
  assert.equal(lines[0], '| variant: end to end / in-process, ms | runc | gVisor 2024 (systrap) |');
  assert.deepEqual(lines.slice(2), [
    '| a bare node listening (the floor) | 300 / 50 | 520 / 90 |',
    '| plain `node` | 650 / 400 (0.35 ms/module) | 2000 / 1490 (1.40 ms/module) |',
    '| `coldstart start`, `pack --code-cache` (what `coldstart dockerfile` writes) | 480 / 250 (0.63x, 0.20 ms/module) | 944 / 600 (0.40x, 0.51 ms/module) |',
    '| ncc bundle | 400 / – | 700 / – |',
  ]);
  // Without a module count (the heavy app): ratios only.
  assert.equal(table(report, null)[4], '| `coldstart start`, `pack --code-cache` (what `coldstart dockerfile` writes) | 480 / 250 (0.63x) | 944 / 600 (0.40x) |');
});
