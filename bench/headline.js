#!/usr/bin/env node
'use strict';
// `npm run bench -- headline`: the headline table of BENCHMARKS.md, regenerated. The seed's
// 1000-module fixture and the heavy real app (express, googleapis, firebase-admin from the
// registry), each started every way that matters (plain, `coldstart start` with no flags and as
// `coldstart dockerfile` writes it, the snapshot, the ncc bundle with and without a compile cache)
// under runc and both gVisors, in fresh containers, rounds interleaved (bench/docker-startup.js).
// Writes the section between the headline markers of BENCHMARKS.md (temp file, then rename) and
// prints it. Needs the engine from .ci/docker-up.sh (runsc and runsc-2024 registered).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { runBenchmark } = require('./docker-startup.js');
const { parseCount } = require('../lib/options.js');
const { writeFileAtomic } = require('../lib/write-atomic.js');

const BENCHMARKS = path.join(__dirname, '..', 'BENCHMARKS.md');
const BEGIN = '<!-- headline: written by `npm run bench -- headline` (bench/headline.js) -->';
const END = '<!-- /headline -->';
const RUNTIMES = ['runc', 'runsc', 'runsc-2024'];
const RUNTIME_LABELS = { runc: 'runc', runsc: 'gVisor 2022 (ptrace)', 'runsc-2024': 'gVisor 2024 (systrap)' };
// The rows: the ways a user can choose between to start the app.
const VARIANTS = [
  ['floor-node', 'a bare node listening (the floor)'],
  ['plain', 'plain `node`'],
  ['start-memory', '`coldstart start`, archive without a code cache'],
  ['start-memory-cache-verify', '`coldstart start`, `pack --code-cache` (what `coldstart dockerfile` writes)'],
  ['snapshot', '`pack --snapshot-blob` (what `coldstart dockerfile --snapshot` writes)'],
  ['bundle', 'ncc bundle'],
  ['bundle-compile-cache', 'ncc bundle + `NODE_COMPILE_CACHE`'],
];
const APPS = [
  ['fixture', 'W1: the seed\'s 1000-module fixture'],
  ['heavy', 'express + googleapis + firebase-admin'],
];

// Each cell: end to end / in-process (median ms), then the ratio to plain and ms per module over
// the bare node, both from the in-process medians (the app's own clock, bench/in-process-clock.js).
function table(report, modules) {
  const { runtimes } = report;
  const find = (variant, runtime) => report.results.find((r) => r.variant === variant && r.runtime === runtime);
  const median = (variant, runtime) => {
    const row = find(variant, runtime);
    return row && row.total.n ? row.total.median : null;
  };
  const inProcess = (variant, runtime) => {
    const row = find(variant, runtime);
    return row && row.inProcess ? row.inProcess.median : null;
  };
  const lines = [
    `| variant: end to end / in-process, ms | ${runtimes.map((r) => RUNTIME_LABELS[r] || r).join(' | ')} |`,
    `|---|${runtimes.map(() => '---:').join('|')}|`,
  ];
  for (const [name, label] of VARIANTS) {
    // A variant the image could not hold (NODE_COMPILE_CACHE needs Node 22.1+) has no row.
    if (!report.results.some((r) => r.variant === name && r.total.n)) continue;
    const cells = runtimes.map((runtime) => {
      const ms = median(name, runtime);
      if (ms == null) return '–';
      const own = inProcess(name, runtime);
      if (own == null) return `${Math.round(ms)} / –`;
      const plain = inProcess('plain', runtime);
      const floor = inProcess('floor-node', runtime);
      const parts = [];
      if (name !== 'plain' && name !== 'floor-node' && plain) parts.push(`${(own / plain).toFixed(2)}x`);
      if (modules && name !== 'floor-node' && floor != null) parts.push(`${((own - floor) / modules).toFixed(2)} ms/module`);
      return `${Math.round(ms)} / ${Math.round(own)}${parts.length ? ` (${parts.join(', ')})` : ''}`;
    });
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  return lines;
}

function section(reports, load) {
  const first = reports[0].report;
  const m = first.machine;
  const lines = [
    BEGIN,
    `Measured ${new Date().toISOString().slice(0, 10)} on ${m.cpu}, ${m.cores} cores, kernel ${m.kernel}; Node ${m.node} in the image;`
      + ` ${m.runsc}; load average ${load.before.map((x) => x.toFixed(1)).join(' ')} before, ${load.after.map((x) => x.toFixed(1)).join(' ')} after.`,
    `Each cell: **end to end / in-process**, median ms of ${first.runs} runs after ${first.warmup} warm-up round, fresh container each,`
      + ' every variant and runtime interleaved round by round. End to end: from `docker run` to the app\'s listening line reaching the client.'
      + ' In-process: from the start of the Node process that runs the app to its first server listening, by its own clock inside the container'
      + ' (`process.uptime()`, bench/in-process-clock.js; `coldstart start` runs the app in its own process, so its clock starts with the launcher\'s node, as plain node\'s does).'
      + ' In brackets, from the in-process medians: the ratio to plain under the same runtime and, for W1, ms per module over the bare node.'
      + ' Rows with `NODE_COMPILE_CACHE` need Node 22.1 or later in the image (`--base-image`).',
    '',
  ];
  for (const { label, report, modules } of reports) lines.push(`**${label}**`, '', ...table(report, modules), '');
  lines.push(END);
  return lines.join('\n');
}

/** BENCHMARKS.md with the section between the markers replaced (or placed before the first `## `). */
function withSection(text, body) {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin !== -1 && end > begin) return text.slice(0, begin) + body + text.slice(end + END.length);
  const at = text.indexOf('\n## ');
  const heading = '\n## The headline, regenerated\n\n';
  return at === -1 ? `${text}${heading}${body}\n` : `${text.slice(0, at)}${heading}${body}\n${text.slice(at)}`;
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({ args: argv, options: {
    runs: { type: 'string', default: '10' },
    'base-image': { type: 'string', default: 'coldstart-node:local' },
    runtimes: { type: 'string', default: RUNTIMES.join(',') },
    apps: { type: 'string', default: APPS.map(([name]) => name).join(',') },
    'no-write': { type: 'boolean', default: false },
    verbose: { type: 'boolean', short: 'v', default: false },
  } });
  const runs = parseCount(values.runs, '--runs', 2);
  const runtimes = values.runtimes.split(',').map((s) => s.trim()).filter(Boolean);
  const apps = APPS.filter(([name]) => values.apps.split(',').includes(name));
  const onProgress = values.verbose || process.stderr.isTTY ? (line) => process.stderr.write(`headline: ${line}\n`) : undefined;
  const load = { before: os.loadavg() };
  const reports = [];
  for (const [app, label] of apps) {
    const report = await runBenchmark({ app, runs, runtimes, baseImage: values['base-image'], variants: VARIANTS.map(([name]) => name), onProgress });
    reports.push({ label, report, modules: report.image.fixture ? report.image.fixture.modules : null });
  }
  load.after = os.loadavg();
  const body = section(reports, load);
  process.stdout.write(`${body}\n`);
  if (!values['no-write']) writeFileAtomic(BENCHMARKS, withSection(fs.readFileSync(BENCHMARKS, 'utf8'), body));
  return 0;
}

if (require.main === module) require('./run-as-script.js').runAsScript('headline', main);

module.exports = { main, withSection, table };
