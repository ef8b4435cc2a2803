'use strict';
// What startup waited on: an app that fetches from a local HTTPS server (self-signed, reached as
// `localhost` so DNS runs) through https.get and fetch before it listens, with and without
// keep-alive. Nothing leaves 127.0.0.1.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { makeCertificate, startServer } = require('./helpers/https-backend.js');

const COUNT = 4;

async function profileWith(keepAlive) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-net-'));
  const pems = makeCertificate(tmp);
  if (!pems) return { skip: 'openssl is not installed' };
  const dir = copyFixture('network-startup');
  const server = await startServer(pems, !keepAlive);
  try {
    const out = path.join(tmp, 'out');
    const r = await runCli(['profile', '--out', out, '--', process.execPath, 'server.js'], {
      cwd: dir,
      env: {
        NET_TARGET: `https://localhost:${server.address().port}`,
        NET_COUNT: String(COUNT),
        NET_KEEPALIVE: keepAlive ? '1' : '0',
        NODE_EXTRA_CA_CERTS: pems.cert,
      },
    });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    return { r, report, html, tlsConnections: server.tlsConnections, port: server.address().port };
  } finally {
    server.close();
    rm(dir);
    rm(tmp);
  }
}

/** Each connection's phases are there and in order, each request's inside its connection's. */
function assertOrdered(network, readyAt) {
  for (const c of network.connections) {
    assert.strictEqual(c.host, 'localhost');
    assert.strictEqual(c.tls, true);
    assert.strictEqual(c.phase, 'startup');
    assert.ok(c.dnsEndMs != null && c.connectEndMs != null && c.tlsEndMs != null, `phases of ${JSON.stringify(c)}`);
    assert.ok(c.startMs <= c.dnsEndMs && c.dnsEndMs <= c.connectEndMs && c.connectEndMs <= c.tlsEndMs, JSON.stringify(c));
    assert.ok(c.dnsMs >= 0 && c.connectMs >= 0 && c.tlsMs >= 0);
    assert.ok(c.bytesRead > 0 && c.bytesWritten > 0, 'bytes counted');
  }
  for (const q of network.requests) {
    assert.strictEqual(q.method, 'GET');
    assert.strictEqual(q.status, 200);
    assert.strictEqual(q.phase, 'startup');
    assert.ok(!q.path.includes('?'), 'the query is left out');
    const c = network.connections[q.connection];
    assert.ok(c, `request ${q.url} has its connection`);
    if (!q.reused) assert.ok(c.tlsEndMs <= q.firstByteMs, `${q.url}: tls before the first byte`);
    assert.ok(q.startMs <= q.firstByteMs && q.firstByteMs <= q.endMs && q.endMs <= readyAt, JSON.stringify(q));
    assert.ok(q.totalMs >= q.ttfbMs);
  }
}

