#!/usr/bin/env node
'use strict';
// What `coldstart bundle` buys: time to listen of an app started plain and started from its
// bundle, median of 10 each with its interval and the verdict (the runs `coldstart bundle` itself
// times to verify: alternating, timing only, no inspector).
// Two apps: fixtures/otel-express (express traced by OpenTelemetry from a --require preload;
// express stays external, so the bundle holds little) and the generated 1000-package fixture
// (everything bundles). Also files read to start and bytes on disk. Prints markdown.
//
//   node bench/bundle-startup.js [-n 10] [--modules 1000] [--json FILE]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { formatMedianInterval, formatComparison } = require('../lib/stats.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { size } = require('../lib/report/terminal-format.js');
const { writeFileAtomic } = require('../lib/write-atomic.js');
const { parseCount } = require('../lib/options.js');
const { copyFixture, runCli } = require('../test/helpers/app.js');

/** `coldstart bundle --json` on the app: the summary (externals, files read, sizes, timing). */
async function bundle(dir, command, runs) {
  const { code, stdout, stderr } = await runCli(['bundle', '--json', '--runs', String(runs), '--out', 'dist-bundle', '--', ...command], { cwd: dir });
  if (code !== 0) throw new Error(`coldstart bundle failed (${code}): ${stderr}`);
  return JSON.parse(stdout);
}

/**
 * The markdown snippet (pure).
 * @param {{rows: Array<{name: string, summary: object}>, machine: object}} data summary: bundle --json
 */
function renderBundleBench({ rows, machine }) {
  const lines = [
    `Time to listen (process start → listening, as the app sees it), plain vs from the bundle: median [interval] of ${rows[0].summary.timing.runs} runs each, `
      + 'alternating, no inspector; the bundle against plain, with the interval of the difference.',
    '',
    '| app | plain | bundled | bundled vs plain | files read plain → bundled | on disk plain → bundled | kept external |',
    '|---|---:|---:|---|---:|---:|---|',
  ];
  for (const r of rows) {
    const s = r.summary;
    const c = s.timing.comparison;
    const externals = s.externals.length ? s.externals.map((e) => `${e.name} (${e.reasons.map((x) => x.code).join(', ')})`).join('; ') : '—';
    lines.push(`| ${r.name} | ${formatMedianInterval(c.before)} | ${formatMedianInterval(c.after)} | ${formatComparison(c)} | `
      + `${s.original.files} → ${s.bundle.files} | ${size(s.original.size.bytes)} → ${size(s.bundle.size.bytes)} | ${externals} |`);
  }
  lines.push('', `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.os}; Node ${machine.node}.`, '');
  return lines.join('\n');
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '10' },
      modules: { type: 'string', default: '1000' },
      json: { type: 'string' },
    },
  });
  const runs = parseCount(values.runs, '-n');
  const modules = parseCount(values.modules, '--modules');
  const progress = (line) => { if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K`); };
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bundle-bench-'));
  const dirs = [scratch];
  try {
    const otel = copyFixture('otel-express');
    dirs.push(otel);
    const { dir: generated } = await generateFixture({ dir: path.join(scratch, 'fixture'), modules, seed: 42 });
    const apps = [
      { name: 'otel-express (OpenTelemetry preload)', dir: otel, command: ['node', '--require', './tracing.js', 'server.js'] },
      { name: `generated ${modules}-package fixture`, dir: generated, command: ['node', 'index.js'] },
    ];
    const rows = [];
    for (const app of apps) {
      progress(`bundling ${app.name}`);
      const summary = await bundle(app.dir, app.command, runs);
      rows.push({ name: app.name, summary });
    }
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    const machine = describeMachine();
    process.stdout.write(renderBundleBench({ rows, machine }));
    if (values.json) {
      writeFileAtomic(path.resolve(values.json), JSON.stringify({
        machine,
        rows: rows.map((r) => ({
          name: r.name, timing: r.summary.timing,
          externals: r.summary.externals, original: r.summary.original, bundle: r.summary.bundle,
        })),
      }, null, 2) + '\n');
    }
    return 0;
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

if (require.main === module) require('./run-as-script.js').runAsScript('bundle-startup', main);

module.exports = { main, renderBundleBench };
