'use strict';
// On a busy machine (two busy loops on a 2-core runner), a module's self time is the CPU it used,
// not the time the machine kept it waiting: a module that uses 50 ms of CPU reads 50 ± 5 ms, a
// one-line module under 2 ms, and the time the app was not running is reported apart. Ground truth:
// busy.js measures its own CPU and wall time in the same run.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { copyFixture, runCli, rm, writeFiles } = require('./helpers/app.js');
const { startBusyLoops } = require('./helpers/busy-loops.js');

let load;
test.before(async () => { load = await startBusyLoops(2); });
test.after(async () => { if (load) await load.stop(); });

test('under two busy loops: self time is CPU used, the rest is the machine\'s', async () => {
  const dir = copyFixture('busy-machine');
  let waitedForCpu = 0;
  try {
    for (let run = 0; run < 3; run++) {
      const truthFile = path.join(dir, `truth-${run}.json`);
      const r = await runCli(['profile', '--json', '--out', `out-${run}`, '--', 'node', 'server.js'], { cwd: dir, env: { ...process.env, TRUTH_FILE: truthFile } });
      assert.strictEqual(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      const truth = JSON.parse(fs.readFileSync(truthFile, 'utf8'));
      const busy = report.modules.find((m) => m.file === 'busy.js');
      const one = report.modules.find((m) => m.file === 'one.js');
      const context = `run ${run + 1}: busy.js used ${truth.cpuMs.toFixed(1)} ms of CPU in ${truth.wallMs.toFixed(1)} ms`;
      // The process's CPU clock counts V8's helper threads too, which can run beside the module: a
      // module's figure is capped at its wall time (agent.cjs), and so is the truth it is held to.
      const ownCpuMs = Math.min(truth.cpuMs, truth.wallMs);
      assert.ok(Math.abs(busy.selfMs + (busy.gcMs || 0) - ownCpuMs) <= 5, `${context}; reads ${busy.selfMs} ms self (gc ${busy.gcMs})`);
      assert.ok(one.selfMs < 2, `${context}; one.js reads ${one.selfMs} ms self`);
      // What the module waited for the CPU is its wall time minus its CPU, shown apart: at least what
      // busy.js waited inside itself, at most what its whole require waited (reading and compiling it
      // wait for a CPU too on a busy machine).
      const waitedInside = truth.wallMs - ownCpuMs;
      const waitedInRequire = truth.require.wallMs - Math.min(truth.require.cpuMs, truth.require.wallMs);
      assert.ok(busy.offCpuMs >= waitedInside - 5 && busy.offCpuMs <= waitedInRequire + 5,
        `${context}; off the CPU ${busy.offCpuMs} ms, the whole require waited ${waitedInRequire.toFixed(1)} ms`);
      const m = report.machine;
      assert.ok(m && m.offCpuShare >= 0 && m.offCpuShare <= 1 && m.cpus >= 1 && m.loadAverage.length === 3, JSON.stringify(m));
      assert.ok(m.floorMs > 0, 'a bare Node timed in the same run');
      assert.strictEqual(m.busy, (m.runQueueShare ?? m.offCpuShare) >= 0.1);
      if (fs.existsSync('/proc/self/schedstat')) waitedForCpu += m.runQueueMs;
    }
    // Three runnable threads on two cores: the app waited for a CPU (Linux's run-queue clock says how long).
    if (fs.existsSync('/proc/self/schedstat')) assert.ok(waitedForCpu > 0, `waited for a CPU ${waitedForCpu} ms in 3 runs`);
  } finally {
    rm(dir);
  }
});

test('under two busy loops an ES module\'s self time is the CPU it used too, and its time off the CPU is shown apart', async () => {
  const dir = require('fs').mkdtempSync(path.join(require('os').tmpdir(), 'cs-busy-esm-'));
  try {
    writeFiles(dir, {
      'package.json': '{ "name": "busy-esm", "private": true, "type": "module" }',
      'busy.js': fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'busy-machine', 'busy.js'), 'utf8')
        .replace("'use strict';\n", '').replace(/^module\.exports = (.*);$/m, 'export const truth = $1;'),
      'server.js': "import { truth } from './busy.js';\nimport { writeFileSync } from 'node:fs';\nimport { createServer } from 'node:http';\n" +
        'writeFileSync(process.env.TRUTH_FILE, JSON.stringify(truth));\ncreateServer().listen(0, \'127.0.0.1\');\n',
    });
    for (let run = 0; run < 2; run++) {
      const truthFile = path.join(dir, `truth-${run}.json`);
      const r = await runCli(['profile', '--json', '--out', `out-${run}`, '--', 'node', 'server.js'], { cwd: dir, env: { ...process.env, TRUTH_FILE: truthFile } });
      assert.strictEqual(r.code, 0, r.stderr);
      const busy = JSON.parse(r.stdout).modules.find((m) => m.file === 'busy.js');
      const truth = JSON.parse(fs.readFileSync(truthFile, 'utf8'));
      // As for CommonJS: the process's CPU clock counts V8's helper threads too, so the truth is capped at the module's wall time.
      const ownCpuMs = Math.min(truth.cpuMs, truth.wallMs);
      // Its own time also holds its resolution and load (read, compile), which the module's clocks
      // do not see: at most what the report gives them beyond its evaluation.
      const fetchMs = Math.max(0, (busy.resolveMs || 0) + (busy.loadMs || 0) - truth.wallMs);
      const own = busy.selfMs + (busy.gcMs || 0);
      assert.ok(own >= ownCpuMs - 5 && own <= ownCpuMs + 5 + fetchMs,
        `run ${run + 1}: busy.js used ${truth.cpuMs.toFixed(1)} ms of CPU in ${truth.wallMs.toFixed(1)} ms; reads ${busy.selfMs} ms self (gc ${busy.gcMs}), fetched in ${fetchMs.toFixed(1)}`);
      // Its evaluation's wall time less its CPU, as the module's own clocks see it.
      const waited = truth.wallMs - ownCpuMs;
      assert.ok(Math.abs(busy.offCpuMs - waited) <= Math.max(5, 0.2 * waited), `run ${run + 1}: off the CPU ${busy.offCpuMs} ms against ${waited.toFixed(1)}`);
    }
  } finally {
    rm(dir);
  }
});

