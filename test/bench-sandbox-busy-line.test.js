'use strict';
// bench/sandbox-busy-line.js without a container: the counters read between the host's sweeps,
// the figures of a window (the app's address space and its busiest stub thread), the markdown, and
// its options.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { counterAt, windowFigures, renderMarkdown, main } = require('../bench/sandbox-busy-line.js');
const { UsageError } = require('../lib/errors.js');

// A thread as the sweeps leave it: samples [wall ms, cpu ms, run_delay ms].
const thread = (tid, pid, space, samples, bornAfter = null) => ({ tid, pid, space, comm: 'exe', stub: space !== null, bornAfter, samples });

test('sandbox-busy-line: a counter between sweeps is interpolated; before a late-born thread 0, after an ended one its last', () => {
  const th = thread(11, 11, 10, [[100, 10, 4], [110, 20, 8]], 90);
  assert.equal(counterAt(th, 105, 1), 15);
  assert.equal(counterAt(th, 105, 2), 6);
  assert.equal(counterAt(th, 80, 2), 0, 'not born yet');
  assert.equal(counterAt(th, 95, 1), 5, 'born after the sweep at 90: from 0 there');
  assert.equal(counterAt(th, 200, 1), 20, 'ended: its last sweep');
  const early = thread(12, 12, 10, [[100, 50, 30]]);
  assert.equal(counterAt(early, 50, 2), 30, 'there before the first sweep: what came before is not known');
});

test('sandbox-busy-line: the app\'s address space is the one whose stub threads used the most CPU; its busiest thread stands for the app', () => {
  const swept = {
    threads: [
      thread(1, 1, null, [[0, 0, 0], [100, 30, 50]]), // the Sentry
      thread(20, 20, 20, [[0, 0, 0], [100, 40, 35]]), // the app's space: two stub threads
      thread(21, 21, 20, [[0, 0, 0], [100, 10, 5]]),
      thread(30, 30, 30, [[0, 0, 0], [100, 20, 1]]), // another process
    ],
    host: [[0, 5], [50, 7], [100, 9]],
  };
  const w = windowFigures(swept, 0, 100);
  assert.equal(w.ms, 100);
  assert.deepEqual([w.delayMs, w.sentryDelayMs, w.stubDelayMs, w.cpuMs, w.sentryCpuMs], [91, 50, 41, 100, 30]);
  assert.deepEqual([w.app.space, w.app.threads, w.app.cpuMs, w.app.delayMs], [20, 2, 50, 40]);
  assert.deepEqual([w.app.top.tid, w.app.top.cpuMs, w.app.top.delayMs], [20, 40, 35]);
  assert.equal(w.spaces[1].space, 30);
  assert.equal(w.topThread.tid, 20);
  assert.equal(w.hostRunnable, 7);
  assert.equal(w.sandboxRunnable, (100 + 91) / 100);
});

test('sandbox-busy-line: the markdown has a row per run, the medians per load and the fit of X on the app thread\'s wait', () => {
  const run = (loops, ahead, x, delay) => {
    const w = windowFigures({
      threads: [thread(1, 1, null, [[0, 0, 0], [500, 100, 80]]), thread(20, 20, 20, [[0, 0, 0], [500, 150, delay]])],
      host: [[0, 4], [500, 4]],
    }, 0, 500);
    return { loops, ahead, offCpuMs: x, offCpuShare: x / 500, profiledMs: 500, readyAt: 600, loadAverage: 3, window: w, container: w, covered: true,
      appStubBeforeMs: 300, appStubAfterMs: 4000, busyLine: 'the machine was busy: the app was not running' };
  };
  const report = {
    runtime: 'runsc-2024', runsc: 'runsc version test', runs: 2, loads: [0, 2], ahead: true, sleep: true, warmup: 1, intervalMs: 10, packages: 68, seconds: 1,
    machine: { cpu: 'CPU', cores: 2, os: 'Linux', node: 'v20', docker: '20' },
    results: [run(0, false, 100, 120), run(2, false, 200, 250), run(0, true, 50, 70), run(2, false, 210, 260), run(0, false, 110, 130), run(0, true, 60, 80)],
  };
  const md = renderMarkdown(report);
  assert.equal(md.split('\n').filter((l) => /^\| (0|2|0, container ahead) \| \d/.test(l)).length, 6 + 3);
  assert.match(md, /^\| 0, container ahead \| 55\.0 \| 11% \| 75\.0 \| −20\.0 \| /m, 'medians of two runs, no interval');
  assert.match(md, /Over all 6 runs: X = .* × the app's top stub thread's run_delay \(Theil-Sen; Spearman ρ 1\.00\)/);
  assert.match(md, /the image with a `sleep`/);
});

test('sandbox-busy-line: one gVisor runtime and whole counts, else a usage error', async () => {
  await assert.rejects(main(['--runtimes', 'runc']), UsageError);
  await assert.rejects(main(['--runtimes', 'runsc,runsc-2024']), UsageError);
  await assert.rejects(main(['--loops', '0,x']), UsageError);
  await assert.rejects(main(['--runs', '0']), UsageError);
});
