'use strict';
// bench/sandbox-clock.js: its probe for real under runc and runsc (one run each), and its preload
// library built with cc and loaded into a real node on the host: it counts the main thread's
// clock reads, and with CLOCK_PRELOAD_FAST=1 answers them itself while time still moves as the
// kernel's clock does. Without a Docker engine the probe test skips loudly (fails in CI).
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { runBenchmark, renderMarkdown, buildPreload, main } = require('../bench/sandbox-clock.js');
const { UsageError } = require('../lib/errors.js');
const { needDocker, cleanup } = require('./helpers/docker.js');
const { onBenchmarkNode } = require('./helpers/suite.js');

after(cleanup);

test('sandbox-clock: the probe reports clock and compile costs under runc and runsc', { timeout: 120_000 }, async (t) => {
  if (!onBenchmarkNode(t)) return;
  if (!(await needDocker(t))) return;
  const report = await runBenchmark({ runs: 1, runtimes: ['runc', 'runsc'], baseImage: 'coldstart-node:local' });
  for (const runtime of ['runc', 'runsc']) {
    const [probe] = report.probe[runtime];
    for (const phase of ['early', 'late']) {
      for (const key of ['clockReadUs', 'scriptUs', 'evalUs']) assert.ok(probe[phase][key] > 0, `${runtime} ${phase} ${key}: ${probe[phase][key]}`);
    }
    assert.ok(probe.late.atMs >= probe.early.atMs, `${runtime}: measured again later`);
  }
  // On the host's kernel a clock read is cheap from the start.
  assert.ok(report.probe.runc[0].cheapAtMs !== null && report.probe.runc[0].cheapAtMs <= report.probe.runc[0].late.atMs);
  assert.equal(report.app, null);
  const table = renderMarkdown(report);
  assert.match(table, /^\| runc \| /m);
  assert.match(table, /^\| runsc \| /m);
  for (const line of table.split('\n').filter((l) => l.startsWith('|'))) t.diagnostic(line);
});

test('sandbox-clock: the preload counts the main thread\'s clock reads and can answer them itself', (t) => {
  if (spawnSync('cc', ['--version']).status !== 0) {
    process.stderr.write('SKIPPED: the clock preload needs a C compiler (cc)\n');
    t.skip('no cc');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-clock-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  buildPreload(dir);
  const preload = path.join(dir, 'clock-preload.so');
  // 5,000 reads of the monotonic clock over at least 200 ms of wall time, compared with Date.now.
  const script = `const d0 = Date.now(), h0 = process.hrtime.bigint();
    for (let i = 0; i < 5000; i++) process.hrtime.bigint();
    while (Date.now() - d0 < 200);
    console.log(JSON.stringify({ wall: Date.now() - d0, mono: Number(process.hrtime.bigint() - h0) / 1e6 }));`;
  const run = (env) => {
    const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, LD_PRELOAD: preload, ...env }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const reads = /clock-preload reads (\d+) from-tsc (\d+)/.exec(r.stderr);
    assert.ok(reads, r.stderr);
    return { ...JSON.parse(r.stdout), reads: Number(reads[1]), fromTsc: Number(reads[2]) };
  };
  const kernel = run({});
  const fast = run({ CLOCK_PRELOAD_FAST: '1' });
  for (const r of [kernel, fast]) {
    assert.ok(r.reads >= 5000, `reads counted: ${r.reads}`);
    // The monotonic clock moved as the wall clock did: a wrong tick rate would be off by a
    // factor; the margin is for the process losing the CPU between two reads on a loaded machine.
    assert.ok(Math.abs(r.mono - r.wall) < 0.2 * r.wall, `monotonic ${r.mono} ms against wall ${r.wall} ms`);
  }
  assert.equal(kernel.fromTsc, 0);
  assert.ok(fast.fromTsc > 0.9 * fast.reads, `answered in user space: ${fast.fromTsc} of ${fast.reads}`);
});

test('sandbox-clock: bad options are usage errors (one line, exit 2), before any Docker work', async () => {
  await assert.rejects(main(['--runtimes', 'kata']), (err) => err instanceof UsageError && /kata/.test(err.message));
  await assert.rejects(main(['--image', 'a:1', '--variants', 'start,jit']), (err) => err instanceof UsageError && /jit/.test(err.message));
  await assert.rejects(main(['--variants', 'start']), (err) => err instanceof UsageError && /--image/.test(err.message));
  await assert.rejects(main(['--runs', '0']), (err) => err instanceof UsageError && /--runs/.test(err.message));
  await assert.rejects(main(['--command', 'node x.js']), (err) => err instanceof UsageError && /--image/.test(err.message));
  await assert.rejects(main(['--image', 'a:1', '--command', 'python x.py']), (err) => err instanceof UsageError && /node command/.test(err.message));
});
