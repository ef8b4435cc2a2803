'use strict';
// The table `coldstart dockerfile --choose` chose from (lib/dockerfile/choose-start.js): each start
// with its median time to ready and interval, its factor to plain node with its interval, and
// whether it answered as plain node does; the chosen one marked, and how it stands against the
// fastest start coldstart does not write.
const { formatMedianInterval, formatComparison } = require('../stats.js');
const { palette, table } = require('./terminal-format.js');

const WRITTEN = { modules: 'the default Dockerfile', bundle: 'the --bundle Dockerfile' };

/**
 * @param {Awaited<ReturnType<typeof import('../dockerfile/choose-start.js').chooseStart>>} choice
 * @param {{color?: boolean}} [options]
 * @returns {string}
 */
function renderStartChoice(choice, { color = false } = {}) {
  const { bold, dim } = palette(color);
  const chosen = choice.rows.find((r) => r.writes === choice.chosen);
  const asked = choice.requests.map((r) => `${r.method} ${r.path} ${r.status === null ? 'no answer' : r.status}`).join(', ');
  const rows = [['', 'start', 'ready after, median [interval]', 'x plain [interval]', 'answers']];
  for (const r of choice.rows) {
    const factor = r.ratio && r.ratio.ratio !== null ? `${r.ratio.ratio.toFixed(2)}${r.ratio.low === null ? '' : ` [${r.ratio.low.toFixed(2)}–${r.ratio.high.toFixed(2)}]`}` : '–';
    const answers = r.name === 'plain' ? 'the reference' : r.proven ? 'as plain' : (r.problem || 'not run');
    rows.push([r === chosen ? '>' : '', r.writes ? `${r.label} (${WRITTEN[r.writes]})` : r.label, r.median ? formatMedianInterval(r.median) : '–', factor, answers]);
  }
  const lines = [
    '',
    bold(`Chosen: ${chosen.label}`) + dim(` (${choice.runs} starts each, alternated, on this machine; asked ${asked})`),
    table(rows, ['l', 'l', 'r', 'r', 'l']),
  ];
  lines.push(dim('  intervals: 95% where the runs allow it (6 or more a start), else from the fastest to the slowest run'));
  if (choice.noise) lines.push(dim('  the bundle was not faster beyond noise: the modules keep the app as it is on disk (hooks, stack traces)'));
  if (choice.versusBest) {
    const best = choice.rows.find((r) => r.name === choice.versusBest.name);
    lines.push(`  against ${best.label}, the fastest start coldstart does not write: ${formatComparison(choice.versusBest.comparison)}`);
  }
  return lines.join('\n') + '\n';
}

module.exports = { renderStartChoice };
