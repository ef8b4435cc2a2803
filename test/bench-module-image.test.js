'use strict';
// bench/module-image.js for real, at its smallest: a 20-module fixture, one sample of each way of
// compiling under runc and runsc. What it must show besides times: where a module's stack frame
// points in each (its own file, except in the module image). Without a Docker engine the test
// skips with a loud line, except in CI where that is a failure (test/helpers/docker.js).
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const { runBenchmark, renderMarkdown, VARIANTS, main } = require('../bench/module-image.js');
const { UsageError } = require('../lib/errors.js');
const { needDocker, cleanup } = require('./helpers/docker.js');
const { onBenchmarkNode } = require('./helpers/suite.js');

after(cleanup);

test('module-image: every variant listens under runc and runsc; only the module image renames a module\'s frames', { timeout: 300_000 }, async (t) => {
  if (!onBenchmarkNode(t)) return;
  if (!(await needDocker(t))) return;
  const report = await runBenchmark({ runs: 1, warmup: 0, runtimes: ['runc', 'runsc'], modules: 20, seed: 42, baseImage: 'coldstart-node:local' });
  for (const runtime of ['runc', 'runsc']) {
    for (const variant of Object.keys(VARIANTS)) {
      const [ms] = report.samples[runtime][variant];
      assert.ok(ms > 0, `${variant} under ${runtime}: ${ms} ms`);
    }
  }
  // The probe module's own stack frame: its real file, except when it is one function of the image.
  for (const variant of ['plain', 'per-module', 'snapshot']) assert.equal(report.frames[variant], '/app/probe.js', variant);
  assert.equal(report.frames.image, '/app/.image/image.js');
  const table = renderMarkdown(report);
  for (const { label } of Object.values(VARIANTS)) assert.ok(table.includes(`| ${label} |`), label);
  assert.match(table, /per module: \(variant − bare\) \/ 20/);
  for (const line of table.split('\n').filter((l) => l.startsWith('|'))) t.diagnostic(line);
});

test('module-image: bad options are usage errors (one line, exit 2), before any Docker work', async () => {
  await assert.rejects(main(['--runtimes', 'kata']), (err) => err instanceof UsageError && /kata/.test(err.message));
  await assert.rejects(main(['--runs', '0']), (err) => err instanceof UsageError && /--runs/.test(err.message));
  await assert.rejects(main(['--no-such-option']), (err) => err instanceof UsageError && /no-such-option/.test(err.message));
});
