#!/usr/bin/env node
'use strict';
// The starts `coldstart dockerfile --choose` picks from, per app, in containers: plain node, Node's
// compile cache alone, `coldstart start` of the modules (the default Dockerfile), the ncc bundle
// with Node's compile cache, `coldstart start` of the bundle (`--bundle`) and the startup snapshot
// (`--snapshot`, where pack makes one). Each app is one run of bench/docker-startup.js (one image,
// the variants interleaved round by round, fresh container each, in-process time to listen); this
// prints one table a runtime: the median of each start with its 95% interval and its ratio to
// plain node with its interval (Hodges-Lehmann on the logarithms), and the start --choose's rule
// (lib/dockerfile/choose-start.js decide) picks from these runs: the one it would write had it
// timed them in this sandbox. --from-json FILE... renders saved docker-startup.js --json reports.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { medianInterval, ratioInterval } = require('../lib/stats.js');
const { decide, STARTS: CHOOSER_STARTS } = require('../lib/dockerfile/choose-start.js');

const STARTS = [
  ['plain', 'plain node'],
  ['compile-cache', "Node's compile cache alone"],
  ['start-memory-cache-verify', '`coldstart start` of the modules'],
  ['bundle-compile-cache', "ncc bundle + Node's compile cache"],
  ['bundle-start', '`coldstart start` of the ncc bundle'],
  ['snapshot', 'startup snapshot'],
];
// The names choose-start.js gives these starts.
const CHOOSER_NAMES = { 'start-memory-cache-verify': 'start' };
const APPS = ['fixture', 'heavy', 'nest', 'aws-esm', 'otel-express'];
const APP_LABELS = {
  fixture: 'W1: the seed\'s 1000 modules',
  heavy: 'express + googleapis + firebase-admin',
  nest: 'NestJS 12 (CommonJS, Nest through require(esm))',
  'aws-esm': 'fastify + AWS SDK v3 + zod, ES modules',
  'otel-express': 'express, OpenTelemetry preload (`--require`)',
};

/** One table a runtime, from docker-startup.js reports (one per app). */
function renderTables(reports) {
  const runtimes = [...new Set(reports.flatMap((r) => r.runtimes))];
  const out = [];
  for (const runtime of runtimes) {
    out.push(`**${runtime}**, in-process ms to listen, median [95% interval] (ratio to plain [95% interval]); the fastest of each app in bold`, '');
    out.push(`| app | ${STARTS.map(([, label]) => label).join(' | ')} | --choose's rule on these runs |`, `|---|${STARTS.map(() => '---:').join('|')}|---|`);
    for (const report of reports) {
      const samples = (variant) => {
        const result = report.results.find((r) => r.runtime === runtime && r.variant === variant);
        return result ? result.inProcessSamples.filter((x) => x !== null) : [];
      };
      const plain = samples('plain');
      const medians = STARTS.map(([variant]) => (samples(variant).length ? medianInterval(samples(variant)).median : Infinity));
      const best = Math.min(...medians);
      const cells = STARTS.map(([variant], i) => {
        const own = samples(variant);
        if (!own.length) return '–';
        const mi = medianInterval(own);
        const ratio = variant === 'plain' ? null : ratioInterval(plain, own);
        const text = `${Math.round(mi.median)} [${Math.round(mi.low)}–${Math.round(mi.high)}]${ratio ? ` (${ratio.ratio.toFixed(2)} [${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)}])` : ''}`;
        return medians[i] === best ? `**${text}**` : text;
      });
      out.push(`| ${APP_LABELS[report.app] || report.app} | ${cells.join(' | ')} | ${chosenFrom(STARTS.map(([variant]) => [variant, samples(variant)]), report.runs)} |`);
    }
    out.push('');
  }
  const first = reports[0];
  const loads = reports.filter((r) => r.load).map((r) => `${r.app} ${r.load.map((x) => x.toFixed(1)).join(' -> ')}`);
  out.push(`${first.runs} runs a start after ${first.warmup} warm-up round, fresh container each; machine: ${first.machine.cpu}, `
    + `${first.machine.cores} cores, node ${first.machine.node}; ${first.machine.runsc}${loads.length ? `; load average (1 min) before -> after: ${loads.join(', ')}` : ''}.`);
  return out.join('\n') + '\n';
}

/** The start choose-start.js's decide() writes from these samples (no answers checked here), by its table label. */
function chosenFrom(samplesByVariant, runs) {
  const samples = Object.fromEntries(samplesByVariant.filter(([, own]) => own.length).map(([variant, own]) => [CHOOSER_NAMES[variant] || variant, own]));
  const { chosen } = decide({ samples, problems: {}, runs, answers: {} });
  return chosen ? CHOOSER_STARTS.find((start) => start.writes === chosen).label : '–';
}

async function main(argv = process.argv.slice(2)) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: '10' },
      runtimes: { type: 'string', default: 'runc,runsc-2024' },
      apps: { type: 'string', default: APPS.join(',') },
      'from-json': { type: 'boolean', default: false },
      json: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
  });
  let reports;
  if (values['from-json']) {
    reports = positionals.map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
  } else {
    const { runBenchmark } = require('./docker-startup.js');
    reports = [];
    for (const app of values.apps.split(',')) {
      const onProgress = values.verbose ? (line) => process.stderr.write(`starts-compared: ${app}: ${line}\n`) : undefined;
      const before = os.loadavg()[0];
      const report = await runBenchmark({
        app, runs: Number(values.runs), runtimes: values.runtimes.split(','), variants: STARTS.map(([v]) => v), onProgress,
      });
      reports.push({ ...report, load: [before, os.loadavg()[0]] });
    }
    if (values.json) fs.writeFileSync(path.resolve(values.json), JSON.stringify(reports, null, 2) + '\n');
  }
  process.stdout.write(renderTables(reports));
  return 0;
}

if (require.main === module) require('./run-as-script.js').runAsScript('starts-compared', main);

module.exports = { renderTables, STARTS };
