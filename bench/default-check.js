#!/usr/bin/env node
'use strict';
// `npm run bench -- default-check`: what start's default check of the packed files against the
// disk costs over trusting the archive, for the seed's 1000-module fixture and the heavy real app,
// under each runtime: three pairs (memory mode, memory mode with the code cache, the snapshot),
// each pair's runs interleaved with the rest (bench/docker-startup.js), time to listen by the app's
// own clock. Prints a Markdown table: the medians, and the ratio default / trusted with its 95%
// interval (a ratio whose interval holds 1 is noise).
const os = require('node:os');
const { parseArgs } = require('node:util');
const { runBenchmark } = require('./docker-startup.js');
const { parseCount } = require('../lib/options.js');
const { ratioInterval } = require('../lib/stats.js');

const PAIRS = [
  ['start-memory', 'start-memory-noverify', '`coldstart start`'],
  ['start-memory-cache-verify', 'start-memory-cache', '`coldstart start`, archive with `--code-cache`'],
  ['snapshot', 'snapshot-noverify', '`node --snapshot-blob`'],
];
const APPS = { fixture: 'W1: the seed\'s 1000-module fixture', heavy: 'express + googleapis + firebase-admin' };

function rows(report) {
  const find = (variant, runtime) => report.results.find((r) => r.variant === variant && r.runtime === runtime);
  const lines = [];
  for (const runtime of report.runtimes) {
    for (const [checked, trusted, label] of PAIRS) {
      const a = find(checked, runtime);
      const b = find(trusted, runtime);
      if (!a || !b || !a.inProcess || !b.inProcess) continue;
      const r = ratioInterval(b.inProcessSamples, a.inProcessSamples);
      const within = r.low === null ? 'too few runs' : r.low <= 1 && r.high >= 1 ? 'noise' : `${((r.ratio - 1) * 100).toFixed(0)}%`;
      lines.push(`| ${runtime} | ${label} | ${Math.round(a.inProcess.median)} | ${Math.round(b.inProcess.median)} | `
        + `${r.ratio === null ? '–' : `${r.ratio.toFixed(3)}x [${r.low.toFixed(3)}, ${r.high.toFixed(3)}]`} | ${within} |`);
    }
  }
  return lines;
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({ args: argv, options: {
    runs: { type: 'string', default: '10' },
    runtimes: { type: 'string', default: 'runc,runsc,runsc-2024' },
    apps: { type: 'string', default: Object.keys(APPS).join(',') },
    'base-image': { type: 'string', default: 'coldstart-node:local' },
  } });
  const runs = parseCount(values.runs, '--runs', 2);
  const runtimes = values.runtimes.split(',').filter(Boolean);
  const onProgress = (line) => process.stderr.write(`default-check: ${line}\n`);
  const before = os.loadavg();
  const out = [];
  for (const app of values.apps.split(',').filter(Boolean)) {
    const variants = PAIRS.flatMap(([checked, trusted]) => [checked, trusted]);
    const report = await runBenchmark({ app, runs, runtimes, baseImage: values['base-image'], variants, onProgress });
    out.push(`**${APPS[app] || app}** (Node ${report.machine.node}, ${runs} runs each)`, '',
      '| runtime | start | default check, ms | trusted, ms | default / trusted [95%] | cost |', '|---|---|---:|---:|---:|---:|', ...rows(report), '');
  }
  const after = os.loadavg();
  out.push(`Load average ${before.map((x) => x.toFixed(1)).join(' ')} before, ${after.map((x) => x.toFixed(1)).join(' ')} after; ${new Date().toISOString().slice(0, 10)}.`);
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

if (require.main === module) require('./run-as-script.js').runAsScript('default-check', main);

module.exports = { main };
