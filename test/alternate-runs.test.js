'use strict';
// The one alternating-runs engine: every variant once a round, each round in an order drawn at
// random, warm-up rounds uncounted, `more` rounds while undecided, STOP and DROP as documented.
const test = require('node:test');
const assert = require('node:assert/strict');
const { alternateRuns, STOP, DROP } = require('../lib/measure/alternate-runs.js');
const { roundsOf } = require('./helpers/rounds.js');

/** Variants that log each run and resolve to `value(name, round)`. */
function logged(names, value = () => 1) {
  const log = [];
  const variants = names.map((name) => ({ name, run: async ({ round, warmup }) => { log.push(warmup ? `w:${name}` : name); return value(name, round); } }));
  return { log, variants };
}

/** A seeded generator (mulberry32), so a test's orders are the same each time. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('each round runs every variant once, in an order drawn at random; no variant holds one place', async () => {
  const { log, variants } = logged(['a', 'b', 'c']);
  const measured = await alternateRuns({ variants, rounds: 200, warmup: 1, random: seeded(7) });
  assert.equal(measured.rounds, 200);
  assert.deepEqual(log.slice(0, 3).map((x) => x.slice(0, 2)), ['w:', 'w:', 'w:'], 'the warm-up round first, uncounted');
  const rounds = roundsOf(log.slice(3), 3);
  for (const round of rounds) assert.deepEqual([...round].sort(), ['a', 'b', 'c']);
  assert.deepEqual(measured.order.map((o) => o.variant), log.slice(3), 'order: the counted runs as they ran');
  // Each variant takes each place about a third of the time, and the orders are not a cycle.
  for (const name of ['a', 'b', 'c']) {
    for (let place = 0; place < 3; place++) {
      const times = rounds.filter((r) => r[place] === name).length;
      assert.ok(times > 40 && times < 95, `${name} at place ${place}: ${times} of 200`);
    }
  }
  const distinct = new Set(rounds.map((r) => r.join(''))).size;
  assert.equal(distinct, 6, 'all six orders occur');
  // At the same place of every four runs (where a rotation a b, b a puts one variant), both variants of a pair fall alike.
  const pair = logged(['x', 'y']);
  await alternateRuns({ variants: pair.variants, rounds: 400, random: seeded(11) });
  const atFourth = pair.log.filter((_, i) => i % 4 === 0);
  const xShare = atFourth.filter((v) => v === 'x').length / atFourth.length;
  assert.ok(xShare > 0.4 && xShare < 0.6, `x at every fourth run: ${xShare}`);
});

test('more: counted rounds go on one at a time while needed, up to atMost; STOP ends partial; DROP leaves a variant out', async () => {
  const grown = logged(['a', 'b']);
  const measured = await alternateRuns({ variants: grown.variants, rounds: 3, more: { atMost: 6, needed: (s) => s.a.length < 5 } });
  assert.equal(measured.rounds, 5);
  assert.deepEqual([measured.samples.a.length, measured.samples.b.length], [5, 5]);

  const stopped = logged(['a', 'b'], (name, round) => (round === 2 && name === 'b' ? STOP : round));
  const partial = await alternateRuns({ variants: stopped.variants, rounds: 5 });
  assert.equal(partial.partial, true);
  assert.equal(partial.rounds, 2);

  const dropping = logged(['a', 'b'], (name) => (name === 'b' ? { [DROP]: 'does not start' } : 1));
  const left = await alternateRuns({ variants: dropping.variants, rounds: 3 });
  assert.deepEqual(left.dropped, { b: 'does not start' });
  assert.equal(left.samples.a.length, 3);
  assert.deepEqual(left.samples.b, []);
});
