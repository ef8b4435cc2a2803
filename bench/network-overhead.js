#!/usr/bin/env node
'use strict';
// What recording outbound network activity ("Waited on") adds to `coldstart profile`: time to
// ready of fixtures/network-startup making 20 requests to a local HTTPS server before it listens
// (10 through https.get, 10 through fetch, keep-alive), under the full profiler with the
// recording on and off (COLDSTART_NETWORK=0), runs alternating, for each Node given. Also the
// seed 002 comparison from the recorded runs: a request that opens a new TLS connection against
// one that reuses it. Prints markdown. Needs openssl for the self-signed certificate.
//
//   node bench/network-overhead.js [-n 10] [--nodes PATH,...]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const https = require('node:https');
const { execFileSync } = require('node:child_process');
const { capture } = require('../lib/capture/capture.js');
const { median, ratioInterval } = require('../lib/stats.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseRunArgs, alternatingRuns } = require('./alternating-runs.js');

const REPO = path.join(__dirname, '..');
const servers = [];

const APPS = {
  network: async (scratch) => {
    const key = path.join(scratch, 'key.pem');
    const cert = path.join(scratch, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
    const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => res.end('{}'));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return {
      name: 'network-startup, 20 requests',
      cwd: path.join(REPO, 'fixtures', 'network-startup'),
      command: ['node', 'server.js'],
      env: { NET_TARGET: `https://localhost:${server.address().port}`, NET_COUNT: '10', NODE_EXTRA_CA_CERTS: cert },
    };
  },
};

const firstByNew = [];
const reusedTotals = [];

async function run(app, env, record) {
  const r = await capture({
    command: app.command, cwd: app.cwd, until: { mode: 'listen' },
    env: { ...env, ...app.env, COLDSTART_NETWORK: record ? '1' : '0' },
  });
  if (record) {
    const http = r.network.requests.filter((q) => q.client === 'http');
    if (http.length !== 10) throw new Error(`recorded ${http.length} https.get requests, not 10`);
    firstByNew.push(http[0].endMs - http[0].startMs);
    for (const q of http.slice(1)) reusedTotals.push(q.endMs - q.startMs);
  } else if (r.network) {
    throw new Error('COLDSTART_NETWORK=0 still recorded');
  }
  return r.readyAt;
}

const fmt = (ms) => `${ms.toFixed(1)} ms`;

function render(rows, machine, load) {
  const out = ['| Node | readyAt, recording off | readyAt, recording on | ratio [95% interval] |', '|---|---:|---:|---:|'];
  for (const row of rows) {
    const r = ratioInterval(row.off, row.on);
    out.push(`| ${row.node} | ${fmt(median(row.off))} | ${fmt(median(row.on))} | ` +
      `${r.ratio == null ? '–' : `${r.ratio.toFixed(3)}x`}${r.low == null ? '' : ` [${r.low.toFixed(3)}–${r.high.toFixed(3)}]`} |`);
  }
  out.push('', `Medians of ${rows[0] ? rows[0].on.length : 0} runs each, alternating, under the CPU profiler.`,
    `First https.get request (new connection: DNS + TCP + TLS + request): median ${fmt(median(firstByNew))} over ${firstByNew.length} runs; ` +
    `a request on the reused connection: median ${fmt(median(reusedTotals))} over ${reusedTotals.length}.`,
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.os}; load average ${load.map((l) => l.map((x) => x.toFixed(2)).join(', ')).join(' at the start, ')} at the end.`, '');
  return out.join('\n');
}

async function main(argv = process.argv.slice(2)) {
  const plan = parseRunArgs(argv, APPS, 'network');
  const loadAtStart = os.loadavg();
  try {
    const rows = await alternatingRuns(plan, APPS, {
      off: (app, env) => run(app, env, false),
      on: (app, env) => run(app, env, true),
    }, 'coldstart-network-overhead-');
    process.stdout.write(render(rows, describeMachine(), [loadAtStart, os.loadavg()]));
  } finally {
    for (const s of servers) s.close();
  }
  return 0;
}

if (require.main === module) require('./run-as-script.js').runAsScript('network-overhead', main);
module.exports = { main };
