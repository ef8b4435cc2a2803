'use strict';
// A real Next.js standalone server from the npm registry (fixtures/next-app, `npm ci`), through the
// Dockerfile `coldstart dockerfile` writes for it (Next's own recipe: build, then the standalone
// tree alone): the image builds, and under the 2024 gVisor `coldstart start` serves the server from
// memory with its code cache used (the startup report's own count) and answers GET / with a 200.
// How much faster than plain it starts is bench/next-standalone.js's, interleaved (BENCHMARKS.md).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { needDocker, testedRuntimes, scratch, cleanup, BASE_IMAGE, REPO } = require('./helpers/docker.js');
const { onBenchmarkNode } = require('./helpers/suite.js');
const { assembleContext, buildImage, runContainer, removeImages } = require('../lib/docker.js');

test.after(cleanup);

test('Next.js 16 standalone from the registry: the written Dockerfile builds; under gVisor start serves it from memory with code cache hits and it answers GET /', { timeout: 900_000 }, async (t) => {
  if (!onBenchmarkNode(t, 'building a Next.js app from the registry in an image')) return;
  if (!(await needDocker(t))) return;
  const runtime = (await testedRuntimes(t)).find((r) => r === 'runsc-2024') || 'runc';
  const app = path.join(scratch(), 'next-app');
  fs.cpSync(path.join(REPO, 'fixtures', 'next-app'), app, { recursive: true });
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel', 'error'], { cwd: app, stdio: 'ignore', timeout: 600_000 });
  const context = assembleContext({ app, into: path.join(scratch(), 'next-context') }).dir;
  const dockerfile = execFileSync(process.execPath, [path.join(REPO, 'bin', 'coldstart.js'), 'dockerfile', '--quiet'], { cwd: context, encoding: 'utf8' });
  fs.writeFileSync(path.join(context, 'Dockerfile'), `${dockerfile}COPY first-answer.js /first-answer.js\n`);
  fs.copyFileSync(path.join(REPO, 'bench', 'docker', 'first-answer.js'), path.join(context, 'first-answer.js'));
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)[1]);
  assert.ok(cmd.includes('start'), `the image starts through coldstart start: ${cmd.join(' ')}`);

  const tag = `coldstart-test-next:${process.pid}`;
  try {
    const built = await buildImage({ context, dockerfile: path.join(context, 'Dockerfile'), tag, buildArgs: { NODE_IMAGE: BASE_IMAGE }, timeoutMs: 600_000 });
    assert.match(built.output, /coldstart: packed \d+ files/);
    const r = await runContainer({ image: tag, runtime, env: { COLDSTART_REPORT: 'stderr' }, args: ['node', '/first-answer.js', ...cmd], timeoutMs: 120_000 });
    assert.match(r.stdout, /^first-answer [\d.]+$/m, `${runtime}: ${r.stdout.slice(-300)} ${r.stderr.slice(-600)}`);
    const serving = /^coldstart: serving (\d+) files/m.exec(r.stderr);
    assert.ok(serving && Number(serving[1]) > 200, r.stderr.slice(-600));
    const report = JSON.parse(r.stderr.split('\n').find((line) => line.startsWith('{') && line.includes('codeCache')));
    assert.ok(report.codeCache && report.codeCache.hits > 0, JSON.stringify(report.codeCache));
    t.diagnostic(`${runtime}: ${serving[0]}; code cache used for ${report.codeCache.hits} modules, rejected for ${report.codeCache.rejected}; ${r.stdout.trim()} ms to the first 200`);
  } finally {
    await removeImages([tag]).catch(() => {});
  }
});
