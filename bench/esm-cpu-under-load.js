#!/usr/bin/env node
'use strict';
// Whether the module times `coldstart profile` reports are the CPU the modules used, for ES
// modules as for CommonJS, on a loaded machine: what the packages' own times (gc included) add
// up to over the CPU the V8 profile saw in the same run (its time less idle and less its gaps: at
// most 1 if they are CPU time), and the ES module packages' own total beside the wait for a CPU,
// quiet and with busy loops spinning. Apps: fixtures/nest-app (NestJS 12 through require(esm)),
// fixtures/esm-only-app (Nest and nanoid as ES modules) and a generated app of 400 ES modules.
// Prints markdown.
//
//   node bench/esm-cpu-under-load.js [--profiles 3] [--loops 0,8]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseCount } = require('../lib/options.js');
const { copyFixture, rm } = require('../test/helpers/app.js');
const { startBusyLoops } = require('../test/helpers/busy-loops.js');

const CLI = path.join(__dirname, '..', 'bin', 'coldstart.js');

function cli(args, cwd) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', maxBuffer: 1e9, env: { ...process.env, CI: '' } });
  if (r.status !== 0) throw new Error(`coldstart ${args[0]}: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return r.stdout;
}

/** The apps, each { name, dir, command }. */
function apps(scratch) {
  const generated = path.join(scratch, 'es-modules-400');
  cli(['fixture', '--modules', '400', '--es-modules', '--out', generated, '-q'], scratch);
  return [
    { name: 'nest-app', dir: copyFixture('nest-app'), command: ['node', 'dist/main.js'] },
    { name: 'esm-only-app', dir: copyFixture('esm-only-app'), command: ['node', 'src/main.js'] },
    { name: '400 ES modules', dir: generated, command: ['node', 'index.js'] },
  ];
}

/** One profile's figures. */
function profiled(app, i) {
  const out = path.join(app.dir, `profile-${i}`);
  cli(['profile', '-q', '--out', out, '--', ...app.command], app.dir);
  const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  fs.rmSync(out, { recursive: true, force: true });
  const c = report.categories;
  const onCpu = c.totalMs - c.idle - c.offCpu;
  const own = (modules) => modules.reduce((sum, m) => sum + m.selfMs + (m.gcMs || 0), 0);
  const esm = report.modules.filter((m) => m.kind === 'esm');
  return { readyAt: report.readyAt, waited: report.machine && report.machine.runQueueMs, onCpu, all: own(report.modules), esm: own(esm), esmCount: esm.length, modules: report.modules.length };
}

async function main() {
  const { values } = parseArgs({ options: { profiles: { type: 'string', default: '3' }, loops: { type: 'string', default: '0,8' } } });
  const profiles = parseCount(values.profiles, '--profiles', 1);
  const loops = values.loops.split(',').map((n) => parseCount(n, '--loops', 0));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-esm-cpu-'));
  const m = describeMachine();
  const lines = [`${m.cpu}, ${m.cores} cores, Node ${m.node}; ${profiles} profiles an app and condition`, '',
    '| app | condition (load before → after) | ES modules / modules | time to ready (ms) | waited for a CPU (ms) | ES modules\' own time (ms) | all modules\' own time / the profile on the CPU |',
    '|---|---|---|---|---|---|---|'];
  let list = [];
  try {
    list = apps(scratch);
    for (const n of loops) {
      const busy = n ? await startBusyLoops(n) : null;
      try {
        if (n) await new Promise((resolve) => setTimeout(resolve, 20000)); // the load average catches up
        for (const app of list) {
          const before = os.loadavg()[0].toFixed(1);
          const runs = Array.from({ length: profiles }, (_, i) => profiled(app, i));
          const each = (f) => runs.map(f).join(', ');
          lines.push(`| ${app.name} | ${n ? `${n} busy loops` : 'quiet'} (${before} → ${os.loadavg()[0].toFixed(1)}) | ${runs[0].esmCount} / ${runs[0].modules} | ${each((r) => r.readyAt.toFixed(0))} | ${each((r) => (r.waited == null ? '–' : r.waited.toFixed(0)))} | ${each((r) => r.esm.toFixed(0))} | ${each((r) => `${r.all.toFixed(0)} / ${r.onCpu.toFixed(0)} = ${(r.all / r.onCpu).toFixed(2)}`)} |`);
        }
      } finally {
        if (busy) await busy.stop();
      }
    }
  } finally {
    for (const app of list) if (app.dir.startsWith(os.tmpdir()) && !app.dir.startsWith(scratch)) rm(app.dir);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err) => {
  process.stderr.write(`esm-cpu-under-load: ${err.stack || err.message}\n`);
  process.exit(1);
});
