'use strict';
// The startup report of a cold start in production: COLDSTART_REPORT=stderr gives one JSON line a
// log pipeline keeps, =FILE a file; from `coldstart start` or, for any app, a --require preload.
// Off unless asked for.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { fixtureForFile, runCli, BIN, REPO } = require('./helpers/app.js');

const EXIT_ON_LISTEN = path.join(__dirname, 'helpers', 'exit-on-listen.js');
const PRELOAD = path.join(REPO, 'lib', 'in-app', 'report-preload.cjs');

// The tests add files beside the app (an archive, reports, logs, a preload) and change none of its own.
const expressApp = fixtureForFile('express-app');

const reportLines = (stderr) => stderr.split('\n').filter((l) => l.startsWith('{"coldstart":"startup-report"'));

function checkReport(doc) {
  assert.strictEqual(doc.schema, 1);
  assert.strictEqual(doc.node, process.version);
  const { archiveReady, firstModule, ready } = doc.phases;
  assert.ok(firstModule > 0 && firstModule <= ready, JSON.stringify(doc.phases));
  if (archiveReady !== null) assert.ok(archiveReady <= firstModule, JSON.stringify(doc.phases));
  assert.strictEqual(doc.readyAt, ready);
  const sum = doc.packages.reduce((s, p) => s + p.ms, 0);
  assert.ok(sum <= doc.readyAt, `package times (${sum} ms) fit in the time to ready (${doc.readyAt} ms)`);
  assert.strictEqual(doc.packages.reduce((s, p) => s + p.modules, 0), doc.modules);
  assert.deepStrictEqual(doc.packages.map((p) => p.ms), [...doc.packages.map((p) => p.ms)].sort((a, b) => b - a), 'slowest first');
}

