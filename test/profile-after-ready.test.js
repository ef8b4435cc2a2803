'use strict';
// The window after the ready moment (profile --after / --request): a service whose timer burns CPU
// between requests and whose handler calls an HTTPS backend on 127.0.0.1, with and without
// keep-alive. coldstart sends the requests itself; nothing leaves this machine.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { makeCertificate, startServer } = require('./helpers/https-backend.js');

const REQUESTS = 10;

async function profileAfterReady({ keepAlive }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-after-'));
  const pems = makeCertificate(tmp);
  assert.ok(pems, 'openssl makes the backend its certificate');
  const dir = copyFixture('after-ready');
  const backend = await startServer(pems, !keepAlive);
  try {
    const out = path.join(tmp, 'out');
    // Given twice, GET /work goes 4 times a second: 10 requests in 2.5 s.
    const r = await runCli(['profile', '--out', out, '--after', '2.5s', '--request', 'GET /work', '--request', 'GET /work', '--', process.execPath, 'server.js'], {
      cwd: dir,
      env: { NET_TARGET: `https://localhost:${backend.address().port}`, NET_KEEPALIVE: keepAlive ? '1' : '0', NODE_EXTRA_CA_CERTS: pems.cert },
    });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    const afterProfile = JSON.parse(fs.readFileSync(path.join(out, 'after-ready.cpuprofile'), 'utf8'));
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    return { r, report, afterProfile, html, tlsConnections: backend.tlsConnections };
  } finally {
    backend.close();
    rm(dir);
    rm(tmp);
  }
}

const entry = (list, name) => list.find((f) => f.functionName === name);

test('--after with --request: CPU in and outside requests, named by the code that used it; a keep-alive backend is reused', async () => {
  const { r, report, afterProfile, html, tlsConnections } = await profileAfterReady({ keepAlive: true });
  const a = report.afterReady;
  assert.ok(a, 'report.json has afterReady');
  assert.deepStrictEqual(a.sent, { count: REQUESTS, answered: REQUESTS, errors: {} });
  assert.strictEqual(a.requests, REQUESTS, 'the app served every request coldstart sent');
  assert.deepStrictEqual(a.routes.map((x) => [x.method, x.path, x.count, x.statuses]), [['GET', '/work', REQUESTS, { 200: REQUESTS }]]);
  assert.ok(a.durationMs >= 1900, `window ${a.durationMs} ms`);
  // The parts add up; the timer (40 ms every 150 ms) is most of the CPU outside requests.
  assert.ok(Math.abs(a.inRequestCpuMs + a.outsideRequestsCpuMs - a.cpuMs) < 0.1);
  assert.strictEqual(a.outside[0].functionName, 'burnInterval', JSON.stringify(a.outside));
  assert.strictEqual(a.outside[0].file, 'server.js');
  assert.ok(a.outside[0].ms >= a.outsideRequestsCpuMs / 2, `burnInterval ${a.outside[0].ms} of ${a.outsideRequestsCpuMs} ms`);
  const handlerIn = entry(a.inside, 'handleWork');
  const handlerOut = entry(a.outside, 'handleWork');
  assert.ok(handlerIn && handlerIn.ms > 0, JSON.stringify(a.inside));
  assert.ok(!handlerOut || handlerOut.ms < handlerIn.ms / 4, 'the handler works inside requests');
  const burnIn = entry(a.inside, 'burnInterval');
  assert.ok(!burnIn || burnIn.ms < a.outside[0].ms / 2, 'the timer works outside requests');
  assert.ok(a.findings.some((f) => f.kind === 'cpu-outside-requests'), 'over 10% of the window: a finding');
  assert.match(r.stdout, new RegExp(`After ready \\(\\d+ ms, ${REQUESTS} requests served; coldstart sent ${REQUESTS}, ${REQUESTS} answered\\)`));
  assert.match(r.stdout, /burnInterval +server\.js:\d+ +\d+ ms/);
  assert.match(r.stdout, /of CPU ran while no request was in flight: .*cpu-throttling/);
  // Outbound calls after ready: one connection kept for all ten.
  const backend = a.connections.find((c) => c.host === 'localhost');
  assert.deepStrictEqual([backend.requests, backend.newConnections, backend.reused], [REQUESTS, 1, REQUESTS - 1]);
  assert.strictEqual(tlsConnections, 1);
  assert.ok(!a.findings.some((f) => f.kind === 'no-connection-reuse'));
  assert.ok(report.network.requests.every((q) => q.phase === 'after-ready'), 'the backend calls began after the ready moment');
  assert.ok(report.network.served.filter((s) => s.phase === 'after-ready').length === REQUESTS);
  assert.doesNotMatch(r.stdout, /Waited on/, 'nothing was waited on before ready');
  // The window's own profile, for DevTools and speedscope: no sample of the hold at the ready moment.
  assert.ok(afterProfile.samples.length > 0 && afterProfile.endTime - afterProfile.startTime >= 1900e3);
  assert.ok(!afterProfile.nodes.some((n) => n.callFrame.functionName === 'holdForCli' && n.hitCount > 0), 'no sample of the hold');
  assert.match(r.stdout, /after-ready\.cpuprofile/);
  assert.match(html, /id="after-ready"[\s\S]*<code>burnInterval<\/code>/);
  assert.doesNotMatch(html, /id="waited-on"/, 'the after-ready calls are not startup waits');
});

