#!/usr/bin/env node
'use strict';
// What `coldstart profile` costs the app it measures: time to listen of the generated
// 1000-package fixture, plain (timing only, no inspector) and under the full profiler (inspector,
// CPU profile, module and file recording), median of 10 each, runs alternating. Prints markdown.
//
//   node bench/profile-overhead.js [-n 10] [--modules 1000]
//
// Three figures for the profiled runs: readyAt as the app sees it (the pause while the profiler
// attaches is excluded, as `coldstart profile` reports it), and the outside wall time from spawn
// to listen (the pause included). The target is a readyAt ratio of at most 1.15x.
const { EventEmitter } = require('node:events');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { performance } = require('node:perf_hooks');
const { capture } = require('../lib/capture/capture.js');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { summarize } = require('../lib/bench/stats.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseCount } = require('../lib/options.js');

const TARGET_RATIO = 1.15;
const COMMAND = ['node', 'index.js'];

async function plainRun(cwd) {
  const r = await capture({ command: COMMAND, cwd, until: { mode: 'listen' }, timingOnly: true });
  return { readyAt: r.readyAt, wall: r.outsideMs };
}

async function profiledRun(cwd) {
  const events = new EventEmitter();
  const started = performance.now();
  let wall = null;
  events.once('ready', () => { wall = performance.now() - started; });
  const r = await capture({ command: COMMAND, cwd, until: { mode: 'listen' }, profile: true }, events);
  if (!r.modules || !r.modules.length || !r.profile) throw new Error('the profiled run recorded no modules or no CPU profile');
  return { readyAt: r.readyAt, wall, attachMs: r.attachMs || 0, modules: r.modules.length };
}

const fmt = (ms) => `${ms.toFixed(0)} ms`;
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;

/**
 * The markdown snippet (pure).
 * @param {{plain: object[], profiled: object[], modules: number, machine: object}} data
 */
function renderOverhead({ plain, profiled, modules, machine }) {
  const med = (list, key) => summarize(list.map((r) => r[key])).median;
  const plainReady = med(plain, 'readyAt');
  const plainWall = med(plain, 'wall');
  const profReady = med(profiled, 'readyAt');
  const profWall = med(profiled, 'wall');
  const attach = med(profiled, 'attachMs');
  const verdict = profReady / plainReady <= TARGET_RATIO ? 'within' : 'over';
  return [
    `Time to listen of the generated ${modules}-package fixture, median of ${plain.length} runs each (runs alternating, one warm-up each).`,
    '',
    '| run | readyAt (process start → listen, inside) | ratio | spawn → listen (outside) | ratio |',
    '|---|---:|---:|---:|---:|',
    `| plain (\`capture({timingOnly: true})\`) | ${fmt(plainReady)} | 1.00x | ${fmt(plainWall)} | 1.00x |`,
    `| \`coldstart profile\` (full profiler) | ${fmt(profReady)} | ${ratio(profReady, plainReady)} | ${fmt(profWall)} | ${ratio(profWall, plainWall)} |`,
    '',
    `The profiled readyAt excludes the pause while the profiler attaches (median ${fmt(attach)}); the outside time includes it. `
      + `Target: readyAt ratio ≤ ${TARGET_RATIO.toFixed(2)}x: ${verdict} target.`,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.os}; Node ${machine.node}.`,
    '',
  ].join('\n');
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: { runs: { type: 'string', short: 'n', default: '10' }, modules: { type: 'string', default: '1000' } },
  });
  const runs = parseCount(values.runs, '-n');
  const modules = parseCount(values.modules, '--modules');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-profile-overhead-'));
  try {
    const { dir } = await generateFixture({ dir: path.join(scratch, 'fixture'), modules, seed: 42 });
    await plainRun(dir);
    await profiledRun(dir);
    const plain = [];
    const profiled = [];
    for (let i = 0; i < runs; i++) {
      plain.push(await plainRun(dir));
      profiled.push(await profiledRun(dir));
      if (process.stderr.isTTY) process.stderr.write(`\r${i + 1}/${runs}\x1b[K`);
    }
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    process.stdout.write(renderOverhead({ plain, profiled, modules, machine: describeMachine() }));
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) require('./run-as-script.js').runAsScript('profile-overhead', main);

module.exports = { main, renderOverhead };