test('keep-alive: every request recorded, one new connection per client, the rest reused', async (t) => {
  const got = await profileWith(true);
  if (got.skip) return t.skip(got.skip);
  const { report, r, html, tlsConnections } = got;
  const net = report.network;
  assert.ok(net, 'report.json has network');
  const byClient = (list, client) => list.filter((x) => x.client === client);
  assert.deepStrictEqual(byClient(net.requests, 'http').map((q) => q.path), Array(COUNT).fill('/config'));
  assert.deepStrictEqual(byClient(net.requests, 'fetch').map((q) => q.path), Array(COUNT).fill('/flags'));
  assert.strictEqual(net.connections.length, 2, 'one connection for https.get, one for fetch');
  assert.strictEqual(tlsConnections, 2, 'the server saw as many connections');
  for (const client of ['http', 'fetch']) {
    assert.deepStrictEqual(byClient(net.requests, client).map((q) => q.reused), [false, ...Array(COUNT - 1).fill(true)], client);
    assert.strictEqual(byClient(net.connections, client)[0].requests, COUNT);
  }
  assertOrdered(net, report.readyAt);
  assert.strictEqual(net.children.length, 1);
  const child = net.children[0];
  assert.deepStrictEqual(child.command, ['sh', '-c', 'sleep 0.02']);
  assert.ok(child.pid > 0 && child.exitCode === 0 && child.phase === 'startup');
  assert.ok(child.totalMs >= 15 && child.endMs <= net.requests[0].startMs, JSON.stringify(child));
  assert.match(r.stdout, /Waited on \(8 requests, 2 new connections, 6 reused, 1 child process, 2 timers\)/);
  // The two timers startup awaited, where they were set, each at least as long as its delay.
  const timers = net.timers.filter((x) => x.waited);
  assert.deepStrictEqual(timers.map((x) => [x.delayMs, x.at]), [[30, 'server.js:26'], [20, 'server.js:27']]);
  for (const x of timers) assert.ok(x.totalMs >= x.delayMs - 1 && x.firedMs <= report.readyAt, JSON.stringify(x));
  // The summary lists the five longest waits: a wait's line is there when report.json ranks it among
  // them, and not when five waits took longer (on a busy machine every request can outlast the
  // child process and the timers), which the test then says.
  const waited = [...net.requests, ...net.children, ...timers].map((x) => x.totalMs);
  const summaryLine = (what, ms, line) => {
    const longer = waited.filter((w) => w > ms).sort((a, b) => b - a);
    if (longer.length < 5) return assert.match(r.stdout, line, what);
    assert.doesNotMatch(r.stdout, line, what);
    t.diagnostic(`${what} waited ${ms} ms; ${longer.length} waits took longer (${longer.join(', ')} ms): the summary leaves it out`);
  };
  summaryLine('the child process', child.totalMs, /child process sh -c sleep 0\.02 +[\d.]+ ms/);
  summaryLine('the 30 ms timer', timers[0].totalMs, /timer of 30 ms set at server\.js:26 +[\d.]+ ms/);
  summaryLine('the longer new connection', Math.max(...net.requests.filter((q) => !q.reused).map((q) => q.totalMs)),
    /GET https:\/\/localhost:\d+\/(config|flags) 200 +[\d.]+ ms +\(dns \d+, connect \d+, tls \d+, first byte \d+\) +new connection/);
  // The summary lists the five longest waits; report.html has every request, reused ones too.
  assert.strictEqual((html.match(/<td>reused<\/td>/g) || []).length, 6);
  assert.doesNotMatch(r.stdout, /opened \d+ new connections/, 'connections were reused: no finding');
  assert.match(html, /id="waited-on"/);
  assert.match(html, /\/flags/);
  // The timeline draws the waits below the modules: the 8 requests, the child process, the 2 timers.
  const waits = JSON.parse(/"waits":(\[[^\]]*\])/.exec(html)[1]);
  assert.deepStrictEqual(waits.map((w) => w.kind).sort(), ['child', 'request', 'request', 'request', 'request', 'request', 'request', 'request', 'request', 'timer', 'timer']);
  assert.ok(waits.some((w) => w.label === 'timer of 30 ms set at server.js:26'));
});

test('without keep-alive: each request opens its own connection', async (t) => {
  const got = await profileWith(false);
  if (got.skip) return t.skip(got.skip);
  const { report, r, tlsConnections } = got;
  const net = report.network;
  assert.strictEqual(net.requests.length, 2 * COUNT);
  assert.strictEqual(net.connections.length, 2 * COUNT);
  assert.strictEqual(tlsConnections, 2 * COUNT);
  assert.ok(net.requests.every((q) => !q.reused));
  assert.deepStrictEqual(net.requests.map((q) => q.connection).sort((a, b) => a - b), net.connections.map((c) => c.id));
  assertOrdered(net, report.readyAt);
  assert.match(r.stdout, /Waited on \(8 requests, 8 new connections, 0 reused, 1 child process, 2 timers\)/);
  assert.doesNotMatch(r.stdout, /\breused$/m);
  // Every request to one host opened its own connection: the summary says what that cost.
  assert.match(r.stdout, /8 requests to localhost:\d+ opened 8 new connections \([\d.]+ ms each for DNS, connect and TLS\): keep one client/);
});
