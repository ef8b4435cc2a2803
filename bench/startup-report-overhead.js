#!/usr/bin/env node
'use strict';
// What the production startup report (COLDSTART_REPORT) costs a cold start: `coldstart start
// --mode memory` of an app packed with --code-cache, with the report written to a file and
// without it, runs alternating; time to ready measured inside the app (its first listen).
//
//   node bench/startup-report-overhead.js [-n 20] [--modules 1000]
//
// Prints markdown: each series' median with its interval, and the ratio with its interval.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { medianInterval, ratioInterval, formatMedianInterval } = require('../lib/stats.js');
const { parseCount } = require('../lib/options.js');

const BIN = path.join(__dirname, '..', 'bin', 'coldstart.js');
// Says the time to its first listen, then ends the app.
const READY_PRELOAD = `const net = require('net'); const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function (ev) { if (ev === 'listening') { process.stderr.write('bench-ready ' + performance.now() + '\\n'); setImmediate(() => process.exit(0)); } return emit.apply(this, arguments); };\n`;

function readyAt(dir, preload, env) {
  const r = spawnSync(process.execPath, [BIN, 'start', '-q', '--archive', 'startup.tar', '--', 'node', '-r', preload, 'index.js'],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  const m = /^bench-ready ([\d.]+)$/m.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`start failed (exit ${r.status}): ${r.stderr}`);
  return Number(m[1]);
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string', short: 'n', default: '20' }, modules: { type: 'string', default: '1000' } } });
  const runs = parseCount(values.runs, '-n');
  const loadAtStart = os.loadavg();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-report-overhead-'));
  try {
    const { dir } = await generateFixture({ dir: path.join(scratch, 'app'), modules: parseCount(values.modules, '--modules'), seed: 42 });
    const preload = path.join(scratch, 'ready.cjs');
    fs.writeFileSync(preload, READY_PRELOAD);
    const packed = spawnSync(process.execPath, [BIN, 'pack', '-q', '--code-cache', '--out', 'startup.tar', '--', 'node', 'index.js'], { cwd: dir, encoding: 'utf8' });
    if (packed.status !== 0) throw new Error(packed.stderr);
    const report = path.join(scratch, 'report.json');
    const off = [];
    const on = [];
    readyAt(dir, preload, {}); // warm the disk cache
    for (let i = 0; i < runs; i++) {
      off.push(readyAt(dir, preload, {}));
      on.push(readyAt(dir, preload, { COLDSTART_REPORT: report }));
    }
    const r = ratioInterval(off, on);
    process.stdout.write([
      '| start --mode memory, code cache | time to ready |',
      '|---|---:|',
      `| without the report | ${formatMedianInterval(medianInterval(off))} |`,
      `| with COLDSTART_REPORT=FILE | ${formatMedianInterval(medianInterval(on))} |`,
      `| ratio | ${r.ratio.toFixed(3)}x [${r.low.toFixed(3)}–${r.high.toFixed(3)}] |`,
      '',
      `${runs} runs each, alternating; ${JSON.parse(fs.readFileSync(report, 'utf8')).modules} modules timed; Node ${process.version};`
        + ` load average at the start ${loadAtStart.map((x) => x.toFixed(2)).join(', ')}, at the end ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}.`,
      '',
    ].join('\n'));
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) require('./run-as-script.js').runAsScript('startup-report-overhead', main);

module.exports = { main };
