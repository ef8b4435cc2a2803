'use strict';
// Servers under test: start one until it prints its port, make requests, and (for the
// otel-express fixture) read the spans it recorded.
const assert = require('node:assert/strict');
const http = require('node:http');
const { spawn } = require('node:child_process');

/** Starts `node args` in cwd and resolves once it prints its port: { port, stop() }. */
function startServer(cwd, args, pattern, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const stop = () => new Promise((r) => {
      if (child.exitCode !== null || child.signalCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGKILL');
    });
    const timer = setTimeout(() => { stop(); reject(new Error(`no listen line within 15 s: ${out}`)); }, 15000);
    const onData = (chunk) => {
      out += chunk;
      const m = pattern.exec(out);
      if (m) { clearTimeout(timer); resolve({ port: Number(m[1]), stop }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); if (!pattern.test(out)) reject(new Error(`exited with ${code}: ${out}`)); });
  });
}

function get(port, urlPath) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: urlPath }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}

/** Requests /hello, then reads the spans the preload recorded (the server span ends with the response). */
async function spansAfterHello(port) {
  const hello = await get(port, '/hello');
  assert.equal(hello.status, 200);
  assert.deepEqual(JSON.parse(hello.body), { greeting: 'hello from otel-express' });
  for (let i = 0; i < 50; i++) {
    const spans = JSON.parse((await get(port, '/spans')).body);
    if (spans.some((s) => s.kind === 1 && s.attributes['url.path'] === '/hello')) return spans;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no HTTP server span for /hello');
}

module.exports = { startServer, get, spansAfterHello };
