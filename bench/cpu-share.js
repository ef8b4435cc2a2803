#!/usr/bin/env node
'use strict';
// The start at a fraction of a CPU, as Cloud Run (0.08-1 vCPU) and Lambda (about 1/14 of a vCPU at
// 128 MB, a whole one at 1,769 MB) give it: W1 and the heavy app started plain, as `coldstart
// dockerfile` writes it, with Node's compile cache, and as an ncc bundle with the compile cache, in
// fresh containers at each `docker run --cpus` share, all interleaved round by round
// (bench/docker-startup.js). In-process time to listen (the app's own clock), its median with a 95%
// interval, and each start's factor to plain at the same share with its interval.
// Needs the engine and base image from .ci/docker-up.sh.
const os = require('node:os');
const { parseArgs } = require('node:util');
const { runBenchmark } = require('./docker-startup.js');
const { medianInterval, ratioInterval, formatMedianInterval } = require('../lib/stats.js');
const { parseCount } = require('../lib/options.js');

const USAGE = 'usage: node bench/cpu-share.js [--runs 10] [--apps fixture,heavy] [--cpus 1,0.5,0.25] [--runtime runsc-2024] [--base-image coldstart-node:local]';
const STARTS = [
  ['plain', 'plain `node`'],
  ['start-memory-cache-verify', '`coldstart start` as `coldstart dockerfile` writes it'],
  ['compile-cache', 'Node\'s compile cache alone'],
  ['bundle-compile-cache', 'ncc bundle + compile cache'],
];

async function main() {
  const { values } = parseArgs({ options: {
    runs: { type: 'string', default: '10' }, apps: { type: 'string', default: 'fixture,heavy' }, cpus: { type: 'string', default: '1,0.5,0.25' },
    runtime: { type: 'string', default: 'runsc-2024' }, 'base-image': { type: 'string', default: 'coldstart-node:local' }, help: { type: 'boolean' },
  } });
  if (values.help) return process.stdout.write(`${USAGE}\n`);
  const runs = parseCount(values.runs, '--runs', 3);
  const shares = values.cpus.split(',').map(Number);
  const load = os.loadavg();
  const lines = [];
  for (const app of values.apps.split(',')) {
    const report = await runBenchmark({
      app, runs, runtimes: [values.runtime], cpus: shares, baseImage: values['base-image'], variants: STARTS.map(([name]) => name),
      onProgress: (line) => process.stderr.write(`cpu-share: ${app}: ${line}\n`),
    });
    lines.push(`**${app}** under ${values.runtime}, ${runs} runs per cell; in-process ms, median [95% interval]; factor to plain at the same share [interval]`, '',
      `| CPU share | ${STARTS.map(([, label]) => label).join(' | ')} |`, `|---:|${STARTS.map(() => '---:').join('|')}|`);
    for (const share of shares) {
      const samples = (name) => {
        const row = report.results.find((r) => r.variant === name && r.cpus === share);
        return row && row.inProcessSamples.every(Number.isFinite) && row.inProcessSamples.length ? row.inProcessSamples : null;
      };
      const plain = samples('plain');
      const cells = STARTS.map(([name]) => {
        const own = samples(name);
        if (!own) return '–';
        if (name === 'plain') return formatMedianInterval(medianInterval(own));
        const f = ratioInterval(plain, own);
        return `${Math.round(medianInterval(own).median)} (${f.ratio.toFixed(2)} [${f.low.toFixed(2)}–${f.high.toFixed(2)}])`;
      });
      lines.push(`| ${share} | ${cells.join(' | ')} |`);
    }
    lines.push('');
  }
  lines.push(`Load average ${load.map((n) => n.toFixed(1)).join(' ')} before, ${os.loadavg().map((n) => n.toFixed(1)).join(' ')} after; ${new Date().toISOString().slice(0, 10)}.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => { process.stderr.write(`cpu-share: ${err.message}\n`); process.exitCode = 1; });
