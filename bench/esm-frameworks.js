#!/usr/bin/env node
'use strict';
// ES-module-only frameworks, as the registry ships them (fixtures/nest-app: NestJS 12 compiled to
// CommonJS, loading Nest through require(esm); fixtures/esm-only-app: an ES-module app on Nest and
// nanoid). For each Node given and each app, through the CLI as a user runs it:
//   - profile, --profiles times: ES modules of @nestjs/* counted as modules, time to ready, and the
//     package self times summed (at most the time to ready);
//   - pack (with its check of the archive): files packed, the copy's time to ready;
//   - bundle --runs N: files read and time to ready, original and bundle alternated, medians with
//     their intervals and the verdict on the difference.
// Prints markdown.
//
//   node bench/esm-frameworks.js [--node PATH]... [--runs 10] [--profiles 3]
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseCount } = require('../lib/options.js');
const { copyFixture, rm } = require('../test/helpers/app.js');

const CLI = path.join(__dirname, '..', 'bin', 'coldstart.js');
const APPS = [
  { fixture: 'nest-app', command: ['node', 'dist/main.js'] },
  { fixture: 'esm-only-app', command: ['node', 'src/main.js'] },
];

function cli(node, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(node, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const ms = (n) => (n == null ? '–' : `${Math.round(n)}`);

async function measure(node, app, { runs, profiles }) {
  const dir = copyFixture(app.fixture);
  const command = [node, ...app.command.slice(1)];
  try {
    const profiled = [];
    for (let i = 0; i < profiles; i++) {
      const out = path.join(dir, `profile-${i}`);
      const r = await cli(node, ['profile', '--out', out, '--', ...command], dir);
      if (r.code !== 0) throw new Error(`profile: ${r.stderr.trim().split('\n').pop()}`);
      const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
      profiled.push({
        nest: report.modules.filter((m) => m.kind === 'esm' && /^@nestjs\//.test(m.package)).length,
        readyAt: report.readyAt,
        share: report.packages.reduce((sum, p) => sum + p.selfMs, 0) / report.readyAt,
      });
    }
    const packed = await cli(node, ['pack', '--json', '--out', path.join(dir, 'app.tar'), '--', ...command], dir);
    if (packed.code !== 0) throw new Error(`pack: ${packed.stderr.trim().split('\n').pop()}`);
    const pack = JSON.parse(packed.stdout);
    const bundled = await cli(node, ['bundle', '--json', '--runs', String(runs), '--out', path.join(dir, 'bundled'), '--', ...command], dir);
    if (bundled.code !== 0) throw new Error(`bundle: ${bundled.stderr.trim().split('\n').pop()}`);
    return { profiled, pack, bundle: JSON.parse(bundled.stdout) };
  } finally {
    rm(dir);
  }
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({ args: argv, options: { node: { type: 'string', multiple: true }, runs: { type: 'string', default: '10' }, profiles: { type: 'string', default: '3' } } });
  const runs = parseCount(values.runs, '--runs');
  const profiles = parseCount(values.profiles, '--profiles');
  const nodes = values.node && values.node.length ? values.node : [process.execPath];
  const machine = describeMachine();
  const out = [`Machine: ${machine.cpu}, ${machine.cores} cores, load average at the start ${require('node:os').loadavg().map((n) => n.toFixed(2)).join(' ')}; ${runs} alternated starts each for the bundle`, ''];
  out.push('| app | Node | ES modules of @nestjs/* (profiles) | package self / time to ready, highest | packed files, check ready ms | files read original -> bundle | ready ms original [interval] | bundle [interval] | bundle verdict |');
  out.push('|---|---|---|---|---|---|---|---|---|');
  for (const node of nodes) {
    const version = require('node:child_process').execFileSync(node, ['-v'], { encoding: 'utf8' }).trim();
    for (const app of APPS) {
      process.stderr.write(`${app.fixture} on ${version}\n`);
      try {
        const { profiled, pack, bundle } = await measure(node, app, { runs, profiles });
        const c = bundle.timing.comparison;
        const median = (m) => `${ms(m.median)} [${ms(m.low)}–${ms(m.high)}]`;
        const factor = c.factor && c.factor.ratio ? ` (${c.factor.ratio.toFixed(2)}x, ${c.factor.low.toFixed(2)}–${c.factor.high.toFixed(2)})` : '';
        out.push(`| ${app.fixture} | ${version} | ${profiled.map((p) => p.nest).join(', ')} | ${Math.max(...profiled.map((p) => p.share)).toFixed(2)} | ${pack.files}, ${ms(pack.check && pack.check.readyAt)} | ${bundle.original.files} -> ${bundle.bundle.files} | ${median(c.before)} | ${median(c.after)} | ${c.verdict}${factor} |`);
      } catch (err) {
        out.push(`| ${app.fixture} | ${version} | failed: ${err.message} |`);
      }
    }
  }
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}

module.exports = { main };
if (require.main === module) main().then((code) => { process.exitCode = code; });
