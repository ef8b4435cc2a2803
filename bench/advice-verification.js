#!/usr/bin/env node
'use strict';
// The lazy-load advice, estimated against measured: `coldstart profile --verify-advice` run on each
// app (-n times the whole command), and for each proposal it tried the saving the profile estimated
// (the module's load time under the profiler), the saving the alternating timed starts measured
// (median shift with its 95% interval) and the verdict, or the reason it was dropped. Prints markdown.
//
//   node bench/advice-verification.js [-n 3] [--apps route-only,express,otel] [--nodes PATH,...]
//
// Apps: route-only, test/helpers/lazy-advice-app.js (a module of 40 ms of CPU
// work used only by GET /heavy, one destructured where it is required, one whose field startup
// reads), asked GET /heavy; express and otel, the fixtures as profile-overhead.js runs them, asked
// GET / and GET /hello.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { describeMachine } = require('../lib/bench/runner.js');
const { VERIFY_RUNS } = require('../lib/capture/verify-lazy.js');
const { parseRunArgs } = require('./alternating-runs.js');
const { APPS: FIXTURES } = require('./profile-overhead.js');
const { spawnCli } = require('../test/helpers/app.js');
const { writeLazyAdviceApp } = require('../test/helpers/lazy-advice-app.js');

const DEFAULT_APPS = 'route-only,express,otel';

/** The apps, each made ready to run in `scratch`: { name, cwd, command, request }. */
const APPS = {
  'route-only': async (scratch) => {
    // heavy: 40 ms of CPU work at load on this machine when idle, used by the /heavy route only.
    const dir = writeLazyAdviceApp(path.join(scratch, 'route-only'), { heavyMs: 40 });
    return { name: 'generated: 40 ms module used by a route only', cwd: dir, command: ['node', 'server.js'], request: 'GET /heavy' };
  },
  express: async (scratch) => ({ ...(await FIXTURES.express(scratch)), request: 'GET /' }),
  otel: async (scratch) => ({ ...(await FIXTURES.otel(scratch)), request: 'GET /hello' }),
};

/** -n (repetitions of the whole command, 3 by default), --apps, --nodes as the other benches. */
function parseBenchArgs(argv) {
  return parseRunArgs(['-n', '3', ...argv], APPS, DEFAULT_APPS);
}

/** One `coldstart profile --verify-advice` of the app; its report.json. */
async function profileOnce(app, env, out) {
  const args = ['profile', '--verify-advice', '--request', app.request, '--out', out, '--', ...app.command];
  const { code, stderr } = await spawnCli(args, { cwd: app.cwd, env }).done;
  if (code !== 0) throw new Error(`coldstart ${args.join(' ')} exited with ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`);
  return JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
}

/** The lazy-load proposals of a report: those tried (kept or dropped), largest estimate first, and how many were not tried. */
function lazyOutcomes(report) {
  const lazy = (report.advice || []).filter((a) => a.kind === 'lazy-load');
  const tried = [
    ...lazy.filter((a) => a.verified).map((a) => ({ ...a.verified, subject: a.subject, file: a.file, line: a.line, estimatedMs: a.estimatedMs })),
    ...(report.adviceDropped || []).filter((d) => d.kind === 'lazy-load').map((d) => ({ ...d, verdict: 'dropped' })),
  ].sort((a, b) => b.estimatedMs - a.estimatedMs);
  return { tried, untried: lazy.filter((a) => !a.verified).length, other: (report.advice || []).length - lazy.length };
}

const ms = (n) => (n == null ? '–' : `${n.toFixed(1)} ms`);
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function measuredCell(o) {
  if (o.measuredMs == null) return o.runs != null ? `– (${o.runs} runs)` : '–';
  const interval = o.low == null ? '' : ` [${o.low.toFixed(1)} … ${o.high.toFixed(1)}]`;
  return `${ms(o.measuredMs)}${interval}, ${o.runs} runs each`;
}

/** The markdown (pure). results: [{ app, node, rep, readyAt, tried, untried, other }] */
function renderAdviceVerification(results, { machine, loadAtStart, loadAtEnd, seconds }) {
  const lines = [
    '| app | Node | run | readyAt | candidate | estimated | measured saving [95% interval] | verdict |',
    '|---|---|---:|---:|---|---:|---:|---|',
  ];
  for (const r of results) {
    const head = `| ${cell(r.app)} | ${r.node} | ${r.rep} | ${ms(r.readyAt)}`;
    if (!r.tried.length) {
      lines.push(`${head} | none: no lazy-load proposal (${r.other} other advice item${r.other === 1 ? '' : 's'}) | – | – | – |`);
      continue;
    }
    for (const o of r.tried) {
      const where = `${o.file}:${o.line == null ? '?' : o.line}`;
      const verdict = o.reason ? `${o.verdict}: ${o.reason}` : o.verdict;
      lines.push(`${head} | ${cell(o.subject)} (${cell(where)}) | ${ms(o.estimatedMs)} | ${measuredCell(o)} | ${cell(verdict)} |`);
    }
    if (r.untried) lines.push(`${head} | ${r.untried} more lazy-load proposal${r.untried === 1 ? '' : 's'} beyond the top 3, not tried | – | – | – |`);
  }
  const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
  lines.push('',
    `\`coldstart profile --verify-advice\`, each run a separate command; estimated: the profile's figure, measured: median shift of ${VERIFY_RUNS} timed starts each, the app as it is and with the require made lazy, alternating.`,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.os}; load average at the start ${load(loadAtStart)}, at the end ${load(loadAtEnd)}; ${Math.round(seconds)} s in all.`, '');
  return lines.join('\n');
}

async function main(argv = process.argv.slice(2)) {
  const plan = parseBenchArgs(argv);
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const progress = (text) => { if (process.stderr.isTTY) process.stderr.write(`\r${text}\x1b[K`); };
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-advice-verification-'));
  const results = [];
  try {
    for (const name of plan.appNames) {
      const app = await APPS[name](scratch);
      for (const dir of plan.nodeDirs) {
        const env = { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH}` };
        const node = execFileSync(path.join(dir, 'node'), ['--version'], { encoding: 'utf8' }).trim();
        for (let rep = 1; rep <= plan.runs; rep++) {
          progress(`${app.name} ${node} ${rep}/${plan.runs}`);
          const report = await profileOnce(app, env, path.join(scratch, `out-${name}-${node}-${rep}`));
          results.push({ app: app.name, node, rep, readyAt: report.readyAt, ...lazyOutcomes(report) });
        }
      }
    }
  } finally {
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(renderAdviceVerification(results, {
    machine: describeMachine(), loadAtStart, loadAtEnd: os.loadavg(), seconds: (Date.now() - started) / 1000,
  }));
  return 0;
}

if (require.main === module) require('./run-as-script.js').runAsScript('advice-verification', main);

module.exports = { main, renderAdviceVerification, lazyOutcomes };