test('start with COLDSTART_REPORT=stderr: one JSON line with phases in order, packages within readyAt, code cache hits', async () => {
  const dir = expressApp();
  const r = await runCli(['pack', '-q', '--code-cache', '--out', 'startup.tar', '--', 'node', 'server.js'], { cwd: dir });
  assert.strictEqual(r.code, 0, r.stderr);
  const run = (env) => spawnSync(process.execPath, [BIN, 'start', '-q', '--archive', 'startup.tar', '--', 'node', '-r', EXIT_ON_LISTEN, 'server.js'],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
  const off = run({});
  assert.strictEqual(off.status, 0, off.stderr);
  assert.deepStrictEqual(reportLines(off.stderr), [], 'off unless asked for');

  const on = run({ COLDSTART_REPORT: 'stderr' });
  assert.strictEqual(on.status, 0, on.stderr);
  const lines = reportLines(on.stderr);
  assert.strictEqual(lines.length, 1, on.stderr);
  const doc = JSON.parse(lines[0]);
  checkReport(doc);
  assert.ok(doc.phases.archiveReady > 0);
  assert.strictEqual(doc.archive, 'startup.tar');
  assert.ok(doc.packages.some((p) => p.name === 'express'), JSON.stringify(doc.packages));
  assert.ok(doc.codeCache.hits > 10 && doc.codeCache.rejected === 0, JSON.stringify(doc.codeCache));
  assert.deepStrictEqual(doc.fromDisk, []);
});

test('the preload writes the same report for an app not started by coldstart start; nothing without COLDSTART_REPORT', () => {
  const dir = expressApp();
  const file = path.join(dir, 'startup-report.json');
  const run = (env) => spawnSync(process.execPath, ['-r', PRELOAD, '-r', EXIT_ON_LISTEN, 'server.js'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
  const off = run({});
  assert.strictEqual(off.status, 0, off.stderr);
  assert.ok(!fs.existsSync(file));
  const on = run({ COLDSTART_REPORT: file });
  assert.strictEqual(on.status, 0, on.stderr);
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  checkReport(doc);
  assert.strictEqual(doc.phases.archiveReady, null);
  assert.strictEqual(doc.codeCache, null);
  assert.ok(doc.packages.some((p) => p.name === 'express'));
  assert.ok(!fs.existsSync(`${file}.tmp`));
});

test('diff and view read production reports: a log line, a Cloud Logging entry, a report file', async () => {
  const dir = expressApp();
  const run = () => spawnSync(process.execPath, ['-r', PRELOAD, '-r', EXIT_ON_LISTEN, 'server.js'],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, COLDSTART_REPORT: 'stderr' }, timeout: 30_000 });
  const first = run();
  const second = run();
  assert.strictEqual(first.status, 0, first.stderr);
  const [line] = reportLines(first.stderr);
  const doc = JSON.parse(line);
  // A plain log with the app's own lines around the report, and a Cloud Logging export entry.
  fs.writeFileSync(path.join(dir, 'before.log'), `app starting\n${line}\nserving\n`);
  fs.writeFileSync(path.join(dir, 'after.json'), JSON.stringify({ severity: 'INFO', jsonPayload: JSON.parse(reportLines(second.stderr)[0]) }) + '\n');
  const d = await runCli(['diff', '--json', 'before.log', 'after.json'], { cwd: dir });
  assert.strictEqual(d.code, 0, d.stderr);
  const diff = JSON.parse(d.stdout);
  assert.strictEqual(diff.readyAt.before, doc.readyAt);
  assert.strictEqual(diff.modules.before, doc.modules, 'modules counted from the packages');
  assert.ok(diff.readyAt.after > 0);
  const text = await runCli(['diff', 'before.log', 'after.json'], { cwd: dir });
  assert.match(text.stdout, /time to ready +[\d.]+ ms +[\d.]+ ms/);

  const v = await runCli(['view', '--no-open', 'before.log'], { cwd: dir });
  assert.strictEqual(v.code, 0, v.stderr);
  const html = fs.readFileSync(path.join(dir, 'before.html'), 'utf8');
  assert.match(html, /express/);
  assert.match(html, /production cold start/);
});

test('with an OTLP endpoint the report is also sent as a trace: a startup span and a span per package under it', async () => {
  const http = require('http');
  const received = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => { received.push({ url: req.url, type: req.headers['content-type'], auth: req.headers.authorization, body }); res.end('{}'); });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const dir = expressApp();
  const { spawn } = require('child_process');
  const app = spawn(process.execPath, ['-r', PRELOAD, 'server.js'], {
    cwd: dir, stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PORT: '0', COLDSTART_REPORT: 'stderr', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.address().port}`,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20t0ken', OTEL_SERVICE_NAME: 'express-app' },
  });
  let stderr = '';
  app.stderr.on('data', (c) => { stderr += c; });
  try {
    for (const end = Date.now() + 20_000; !received.length && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    assert.strictEqual(received.length, 1, `one trace sent; app stderr: ${stderr}`);
    const [post] = received;
    assert.strictEqual(post.url, '/v1/traces');
    assert.strictEqual(post.type, 'application/json');
    assert.strictEqual(post.auth, 'Bearer t0ken');
    const doc = JSON.parse(reportLines(stderr)[0]);
    const { resourceSpans: [rs] } = JSON.parse(post.body);
    assert.deepStrictEqual(rs.resource.attributes, [{ key: 'service.name', value: { stringValue: 'express-app' } }]);
    const spans = rs.scopeSpans[0].spans;
    const root = spans.find((s) => s.name === 'startup');
    assert.strictEqual(root.parentSpanId, '');
    assert.match(root.traceId, /^[0-9a-f]{32}$/);
    const ns = (x) => BigInt(x);
    assert.strictEqual(Number(ns(root.endTimeUnixNano) - ns(root.startTimeUnixNano)) / 1e6, Math.round(doc.readyAt * 1000) / 1000);
    const packages = spans.filter((s) => s !== root);
    assert.deepStrictEqual(packages.map((s) => s.name.replace(/^load /, '')).sort(), doc.packages.map((p) => p.name).sort());
    for (const s of packages) {
      assert.strictEqual(s.parentSpanId, root.spanId);
      assert.strictEqual(s.traceId, root.traceId);
      assert.ok(ns(s.startTimeUnixNano) >= ns(root.startTimeUnixNano) && ns(s.endTimeUnixNano) <= ns(root.endTimeUnixNano), s.name);
    }
    const express = packages.find((s) => s.name === 'load express');
    const own = express.attributes.find((a) => a.key === 'coldstart.own_ms').value.doubleValue;
    assert.strictEqual(own, doc.packages.find((p) => p.name === 'express').ms);
  } finally {
    app.kill();
    receiver.close();
  }
});

test('in production, bad settings never stop the app: malformed OTLP headers, a non-HTTP endpoint, credentials kept out of stderr; the report never follows a planted link and says when it cannot be written', async () => {
  const dir = expressApp();
  // Exits 400 ms after listening: time for the trace to be tried.
  fs.writeFileSync(path.join(dir, 'linger.js'), "const http = require('http');\nconst listen = http.Server.prototype.listen;\n" +
    "http.Server.prototype.listen = function () { this.once('listening', () => setTimeout(() => process.exit(0), 400)); return listen.apply(this, arguments); };\n");
  const run = (env) => spawnSync(process.execPath, ['-r', PRELOAD, '-r', './linger.js', 'server.js'], { cwd: dir, encoding: 'utf8', env: { ...process.env, PORT: '0', COLDSTART_REPORT: 'stderr', ...env }, timeout: 30_000 });
  const closed = 'http://user:s3cret@127.0.0.1:9/v1/traces?token=s3cret';
  for (const [env, why] of [
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: closed, OTEL_EXPORTER_OTLP_HEADERS: 'api-key=%E0%A4%A' }, /not valid headers/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: closed, OTEL_EXPORTER_OTLP_HEADERS: 'x-key=a%0D%0AInjected: 1' }, /not valid headers/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: closed, OTEL_EXPORTER_OTLP_HEADERS: 'bad name=1' }, /not valid headers/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://127.0.0.1/traces' }, /ftp: is not http: or https:/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: closed }, /ECONNREFUSED/],
  ]) {
    const r = run(env);
    assert.strictEqual(r.status, 0, `${JSON.stringify(env)}: ${r.stderr}`);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('coldstart: startup trace not sent'));
    assert.strictEqual(lines.length, 1, r.stderr);
    assert.match(lines[0], why);
    assert.doesNotMatch(r.stderr, /s3cret/, 'no credentials printed');
  }

  const victim = path.join(dir, 'victim.txt');
  fs.writeFileSync(victim, 'untouched\n');
  const file = path.join(dir, 'report.json');
  fs.symlinkSync(victim, `${file}.tmp`);
  const linked = run({ COLDSTART_REPORT: file });
  assert.strictEqual(linked.status, 0, linked.stderr);
  assert.strictEqual(fs.readFileSync(victim, 'utf8'), 'untouched\n');
  checkReport(JSON.parse(fs.readFileSync(file, 'utf8')));

  const asDir = path.join(dir, 'a-directory');
  fs.mkdirSync(asDir);
  for (const target of [asDir, path.join(dir, 'missing', 'report.json')]) {
    const before = fs.readdirSync(path.dirname(asDir)).length;
    const r = run({ COLDSTART_REPORT: target });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.match(r.stderr, /^coldstart: startup report not written to .+: E[A-Z]+$/m);
    assert.strictEqual(fs.readdirSync(path.dirname(asDir)).length, before, 'no temporary file left');
  }
});
