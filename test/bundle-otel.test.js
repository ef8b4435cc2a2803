'use strict';
// An express app traced by OpenTelemetry from a --require preload. Bundled naively, the express
// instrumentation never sees express (its require hook cannot look inside a bundle:
// opentelemetry-js #2708, #4174); bundled by coldstart, express stays in node_modules and a
// request to the bundled server still produces the express span and the routed HTTP span.
const test = require('./helpers/suite.js').testLeftOutOfFast('ncc bundles');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { startServer, spansAfterHello } = require('./helpers/server.js');

const LISTENING = /otel-express listening on (\d+)/;
const START = ['--require', './tracing.js', 'server.js'];
let dir;

test.before(() => { dir = copyFixture('otel-express'); });
test.after(() => rm(dir));

test('bundle keeps hooked express external: the bundled server still produces express and HTTP server spans', async () => {
  const r = await runCli(['bundle', '--json', '--runs', '1', '--out', 'dist-bundle', '--', 'node', ...START], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);

  const express = summary.externals.find((e) => e.name === 'express');
  assert.ok(express, `express is external: ${JSON.stringify(summary.externals)}`);
  assert.equal(express.reasons[0].code, 'HOOKED');
  assert.match(express.reasons[0].detail, /@opentelemetry\/instrumentation-express/);
  assert.deepEqual(summary.hookedBuiltins.map((b) => b.name), ['http', 'https']);
  assert.deepEqual(summary.start.command, ['node', ...START], 'the preload stays in the start command');
  assert.ok(summary.timing.originalMedian > 0 && summary.timing.bundleMedian > 0);
  assert.ok(summary.bundle.files > 0 && summary.original.files > 0);

  const out = path.join(dir, 'dist-bundle');
  // The preload is a file of its own beside the bundle, not inside it.
  assert.equal(fs.readFileSync(path.join(out, 'tracing.js'), 'utf8'), fs.readFileSync(path.join(dir, 'tracing.js'), 'utf8'));
  assert.doesNotMatch(fs.readFileSync(path.join(out, 'server.js'), 'utf8'), /InstrumentationBase/);
  assert.ok(fs.existsSync(path.join(out, 'node_modules', 'express', 'package.json')));
  assert.ok(fs.existsSync(path.join(out, 'node_modules', '@opentelemetry', 'sdk-trace-node', 'package.json')));

  // Run the bundle from a copy of the output alone: nothing may come from the app directory.
  const alone = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'cs-otel-alone-'));
  fs.cpSync(out, alone, { recursive: true });
  const server = await startServer(alone, START, LISTENING);
  try {
    const spans = await spansAfterHello(server.port);
    const serverSpan = spans.find((s) => s.kind === 1 && s.attributes['url.path'] === '/hello');
    assert.equal(serverSpan.scope, '@opentelemetry/instrumentation-http');
    assert.equal(serverSpan.attributes['http.route'], '/hello', 'the route comes from the express instrumentation');
    assert.ok(spans.some((s) => s.scope === '@opentelemetry/instrumentation-express' && s.attributes['express.type'] === 'request_handler'),
      `an express span: ${JSON.stringify(spans.map((s) => s.name))}`);
  } finally {
    await server.stop();
    rm(alone);
  }
});

test('control: with --no-auto-external express is bundled and its instrumentation sees nothing', async () => {
  const r = await runCli(['bundle', '--json', '--no-verify', '--no-auto-external', '--out', 'naive', '--', 'node', ...START], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).externals, []);
  const out = path.join(dir, 'naive');
  assert.ok(!fs.existsSync(path.join(out, 'node_modules', 'express')), 'express is inside the bundle');
  const server = await startServer(out, START, LISTENING);
  try {
    const spans = await spansAfterHello(server.port);
    assert.ok(!spans.some((s) => s.scope === '@opentelemetry/instrumentation-express'), 'no express span from a bundled express');
    assert.equal(spans.find((s) => s.kind === 1).attributes['http.route'], undefined);
  } finally {
    await server.stop();
  }
});
