'use strict';
// coldstart bench --containers for real: images built from a generated fixture on the local base
// image, every sample a fresh container under runc and runsc; the seed scenarios the same way. Without a Docker engine the
// container test skips with a loud line, except in CI where that is a failure; the tests for
// a missing or stopped engine need no engine at all.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCli } = require('./helpers/app.js');
const { needDocker, cleanup } = require('./helpers/docker.js');
const { onBenchmarkNode } = require('./helpers/suite.js');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { runBenchPlan } = require('../lib/bench/bench-plan.js');

const DOCKER = process.env.COLDSTART_DOCKER || '/usr/bin/docker';
let work;
let app;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-docker-test-'));
  app = (await generateFixture({ dir: path.join(work, 'app'), modules: 20, seed: 3 })).dir;
});
after(async () => {
  await cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Runs fn with some environment variables set in this process (docker.js reads process.env). */
async function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  }
}

function dockerLines(args) {
  return execFileSync(DOCKER, args, { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
}

test('bench --containers: the app in fresh containers under runc and runsc, ready at the line --until names', { timeout: 300_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const r = await runCli(['bench', '--containers', 'runc,runsc', '-n', '2', '--until', 'line:/listening on port \\d+/',
    '--json', '--', 'node', 'index.js'], { cwd: app });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.deepEqual(result.series.map((s) => s.label), ['node index.js [runc]', 'node index.js [runsc]']);
  for (const s of result.series) {
    assert.equal(s.where, 'docker');
    assert.equal(s.metric, 'outside');
    assert.deepEqual(s.inside, [], 'no inside time in a container');
    assert.equal(s.stats.inside, null);
    assert.equal(s.outside.length, 2);
    assert.ok(s.outside.every((ms) => ms > 0), `${s.label}: ${s.outside}`);
    assert.equal(s.ready, String(/listening on port \d+/i));
    t.diagnostic(`${s.label}: ${s.outside.map(Math.round).join(', ')} ms (docker run to listening line)`);
  }
  assert.ok(result.notes.some((n) => /No inside time/.test(n)), 'the output says how containers are timed');
  assertNothingLeft();
});

test('the seed scenarios in fresh containers under runc and runsc, as bench/seed-table.js runs them', { timeout: 300_000 }, async (t) => {
  if (!onBenchmarkNode(t)) return;
  if (!(await needDocker(t))) return;
  const result = await runBenchPlan({
    commands: [], scenarios: ['require', 'cpu'], fixtureDir: app, inDocker: true, runtimes: ['runc', 'runsc'],
    baseImage: 'coldstart-node:local', cwd: app, env: process.env, runs: 2, warmup: 1, until: { mode: 'listen' }, timeoutMs: 60_000,
  });
  assert.deepEqual(result.series.map((s) => s.label), ['require [runc]', 'require [runsc]', 'cpu [runc]', 'cpu [runsc]']);
  for (const s of result.series) {
    assert.equal(s.where, 'docker');
    assert.equal(s.outside.length, 2);
    assert.ok(s.outside.every((ms) => ms > 0), `${s.label}: ${s.outside}`);
    t.diagnostic(`${s.label}: ${s.outside.map(Math.round).join(', ')} ms (docker run to listening line)`);
  }
  const cpu = result.series.find((s) => s.label === 'cpu [runc]');
  assert.ok(cpu.stats.outside.median >= 1000, `the 1 s control cannot be ready in under 1 s: ${cpu.stats.outside.median}`);
  assertNothingLeft();
});

/** Nothing left behind: containers are --rm and killed, images removed. */
function assertNothingLeft() {
  assert.deepEqual(dockerLines(['ps', '-a', '--filter', `name=coldstart-run-${process.pid}-`, '--format', '{{.Names}}']), []);
  assert.deepEqual(dockerLines(['images', '--format', '{{.Repository}}:{{.Tag}}'])
    .filter((tag) => tag.startsWith(`coldstart-bench:${process.pid}-`)), []);
}

test('bench --containers without Docker: one line naming the setup step', async () => {
  const r = await withEnv({ COLDSTART_DOCKER: path.join(work, 'no-docker-here') },
    () => runCli(['bench', '--containers', 'runc', '-n', '1', '--', 'node', 'index.js'], { cwd: app }));
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^coldstart: Docker is not installed .*run \.ci\/docker-up\.sh\n$/);
});

test('bench --containers with the engine down: one line naming the setup step', async (t) => {
  if (!fs.existsSync(DOCKER)) {
    t.skip(`no ${DOCKER}: the "not installed" case above covers this machine`);
    return;
  }
  const r = await withEnv({ COLDSTART_DOCKER: DOCKER, DOCKER_HOST: `unix://${path.join(work, 'no-engine.sock')}` },
    () => runCli(['bench', '--containers', 'runc', '-n', '1', '--', 'node', 'index.js'], { cwd: app }));
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^coldstart: the Docker engine is not running .*run \.ci\/docker-up\.sh\n$/);
});
