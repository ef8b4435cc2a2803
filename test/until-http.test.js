'use strict';
// --until http:/path: an app that listens at once and finishes starting later is ready at the
// first 2xx of its readiness URL, as a platform's startup probe sees it; for profile, pack (and
// its code-cache run), check and bench alike.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');

// Listens at once; /health answers 503 until 300 ms later, then 200. Says both moments (ms since
// the process started, on its own clock).
const APP = `const http = require('http');
let ready = false;
const server = http.createServer((req, res) => {
  if (req.url === '/health') { res.statusCode = ready ? 200 : 503; return res.end(ready ? 'ok' : 'starting'); }
  res.end('hello');
});
server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log('listening-at ' + performance.now());
  setTimeout(() => { ready = true; console.log('healthy-at ' + performance.now()); }, 300);
});
`;

function app() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-until-http-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "slow-health", "private": true }');
  fs.writeFileSync(path.join(dir, 'server.js'), APP);
  return dir;
}

const moment = (text, name) => Number(new RegExp(`^${name} ([\\d.]+)$`, 'm').exec(text)[1]);

test('profile --until http:/health: ready at the first 2xx, not at listen', async () => {
  const dir = app();
  try {
    const r = await runCli(['profile', '--json', '--until', 'http:/health', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    // The app's clock includes the profiler's attach pause, which readyAt leaves out.
    const healthy = moment(r.stderr, 'healthy-at') - report.attachMs;
    const listening = moment(r.stderr, 'listening-at') - report.attachMs;
    assert.strictEqual(report.until, 'http:/health');
    assert.ok(report.readyAt >= healthy, `ready (${report.readyAt}) not before /health turned 200 (${healthy})`);
    assert.ok(report.readyAt >= listening + 250, `ready (${report.readyAt}) well after listen (${listening})`);
    assert.ok(report.readyAt < healthy + 250, `ready (${report.readyAt}) soon after /health turned 200 (${healthy}): polled every 10 ms`);
    assert.deepStrictEqual((report.network && report.network.requests) || [], [], 'the probe is not something startup waited on');
    assert.deepStrictEqual((report.network && report.network.connections) || [], [], 'nor are its connections');

    const text = await runCli(['profile', '--until', 'http:/health', '--', 'node', 'server.js'], { cwd: dir });
    assert.match(text.stdout, /ready \(first 2xx of http:\/health\) after/);
  } finally { rm(dir); }
});

test('--until http://:PORT/path on a fixed port; pack --code-cache, check and bench take it too', async () => {
  const dir = app();
  try {
    const port = 20000 + (process.pid % 20000);
    const env = { PORT: String(port) };
    const until = ['--until', `http://:${port}/health`];
    const packed = await runCli(['pack', '--json', '--code-cache', ...until, '--out', 's.tar', '--', 'node', 'server.js'], { cwd: dir, env });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const summary = JSON.parse(packed.stdout);
    assert.ok(summary.readyAt >= 250, `pack's run was ready after the probe: ${summary.readyAt}`);
    assert.strictEqual(summary.codeCache.made, 'run', 'the code cache was recorded up to the same moment');

    const checked = await runCli(['check', '-n', '2..2', '--budget', '60s', ...until, '--json', '--', 'node', 'server.js'], { cwd: dir, env });
    assert.strictEqual(checked.code, 3, `2 runs cannot decide a budget: inconclusive\n${checked.stderr}`);
    for (const ms of JSON.parse(checked.stdout).samples) assert.ok(ms >= 250, `each check run waited for the probe: ${ms}`);

    const bench = await runCli(['bench', '-n', '2', ...until, '--json', '--', 'node', 'server.js'], { cwd: dir, env });
    assert.strictEqual(bench.code, 0, bench.stderr);
    const series = JSON.parse(bench.stdout).series[0];
    for (const ms of series.inside) assert.ok(ms >= 250, `each bench run waited for the probe: ${ms}`);
  } finally { rm(dir); }
});

test('--until http: a URL that is not on this machine, or malformed, is a usage error', async () => {
  for (const bad of ['http://example.com/health', 'http:health', 'http://:99999/x']) {
    const r = await runCli(['profile', '--until', bad, '--', 'node', 'server.js']);
    assert.strictEqual(r.code, 2, bad);
    assert.match(r.stderr, /^coldstart: invalid --until ".*": a readiness URL is http:\/path/m, bad);
  }
});
