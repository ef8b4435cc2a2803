'use strict';
// The advice of several profiles of one app: what most runs found, with its median and interval.
const test = require('node:test');
const assert = require('node:assert');
const { adviceAcrossRuns } = require('../lib/analyze/advice-across-runs.js');

test('adviceAcrossRuns: a finding most runs found stands with its median and interval; one run\'s is left out', () => {
  const f = (subject, estimatedMs) => ({ kind: 'sync-work', subject, file: 'a.js', line: 3, estimatedMs });
  const { advice, unstable } = adviceAcrossRuns([[f('fs.readFileSync', 10), f('top-level code', 6)], [f('fs.readFileSync', 14)], [f('fs.readFileSync', 12), f('fs.readFileSync', 99)]]);
  assert.deepStrictEqual(advice.map((a) => [a.subject, a.estimatedMs, a.runs, a.interval]), [['fs.readFileSync', 12, { seen: 3, of: 3 }, [10, 14]]]);
  assert.deepStrictEqual(unstable.map((u) => [u.subject, u.runs]), [['top-level code', { seen: 1, of: 3 }]]);
  assert.deepStrictEqual(adviceAcrossRuns([[f('x', 7)]]).advice.map((a) => [a.runs, a.interval]), [[{ seen: 1, of: 1 }, null]]);
});
