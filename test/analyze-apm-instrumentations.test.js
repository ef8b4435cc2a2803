'use strict';
// An APM preload's instrumentations, one by one: what each patches (read from its own source),
// whether the app loads it, and advice at the requires of those it never needs.
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { capture } = require('../lib/capture/capture.js');
const { apmInstrumentations } = require('../lib/analyze/apm-instrumentations.js');
const { buildReport } = require('../lib/analyze/startup-report.js');
const { readSource } = require('../lib/report/profile-artifacts.js');
const { REPO } = require('./helpers/app.js');

test('OpenTelemetry instrumentations for koa and mongodb in an express app: named, never loaded, advised at their requires', async () => {
  const dir = path.join(REPO, 'fixtures', 'otel-unused');
  const result = await capture({ command: [process.execPath, '--require', './tracing.js', '../otel-express/server.js'], cwd: dir, root: REPO });
  const report = buildReport(result, { readSource });
  const view = Object.fromEntries(report.instrumentations.map((i) => [i.package.replace('@opentelemetry/instrumentation-', ''), [i.instruments, i.loaded]]));
  assert.deepStrictEqual(view, {
    http: [['http', 'https'], true],
    express: [['express'], true],
    koa: [['koa'], false],
    mongodb: [['mongodb'], false],
  });
  assert.ok(report.instrumentations.every((i) => i.ownMs > 0 && i.modules > 0), JSON.stringify(report.instrumentations));

  // Whatever the machine makes of their few ms, the finding names both requires in the preload.
  const [advice] = apmInstrumentations(result, { readSource, show: (f) => path.relative(dir, f), minMs: 0 }).advice;
  assert.strictEqual(advice.kind, 'apm-instrumentations');
  assert.deepStrictEqual(advice.sites.map((s) => [s.file, s.line, s.request]), [
    ['tracing.js', 10, '@opentelemetry/instrumentation-mongodb'],
    ['tracing.js', 9, '@opentelemetry/instrumentation-koa'],
  ].sort((a, b) => report.instrumentations.findIndex((i) => i.package === a[2]) - report.instrumentations.findIndex((i) => i.package === b[2])));
  const unusedMs = report.instrumentations.filter((i) => !i.loaded).reduce((s, i) => s + i.ownMs, 0);
  assert.ok(Math.abs(advice.estimatedMs - unusedMs) < 0.05, `${advice.estimatedMs} against ${unusedMs}`);
  assert.match(advice.fix, /remove these instrumentations/);
});
