#!/usr/bin/env node
'use strict';
// What function coverage (the lazy-load advice's evidence) adds to `coldstart profile`: time to
// ready under the full profiler with and without precise coverage, runs alternating, for each
// app and each Node given. Prints markdown. Apps and --nodes as in profile-overhead.js.
//
//   node bench/coverage-overhead.js [-n 10] [--apps generated,express] [--nodes PATH,...]
//
// The limit for coverage on by default is 5% of readyAt (ratio <= 1.05).
const os = require('node:os');
const { capture } = require('../lib/capture/capture.js');
const { median, ratioInterval } = require('../lib/stats.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseRunArgs, alternatingRuns } = require('./alternating-runs.js');
const { APPS } = require('./profile-overhead.js');

const LIMIT = 1.05;

async function run(app, env, coverage) {
  const r = await capture({ command: app.command, cwd: app.cwd, env, until: { mode: 'listen' }, coverage });
  if (coverage && !(r.coverage && r.coverage.length)) throw new Error('the run with coverage recorded none');
  return r.readyAt;
}

const fmt = (ms) => `${ms.toFixed(0)} ms`;

/** The markdown table (pure). rows: { app, node, without: number[], with: number[] } */
function renderCoverageOverhead(rows, machine, loadAtStart, loadAtEnd) {
  const lines = [
    '| app | Node | profiled readyAt | profiled + coverage readyAt | ratio [95% interval] |',
    '|---|---|---:|---:|---:|',
  ];
  for (const row of rows) {
    const r = ratioInterval(row.without, row.with);
    const ratio = r.ratio === null ? '–' : `${r.ratio.toFixed(3)}x${r.low === null ? '' : ` [${r.low.toFixed(3)}–${r.high.toFixed(3)}]`}`;
    lines.push(`| ${row.app} | ${row.node} | ${fmt(median(row.without))} | ${fmt(median(row.with))} | ${ratio}${r.ratio > LIMIT ? ' (over)' : ''} |`);
  }
  const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
  lines.push('', `Median of ${rows[0] ? rows[0].without.length : 0} runs each, alternating; limit for on by default ${LIMIT.toFixed(2)}x.`,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.os}; load average at the start ${load(loadAtStart)}, at the end ${load(loadAtEnd)}.`, '');
  return lines.join('\n');
}

async function main(argv = process.argv.slice(2)) {
  const plan = parseRunArgs(argv, APPS, 'generated,express');
  const loadAtStart = os.loadavg();
  const rows = await alternatingRuns(plan, APPS, {
    without: (app, env) => run(app, env, false),
    with: (app, env) => run(app, env, true),
  }, 'coldstart-coverage-overhead-');
  process.stdout.write(renderCoverageOverhead(rows, describeMachine(), loadAtStart, os.loadavg()));
  return 0;
}

if (require.main === module) require('./run-as-script.js').runAsScript('coverage-overhead', main);

module.exports = { main, renderCoverageOverhead };
