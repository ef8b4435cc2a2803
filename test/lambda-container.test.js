'use strict';
// A Lambda function's container image under gVisor (runsc), built from the Dockerfile
// `coldstart dockerfile --lambda` writes (docs/lambda.md), as Lambda's container images hold a function: the handler and its node_modules under /var/task, the archive pack made beside it, and
// NODE_OPTIONS set as the function's environment would set it. profile --docker --lambda serves
// the Runtime API inside the container (no network) and profiles init and the first invocation.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { removeImages, docker } = require('../lib/docker.js');
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
    const { packed } = await buildLambdaImage({ dir, handler: 'handler.js:handler', tag, baseImage: BASE_IMAGE });
    built.push(tag);
    assert.match(packed, /coldstart: packed \d+ files/, 'pack ran in the build');
    // The image starts as Lambda would start it: the runtime client from node_modules, the handler as CMD.
    const config = JSON.parse((await docker(['image', 'inspect', '--format', '{{json .Config}}', tag])).stdout);
    assert.deepEqual(config.Entrypoint, ['node', 'node_modules/aws-lambda-ric/index.mjs']);
    assert.deepEqual(config.Cmd, ['handler.handler']);
    assert.equal(config.WorkingDir, '/var/task');
    const client = await docker(['run', '--rm', '--network', 'none', '--entrypoint', 'node', tag, '-e', 'require("fs").statSync(process.argv[1]); console.log(process.env.NODE_OPTIONS)', 'node_modules/aws-lambda-ric/index.mjs'], { timeoutMs: 60_000 });
    assert.equal(client.code, 0, client.stderr);
    assert.match(client.stdout, /--require coldstart\/start/);

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
      assert.match(r.stdout, /Lambda handler\.handler: init [\d.]+ ms \+ first invocation [\d.]+ ms \(answered(; init's last [\d.]+ ms waiting for its request for an event to arrive, which a busy machine slows)?\)/);
      t.diagnostic(`under ${runtime}: init ${report.lambda.initMs} ms (its last ${report.lambda.initWaitMs} ms waiting), first invocation ${report.lambda.invoke.ms} ms`);
    }
  } finally {
    rm(dir);
  }
});
