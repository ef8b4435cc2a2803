'use strict';
// Google Cloud Functions as source deploy runs them: the Functions Framework (from the registry)
// owns the command. profile and pack run `npx functions-framework --target=hello` to its listen
// (or its first answered request, --until http:/); start runs the package binary in-process; the
// preload serves the archive when the platform starts the framework itself.
const test = require('./helpers/suite.js').testLeftOutOfFast('whole framework apps (the Functions Framework)');
const assert = require('node:assert');
const fs = require('fs');
const http = require('http');
const path = require('path');
const { spawn } = require('child_process');
const { BIN, REPO, copyFixture, runCli, rm } = require('./helpers/app.js');

const FRAMEWORK = ['npx', '--no-install', 'functions-framework', '--target=hello'];

/** Runs a command until it serves GET /a on PORT; returns the answer and its stderr. */
function serveAndAsk(cwd, command, env) {
  return new Promise((resolve, reject) => {
    const server = http.createServer().listen(0, '127.0.0.1', () => {
      const port = server.address().port; // a free port, handed to the framework
      server.close(() => {
        const child = spawn(command[0], command.slice(1), { cwd, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        let stderr = '';
        child.stderr.on('data', (c) => { stderr += c; });
        const end = (fn) => { clearInterval(poll); try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } fn(); };
        const deadline = Date.now() + 60_000;
        const poll = setInterval(() => {
          if (Date.now() > deadline) return end(() => reject(new Error(`no answer: ${stderr}`)));
          http.get({ host: '127.0.0.1', port, path: '/a' }, (res) => {
            let body = '';
            res.on('data', (c) => { body += c; });
            res.on('end', () => end(() => resolve({ status: res.statusCode, body, stderr })));
          }).on('error', () => {});
        }, 100);
      });
    });
  });
}

test('the Functions Framework: profile to listen and to the first answer, pack (checked), start -- functions-framework, and the preload under npx', { timeout: 300_000 }, async () => {
  const dir = copyFixture('gcf-app');
  try {
    const env = { PORT: '0' };
    const listened = await runCli(['profile', '--out', 'listen', '--', ...FRAMEWORK], { cwd: dir, env });
    assert.strictEqual(listened.code, 0, listened.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'listen', 'report.json'), 'utf8'));
    assert.ok(report.packages.some((p) => p.name === '@google-cloud/functions-framework'), 'the framework is profiled, not npx');
    assert.ok(report.modules.some((m) => m.file === 'index.js'), 'the function module loaded');

    const answered = await runCli(['profile', '--until', 'http:/', '--out', 'answer', '--', ...FRAMEWORK], { cwd: dir, env });
    assert.strictEqual(answered.code, 0, answered.stderr);
    const first = JSON.parse(fs.readFileSync(path.join(dir, 'answer', 'report.json'), 'utf8'));
    assert.ok(first.readyAt > 0 && /http/.test(first.until), first.until);

    const packed = await runCli(['pack', '--out', 'startup.tar', '--', ...FRAMEWORK], { cwd: dir, env });
    assert.strictEqual(packed.code, 0, packed.stderr);
    assert.match(packed.stdout, /checked: its files alone/);

    const started = await serveAndAsk(dir, [process.execPath, BIN, 'start', '--archive', 'startup.tar', '--', 'functions-framework', '--target=hello'], {});
    assert.deepStrictEqual([started.status, started.body], [200, 'alpha']);
    assert.match(started.stderr, /^coldstart: serving \d+ files/m);

    fs.symlinkSync(REPO, path.join(dir, 'node_modules', 'coldstart'));
    const preloaded = await serveAndAsk(dir, FRAMEWORK, { NODE_OPTIONS: '--require coldstart/start', COLDSTART_ARCHIVE: 'startup.tar' });
    assert.deepStrictEqual([preloaded.status, preloaded.body], [200, 'alpha']);
    assert.strictEqual(preloaded.stderr.split('\n').filter((l) => l.startsWith('coldstart: serving')).length, 1, preloaded.stderr);
  } finally { rm(dir); }
});

// The problem statement's second article on a function: a client made in the handler opens a new
// connection on every invocation; made once outside it with a keep-alive agent, one connection
// serves them all. profile --after with coldstart's requests says which.
test('a function calling an HTTPS backend: a client made per invocation is named (a new connection each time); one kept outside the handler is not', { timeout: 300_000 }, async () => {
  const { makeCertificate, startServer } = require('./helpers/https-backend.js');
  const tmp = fs.mkdtempSync(path.join(require('os').tmpdir(), 'cs-gcf-backend-'));
  const pems = makeCertificate(tmp);
  assert.ok(pems, 'openssl makes the backend its certificate');
  const dir = copyFixture('gcf-backend');
  try {
    const seen = {};
    for (const client of ['inside', 'outside']) {
      const backend = await startServer(pems, false);
      try {
        const out = path.join(tmp, client);
        // Ready at the listen: every invocation, the first included, is one of the window's requests.
        const r = await runCli(['profile', '--out', out, '--until', 'listen', '--after', '2s', '--request', 'GET /', '--request', 'GET /', '--', 'npx', '--no-install', 'functions-framework', '--target=api'], {
          cwd: dir,
          env: { NET_TARGET: `https://localhost:${backend.address().port}`, CLIENT: client, NODE_EXTRA_CA_CERTS: pems.cert, PORT: '0' },
        });
        assert.strictEqual(r.code, 0, r.stderr);
        const a = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')).afterReady;
        assert.strictEqual(a.sent.answered, a.sent.count, JSON.stringify(a.sent));
        const calls = a.connections.find((c) => c.host === 'localhost');
        seen[client] = { calls, finding: a.findings.find((f) => f.kind === 'no-connection-reuse'), stdout: r.stdout, tls: backend.tlsConnections };
      } finally {
        backend.close();
      }
    }
    const { inside, outside } = seen;
    assert.deepStrictEqual([inside.calls.newConnections, inside.calls.reused], [inside.calls.requests, 0], JSON.stringify(inside.calls));
    assert.strictEqual(inside.tls, inside.calls.requests, 'the backend saw a handshake per invocation');
    assert.ok(inside.finding && inside.finding.requests === inside.calls.requests, JSON.stringify(inside.finding));
    assert.match(inside.stdout, /\d+ requests to localhost:\d+ opened \d+ new connections \([\d.]+ ms each for DNS, connect and TLS\): keep one client with a keep-alive agent/);
    assert.deepStrictEqual([outside.calls.newConnections, outside.tls], [1, 1], JSON.stringify(outside.calls));
    assert.strictEqual(outside.finding, undefined);
  } finally {
    rm(dir);
    rm(tmp);
  }
});
