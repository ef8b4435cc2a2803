'use strict';
// The advice of several profiles of one app (profile --runs N): a finding stands when it is found
// in most runs, with the median of its estimates and their interval; one a single run found is
// where the thread happened to be, not a finding. Pure: each run's advice in, the advice out.
const { medianInterval } = require('../stats.js');

/**
 * One finding across runs: the same kind and subject, and for a statement to change (a require, a
 * call) the same place; a package's copies or entry point are the same finding wherever the run
 * found its largest copy or first use.
 */
const PLACED = new Set(['lazy-load', 'sync-work']);
const keyOf = (a) => `${a.kind}\0${a.subject}${PLACED.has(a.kind) ? `\0${a.file}\0${a.line}` : ''}`;

/**
 * @param {Array<Array<object>>} perRun each run's advice (buildReport().advice), the first the run reported
 * @returns {{ advice: Array<object>, unstable: Array<{ kind, subject, file, line, runs: {seen, of} }> }}
 *   advice: findings seen in more than half of the runs, each from the first run that found it, with
 *   runs: { seen, of }, estimatedMs the median over the runs that found it and interval [low, high]
 *   (null below 2 runs); unstable: the others
 */
function adviceAcrossRuns(perRun) {
  const of = perRun.length;
  const found = new Map();
  perRun.forEach((advice, run) => {
    for (const a of advice) {
      const key = keyOf(a);
      if (!found.has(key)) found.set(key, { first: a, estimates: [], lastRun: -1 });
      const entry = found.get(key);
      if (entry.lastRun === run) continue; // one estimate a run
      entry.lastRun = run;
      entry.estimates.push(a.estimatedMs);
    }
  });
  const advice = [];
  const unstable = [];
  for (const { first, estimates } of found.values()) {
    const runs = { seen: estimates.length, of };
    if (estimates.length * 2 <= of && of > 1) {
      unstable.push({ kind: first.kind, subject: first.subject, file: first.file, line: first.line, runs });
      continue;
    }
    const mi = medianInterval(estimates);
    advice.push({
      ...first,
      estimatedMs: Math.round(mi.median * 100) / 100,
      runs,
      interval: mi.low == null ? null : [Math.round(mi.low * 100) / 100, Math.round(mi.high * 100) / 100],
    });
  }
  advice.sort((a, b) => b.estimatedMs - a.estimatedMs);
  return { advice, unstable };
}

module.exports = { adviceAcrossRuns };
