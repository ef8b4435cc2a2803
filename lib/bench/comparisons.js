'use strict';
// What bench says when it times more than one way to start: each series against the first one
// (its baseline), from runs taken in alternation. Containers compare within one runtime: the
// first series under runc is the baseline of every runc series, likewise for runsc. Pure: the
// runner's series in, plain data out.
const { compareSamples, ratioInterval } = require('../stats.js');

/**
 * @param {{label: string, where: string, runtime?: string, metric: 'inside'|'outside',
 *   inside: number[], outside: number[]}[]} series as runBench returns them
 * @param {{confidence?: number}} [options] default 0.95
 * @returns {({index: number, label: string, baselineIndex: number, baseline: string, metric: string,
 *   factor: ReturnType<typeof ratioInterval>} & ReturnType<typeof compareSamples>)[]} one entry per
 *   series that has a baseline before it (none for a lone series); index and baselineIndex point
 *   into `series` (labels may repeat); before is the baseline, after the series
 */
function compareSeries(series, { confidence = 0.95 } = {}) {
  const baselines = new Map();
  const out = [];
  series.forEach((s, index) => {
    const group = `${s.where}:${s.runtime || ''}`;
    if (!baselines.has(group)) {
      baselines.set(group, index);
      return;
    }
    const baselineIndex = baselines.get(group);
    const baseline = series[baselineIndex];
    const metric = s.metric;
    out.push({
      index, label: s.label, baselineIndex, baseline: baseline.label, metric,
      ...compareSamples(baseline[metric], s[metric], { confidence }),
      factor: ratioInterval(baseline[metric], s[metric], { confidence }),
    });
  });
  return out;
}

module.exports = { compareSeries };
