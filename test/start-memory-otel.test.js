'use strict';
// APM agents hook require (require-in-the-middle): under --mode memory every module is
// still loaded through Module._load with its real path, so OpenTelemetry still sees
// express and http and still records its spans.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { copyFixture, runCli, rm, BIN } = require('./helpers/app.js');
const { startServer, spansAfterHello } = require('./helpers/server.js');

const LISTENING = /otel-express listening on (\d+)/;
const START = ['--require', './tracing.js', 'server.js'];

test('start --mode memory: OpenTelemetry instrumentation still produces the HTTP and express spans', async () => {
  const dir = copyFixture('otel-express');
  try {
    const tar = path.join(dir, 'startup.tar');
    const packed = await runCli(['pack', '--json', '--out', tar, '--', 'node', ...START], { cwd: dir });
    assert.equal(packed.code, 0, packed.stderr);
    assert.ok(JSON.parse(packed.stdout).files > 100);
    const server = await startServer(dir, [BIN, 'start', '--mode', 'memory', '--archive', tar, '--', 'node', ...START], LISTENING);
    try {
      const spans = await spansAfterHello(server.port);
      const serverSpan = spans.find((s) => s.kind === 1 && s.attributes['url.path'] === '/hello');
      assert.equal(serverSpan.scope, '@opentelemetry/instrumentation-http');
      assert.equal(serverSpan.attributes['http.route'], '/hello', 'express was hooked');
      assert.ok(spans.some((s) => s.scope === '@opentelemetry/instrumentation-express'));
    } finally {
      await server.stop();
    }
  } finally {
    rm(dir);
  }
});