test('--after without keep-alive: every backend call opens a new connection, and the finding says what each cost', async () => {
  const { r, report, tlsConnections } = await profileAfterReady({ keepAlive: false });
  const a = report.afterReady;
  const backend = a.connections.find((c) => c.host === 'localhost');
  assert.deepStrictEqual([backend.requests, backend.newConnections, backend.reused], [REQUESTS, REQUESTS, 0]);
  assert.strictEqual(tlsConnections, REQUESTS);
  assert.ok(backend.setupMsPerConnection > 0);
  const finding = a.findings.find((f) => f.kind === 'no-connection-reuse');
  assert.ok(finding && finding.requests === REQUESTS && finding.msPerRequest === backend.setupMsPerConnection, JSON.stringify(a.findings));
  assert.match(r.stdout, new RegExp(`${REQUESTS} requests to localhost:\\d+ opened ${REQUESTS} new connections \\([\\d.]+ ms each for DNS, connect and TLS\\): keep one client with a keep-alive agent`));
});

test('--after bad input: one line, exit 2; an app that stops answering: one line, exit 1', async () => {
  const dir = copyFixture('after-ready');
  try {
    const cases = [
      [['--after', '1s', '--until', 'exit'], /--after needs an app that runs on after its ready moment: not with --until exit/],
      [['--request', 'GET /', '--until', '2s'], /--request sends requests to the address the app listens on/],
      [['--request', 'GET'], /invalid --request "GET": use a method and a path/],
      [['--after', 'soon'], /invalid --after "soon"/],
    ];
    for (const [flags, message] of cases) {
      const r = await runCli(['profile', '--out', path.join(dir, 'out'), ...flags, '--', process.execPath, 'server.js'], { cwd: dir });
      assert.strictEqual(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.strictEqual(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(!fs.existsSync(path.join(dir, 'out')), 'nothing written');
    }
    const closed = await runCli(['profile', '--out', path.join(dir, 'out'), '--after', '1s', '--request', 'GET /', '--', process.execPath, 'server.js'], {
      cwd: dir, env: { CLOSE_AFTER_LISTEN: '1' },
    });
    assert.strictEqual(closed.code, 1, closed.stderr);
    assert.match(closed.stderr, /the app answered none of the 2 requests after its ready moment: GET \/: ECONNREFUSED/);
  } finally {
    rm(dir);
  }
});