test('the terminal summary says in one line when the machine inflated the run', async () => {
  const dir = copyFixture('busy-machine');
  try {
    const r = await runCli(['profile', '--out', 'out', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'report.json'), 'utf8'));
    const line = /the machine was busy: the app waited for a CPU [\d.]+ ms, \d+% of the profiled time \(load average [\d.]+ on \d+ CPUs?; a bare Node reached the same moment in [\d.]+ ms right after\)/;
    if (report.machine.busy) assert.match(r.stdout, line);
    else assert.doesNotMatch(r.stdout, /the machine was busy/);
  } finally {
    rm(dir);
  }
});

test('--runs 5 under two busy loops: the finding holds in 5 of 5 runs, with its median and interval; the reported run is the median one', async () => {
  const dir = copyFixture('busy-machine');
  try {
    const r = await runCli(['profile', '--runs', '5', '--json', '--out', 'out', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.strictEqual(report.runs.count, 5);
    const sorted = [...report.runs.readyAt].sort((a, b) => a - b);
    assert.strictEqual(Math.round(report.readyAt * 100) / 100, sorted[2], 'the median run is the one reported');
    const top = report.advice.find((a) => a.kind === 'sync-work' && a.file === 'busy.js');
    assert.ok(top, JSON.stringify(report.advice));
    assert.deepStrictEqual(top.runs, { seen: 5, of: 5 });
    const loopLine = fs.readFileSync(path.join(dir, 'busy.js'), 'utf8').split('\n').findIndex((l) => l.startsWith('for (let n = 0')) + 1;
    assert.strictEqual(top.line, loopLine, 'the loop\'s line, where its call is');
    assert.ok(top.interval[0] <= top.estimatedMs && top.estimatedMs <= top.interval[1], JSON.stringify(top));
    assert.ok(report.advice.every((a) => a.runs.seen * 2 > 5), 'only findings most runs found');
  } finally {
    rm(dir);
  }
});

// V8's sampler often misses a frame of baseline (Sparkplug) code and stops at its caller: a loop at
// a module's top level that stays in baseline code (its optimized code late on a busy machine,
// always with --max-opt=1) gave most of its samples to Node's loader, and the finding shrank to a
// fifth of its CPU or vanished. The samples before the loop's first one V8 saw whole stay the
// loader's (they cannot be told from its compiling the module), so one run can read low: the median
// of five is held to half the module's CPU.
test('under two busy loops, busy.js\'s top-level loop is a finding at its line with most of its CPU, also run in baseline code only (node --max-opt=1)', async (t) => {
  const dir = copyFixture('busy-machine');
  try {
    const loopLine = fs.readFileSync(path.join(dir, 'busy.js'), 'utf8').split('\n').findIndex((l) => l.startsWith('for (let n = 0')) + 1;
    const profiled = async (flags) => {
      const truthFile = path.join(dir, 'truth.json');
      const r = await runCli(['profile', '--json', '--out', 'out', '--', 'node', ...flags, 'server.js'], { cwd: dir, env: { ...process.env, TRUTH_FILE: truthFile } });
      assert.strictEqual(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      const truth = JSON.parse(fs.readFileSync(truthFile, 'utf8'));
      const top = report.advice.find((a) => a.kind === 'sync-work' && a.file === 'busy.js');
      const context = `node ${flags.join(' ')}: busy.js used ${truth.cpuMs.toFixed(1)} ms of CPU; advice ${JSON.stringify(report.advice.map((a) => [a.file, a.line, a.estimatedMs]))}`;
      t.diagnostic(context);
      if (top) {
        assert.strictEqual(top.line, loopLine, context);
        // The rest of its CPU: collections and the process.cpuUsage() calls, in Node's own frames.
        assert.ok(top.estimatedMs <= truth.cpuMs + 5, context);
      }
      return { share: top ? top.estimatedMs / truth.cpuMs : 0, context };
    };
    const baseline = [];
    for (let run = 0; run < 5; run++) baseline.push(await profiled(['--max-opt=1']));
    const shares = baseline.map((b) => b.share).sort((a, b) => a - b);
    assert.ok(shares[2] >= 0.5, `median share of busy.js's CPU ${shares[2].toFixed(2)}: ${baseline.map((b) => b.context).join('; ')}`);
    const tiered = await profiled([]);
    assert.ok(tiered.share > 0, tiered.context);
  } finally {
    rm(dir);
  }
});

test('a kernel that fakes its load average (gVisor\'s reads 0 with no task at all) is quoted as none', () => {
  const { loadAverage } = require('../lib/capture/capture-result.js');
  assert.deepStrictEqual(loadAverage('0.71 0.84 0.95 8/128 12\n'), [0.71, 0.84, 0.95]);
  assert.strictEqual(loadAverage('0.00 0.00 0.00 0/0 0\n'), null);
});

test('under two busy loops the ES modules\' own times add up to no more than the CPU the profile saw: their fetch\'s waits are apart too', async (t) => {
  // Node 20 fetches ES modules on a hooks thread, beside the app's: no module's own time there.
  if (!require('node:module').registerHooks) return t.skip('no in-thread module hooks on this Node (ES modules are fetched on a hooks thread)');
  const tmp = fs.mkdtempSync(path.join(require('os').tmpdir(), 'cs-busy-esm-many-'));
  const dir = path.join(tmp, 'app');
  try {
    const made = await runCli(['fixture', '--modules', '400', '--es-modules', '--out', dir, '--quiet']);
    assert.strictEqual(made.code, 0, made.stderr);
    let waited = 0;
    for (let run = 0; run < 2; run++) {
      const r = await runCli(['profile', '--json', '--out', `out-${run}`, '--', 'node', 'index.js'], { cwd: dir });
      assert.strictEqual(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      const c = report.categories;
      const onCpu = c.totalMs - c.idle - c.offCpu;
      const own = report.modules.reduce((sum, m) => sum + m.selfMs + (m.gcMs || 0), 0);
      assert.ok(report.modules.filter((m) => m.kind === 'esm').length >= 400);
      // The profile's on-CPU time is itself an upper bound of the CPU (a gap up to two intervals stays with its frame).
      assert.ok(own <= onCpu * 1.05, `run ${run + 1}: modules' own time ${own.toFixed(1)} ms, the profile on the CPU ${onCpu.toFixed(1)} ms, waited for a CPU ${report.machine.runQueueMs} ms`);
      waited += report.machine.runQueueMs || 0;
    }
    t.diagnostic(`waited for a CPU ${waited.toFixed(1)} ms in 2 runs`);
  } finally {
    rm(tmp);
  }
});
