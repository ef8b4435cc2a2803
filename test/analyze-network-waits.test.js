'use strict';
// report.json's network and the "Waited on" list, from recorded data (no processes).
const test = require('node:test');
const assert = require('node:assert');
const { networkReport, waitedOn } = require('../lib/analyze/network-waits.js');

const recorded = {
  connections: [
    { id: 0, client: 'http', host: 'api.example', port: 443, address: '10.0.0.1', tls: true, startMs: 10,
      dnsEndMs: 12, connectEndMs: 15, tlsEndMs: 30, endMs: null, bytesRead: 900, bytesWritten: 300, requests: 2, error: null },
    // An IP address: no lookup, so no DNS time.
    { id: 1, client: null, host: '127.0.0.1', port: 5432, address: '127.0.0.1', tls: false, startMs: 5,
      dnsEndMs: null, connectEndMs: 6, tlsEndMs: null, endMs: null, bytesRead: 0, bytesWritten: 0, requests: 0, error: null },
  ],
  requests: [
    { client: 'http', method: 'GET', protocol: 'https:', host: 'api.example', path: '/config', status: 200,
      startMs: 10, firstByteMs: 50, endMs: 52, connection: 0, reused: false, error: null },
    { client: 'http', method: 'GET', protocol: 'https:', host: 'api.example', path: '/flags', status: 200,
      startMs: 60, firstByteMs: 64, endMs: 65, connection: 0, reused: true, error: null },
    // Still waiting at the ready moment.
    { client: 'fetch', method: 'POST', protocol: 'https:', host: 'slow.example', path: '/token', status: null,
      startMs: 70, firstByteMs: null, endMs: null, connection: null, reused: false, error: null },
  ],
  children: [{ command: ['git', 'rev-parse', 'HEAD'], pid: 7, startMs: 1, endMs: 9, exitCode: 0 }],
};

test('connections get phase durations, an IP address no DNS time, requests their url without the default port', () => {
  const net = networkReport(recorded);
  const [tlsConn, ipConn] = net.connections;
  assert.deepStrictEqual([tlsConn.dnsMs, tlsConn.connectMs, tlsConn.tlsMs], [2, 3, 15]);
  assert.deepStrictEqual([ipConn.dnsMs, ipConn.connectMs, ipConn.tlsMs], [0, 1, null]);
  assert.strictEqual(net.requests[0].url, 'https://api.example/config');
  assert.deepStrictEqual([net.requests[0].ttfbMs, net.requests[0].totalMs], [40, 42]);
  assert.strictEqual(net.requests[2].totalMs, null);
  assert.ok([...net.connections, ...net.requests, ...net.children].every((x) => x.phase === 'startup'));
  assert.strictEqual(net.children[0].totalMs, 8);
  assert.strictEqual(networkReport(null), null);
});

test('Waited on: longest first, a new connection with its phases, an open request counted to ready', () => {
  const items = waitedOn(networkReport(recorded), 100, 5);
  assert.deepStrictEqual(items.map((i) => [i.label, i.ms, i.connection]), [
    ['GET https://api.example/config 200', 42, 'new'],
    ['POST https://slow.example/token', 30, null],
    ['child process git rev-parse HEAD', 8, null],
    ['GET https://api.example/flags 200', 5, 'reused'],
  ]);
  assert.deepStrictEqual(items[0].parts, [['dns', 2], ['connect', 3], ['tls', 15], ['first byte', 20]]);
  assert.strictEqual(items[1].open, true);
  assert.deepStrictEqual(items[3].parts, [['first byte', 4]]);
  assert.deepStrictEqual(waitedOn(null, 100), []);
});
