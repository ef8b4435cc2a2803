#!/usr/bin/env node
'use strict';
// How much the figures move from run to run, the numbers the README's advice on `-n` rests on.
// For the express fixture and the generated 1000-package fixture:
//   - readyAt of n profiled runs: median, its interval, spread;
//   - the top-5 packages' own time, as it was counted before garbage collection was set apart
//     (self + gc + idle: the whole own window) and as it is now (self: the module's own work);
//     and how often the module ranked first by self time changes between runs;
//   - the width of the median's interval over n = 5, 10 and 20 timing-only runs (what `check`
//     compares), alternated with a bare Node that listens (the machine's floor).
// Prints markdown.
//
//   node bench/noise.js [-n 20]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { capture } = require('../lib/capture/capture.js');
const { buildReport } = require('../lib/analyze/startup-report.js');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { summarize, medianInterval } = require('../lib/stats.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseCount } = require('../lib/options.js');

const REPO = path.join(__dirname, '..');
const FLOOR_COMMAND = ['node', '-e', "require('net').createServer().listen(0)"];
const INTERVAL_SIZES = [5, 10, 20];

async function profiledRun(app) {
  const result = await capture({ command: app.command, cwd: app.cwd, root: app.root, until: { mode: 'listen' } });
  return buildReport(result);
}

async function timedRun(command, cwd) {
  return (await capture({ command, cwd, until: { mode: 'listen' }, timingOnly: true })).readyAt;
}

const fmt = (ms) => (ms == null ? '–' : ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);
const pct = (x) => `${(x * 100).toFixed(0)}%`;
/** Coefficient of variation: stddev over mean. */
const cv = (list) => {
  const s = summarize(list);
  return s.mean > 0 && s.stddev != null ? s.stddev / s.mean : 0;
};

/** Per package, its own time in each run: before (self + gc + idle) and after (self). */
function packageSeries(reports) {
  const byName = new Map();
  for (const r of reports) {
    for (const p of r.packages) {
      if (!byName.has(p.name)) byName.set(p.name, { name: p.name, before: [], after: [] });
      const gcAndIdle = r.modules.filter((m) => m.package === p.name).reduce((s, m) => s + (m.gcMs || 0) + (m.idleMs || 0), 0);
      byName.get(p.name).before.push(p.selfMs + gcAndIdle);
      byName.get(p.name).after.push(p.selfMs);
    }
  }
  return [...byName.values()].filter((p) => p.after.length === reports.length);
}

/** Distinct modules that ranked first by a figure across the runs. */
function distinctLeaders(reports, figure) {
  const leaders = new Set();
  for (const r of reports) {
    const top = [...r.modules].sort((a, b) => figure(b) - figure(a))[0];
    if (top) leaders.add(top.file);
  }
  return leaders.size;
}

/** The markdown for one app (pure). */
function renderApp({ name, reports, timed, floor }) {
  const ready = medianInterval(reports.map((r) => r.readyAt));
  const readySummary = summarize(reports.map((r) => r.readyAt));
  const packages = packageSeries(reports)
    .sort((a, b) => summarize(b.after).median - summarize(a.after).median)
    .slice(0, 5);
  const lines = [
    `### ${name}`,
    '',
    `readyAt of ${reports.length} profiled runs: median ${fmt(ready.median)} (interval ${fmt(ready.low)}–${fmt(ready.high)}, `
      + `${pct(ready.confidence)}), min ${fmt(readySummary.min)}, max ${fmt(readySummary.max)}, CV ${pct(cv(reports.map((r) => r.readyAt)))}.`,
    '',
    '| package (top 5 by own work) | own time before GC apart: median (p10–p90), CV | own work now: median (p10–p90), CV |',
    '|---|---:|---:|',
  ];
  const span = (list) => {
    const s = summarize(list);
    const sorted = [...list].sort((a, b) => a - b);
    const p = (q) => sorted[Math.min(sorted.length - 1, Math.round((sorted.length - 1) * q))];
    return `${fmt(s.median)} (${fmt(p(0.1))}–${fmt(p(0.9))}), ${pct(cv(list))}`;
  };
  for (const p of packages) lines.push(`| ${p.name} | ${span(p.before)} | ${span(p.after)} |`);
  lines.push('',
    `Module ranked first by self time: ${distinctLeaders(reports, (m) => m.selfMs + (m.gcMs || 0) + (m.idleMs || 0))} different modules in ${reports.length} runs `
      + `before GC was set apart, ${distinctLeaders(reports, (m) => m.selfMs)} now.`,
    '',
    '| timing-only runs (what `check` compares) | median | 95% interval of the median | width | app − floor: median, interval width |',
    '|---|---:|---:|---:|---:|');
  for (const n of INTERVAL_SIZES.filter((k) => k <= timed.length)) {
    const app = medianInterval(timed.slice(0, n));
    const excess = medianInterval(timed.slice(0, n).map((t, i) => t - floor[i]));
    lines.push(`| n = ${n} | ${fmt(app.median)} | ${fmt(app.low)}–${fmt(app.high)} (${pct(app.confidence)}) | `
      + `${fmt(app.high - app.low)} (${pct((app.high - app.low) / app.median)}) | ${fmt(excess.median)}, ${fmt(excess.high - excess.low)} |`);
  }
  lines.push('');
  return lines.join('\n');
}

async function measureApp(app, runs, progress) {
  await profiledRun(app); // warm the disk cache
  const reports = [];
  for (let i = 0; i < runs; i++) {
    reports.push(await profiledRun(app));
    progress(`${app.name}: profiled ${i + 1}/${runs}`);
  }
  const timed = [];
  const floor = [];
  const most = Math.max(...INTERVAL_SIZES);
  for (let i = 0; i < most; i++) {
    timed.push(await timedRun(app.command, app.cwd));
    floor.push(await timedRun(FLOOR_COMMAND, app.cwd));
    progress(`${app.name}: timed ${i + 1}/${most}`);
  }
  return { name: app.name, reports, timed, floor };
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string', short: 'n', default: '20' } } });
  const runs = parseCount(values.runs, '-n');
  const progress = (text) => process.stderr.isTTY && process.stderr.write(`\r${text}\x1b[K`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-noise-'));
  try {
    const { dir } = await generateFixture({ dir: path.join(scratch, 'fixture'), modules: 1000, seed: 42 });
    const apps = [
      { name: 'express fixture', command: ['node', 'fixtures/express-app/server.js'], cwd: REPO, root: REPO },
      { name: '1000-module fixture', command: ['node', 'index.js'], cwd: dir, root: dir },
    ];
    const measured = [];
    for (const app of apps) measured.push(await measureApp(app, runs, progress));
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    const machine = describeMachine();
    const load = os.loadavg().map((x) => x.toFixed(2)).join(', ');
    process.stdout.write(measured.map(renderApp).join('\n')
      + `\nMachine: ${machine.cpu}, ${machine.cores} cores, ${machine.os}; Node ${machine.node}; load average at the end ${load}.\n`);
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) require('./run-as-script.js').runAsScript('noise', main);

module.exports = { main, renderApp };
