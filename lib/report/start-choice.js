'use strict';
// The table `coldstart dockerfile --choose` chose from (lib/dockerfile/choose-start.js): each start
// with its median time to ready and interval, its factor to plain node with its interval, and
// whether it answered as plain node does; the chosen one marked, and, when it is not the fastest
// by its median, how it stands against that one.
const { formatMedianInterval, formatComparison } = require('../stats.js');
const { palette, table } = require('./terminal-format.js');

/**
 * @param {Awaited<ReturnType<typeof import('../dockerfile/choose-start.js').chooseStart>>} choice
 * @param {{color?: boolean, asked: string}} options asked: the requests and their answers in a line
 *   (same-answers.js describeAnswers)
 * @returns {string}
 */
function renderStartChoice(choice, { color = false, asked }) {
  const { bold, dim } = palette(color);
  const chosen = choice.rows.find((r) => r.writes === choice.chosen);
  const rows = [['', 'start', 'ready after, median [interval]', 'x plain [interval]', 'answers']];
  for (const r of choice.rows) {
    const factor = r.ratio && r.ratio.ratio !== null ? `${r.ratio.ratio.toFixed(2)}${r.ratio.low === null ? '' : ` [${r.ratio.low.toFixed(2)}–${r.ratio.high.toFixed(2)}]`}` : '–';
    const answers = r.problem || (r.name === 'plain' ? 'the reference' : 'as plain');
    rows.push([r === chosen ? '>' : '', r.label, r.median ? formatMedianInterval(r.median) : '–', factor, answers]);
  }
  const lines = [
    '',
    bold(`Chosen: ${chosen.label}`) + dim(` (${choice.runs} starts each, alternated, ${choice.runtime ? `under ${choice.runtime}, a fresh container each` : 'on this machine'}; asked ${asked})`),
    table(rows, ['l', 'l', 'r', 'r', 'l']),
    dim('  intervals: 95% where the runs allow it (6 or more a start), else from the fastest to the slowest run'),
  ];
  if (choice.fastest && choice.fastest.comparison) {
    const fastest = choice.rows.find((r) => r.name === choice.fastest.name);
    lines.push(`  the simpler start within the noise of ${fastest.label}, the fastest: ${formatComparison(choice.fastest.comparison)}`);
  }
  return lines.join('\n') + '\n';
}

module.exports = { renderStartChoice };
