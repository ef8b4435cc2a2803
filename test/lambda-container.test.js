'use strict';
// A Lambda function's container image under gVisor (runsc), built from the Dockerfile
// docs/lambda.md shows, as Lambda's container images hold a function: the handler and its node_modules under /var/task, the archive pack made beside it, and
// NODE_OPTIONS set as the function's environment would set it. profile --docker --lambda serves
// the Runtime API inside the container (no network) and profiles init and the first invocation.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { removeImages } = require('../lib/docker.js');
const { buildLambdaImage } = require('./helpers/lambda-image.js');
const { needDocker, testedRuntimes, scratch, cleanup, BASE_IMAGE } = require('./helpers/docker.js');
const { registryFixture } = require('./helpers/registry-fixture.js');
const { runCli, rm } = require('./helpers/app.js');

const built = [];
after(async () => {
  await removeImages(built);
  await cleanup();
});

test('a Lambda image under both gVisors: the preload in NODE_OPTIONS serves the packed archive at init; init and the first invocation profiled inside', { timeout: 20 * 60 * 1000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const dir = registryFixture(t, 'lambda-app');
  if (!dir) return;
  try {
    const tag = `coldstart-test-lambda:${process.pid}`;
    await buildLambdaImage({ dir, handler: 'handler.js:handler', tag, baseImage: BASE_IMAGE });
    built.push(tag);

    for (const runtime of (await testedRuntimes(t)).filter((x) => x !== 'runc')) {
      const out = path.join(scratch(), `lambda-out-${runtime}`);
      const r = await runCli(['profile', '--docker', tag, '--runtime', runtime, '--lambda', 'handler.js:handler', '--event', 'event.json', '--out', out], { cwd: scratch() });
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
      assert.equal(report.root, '/var/task');
      assert.equal(report.served && report.served.mode, 'memory', JSON.stringify(report.served));
      assert.match(r.stderr, /coldstart: serving \d+ files, [\d.]+ kB from memory/);
      assert.equal(r.stderr.match(/coldstart: serving/g).length, 1, 'served to the function, not to coldstart\'s own CLI');
      assert.ok(report.lambda.invoke.ok, JSON.stringify(report.lambda));
      assert.ok(report.lambda.initMs > 0 && report.readyAt >= report.lambda.initMs + report.lambda.invoke.ms);
      assert.match(r.stdout, /Lambda handler\.handler: init [\d.]+ ms \+ first invocation [\d.]+ ms \(answered\)/);
      t.diagnostic(`under ${runtime}: init ${report.lambda.initMs} ms, first invocation ${report.lambda.invoke.ms} ms`);
    }
  } finally {
    rm(dir);
  }
});
