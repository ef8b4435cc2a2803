'use strict';
// The default ready moment of a server: its first answer to GET / (not a 5xx), its listen said
// apart. An app that listens before it loads what answers (as Next.js does) is measured, profiled
// and packed to the end of that loading; a server that does not speak HTTP is ready at its listen;
// one that listened and ended before answering is named as such.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');

// Listens at once; the first request loads pages.js (it times its own load) and answers 503 until
// it is loaded, then 200. Says when it listened and when pages.js had loaded, on its own clock.
const LATE_APP = {
  'package.json': '{ "name": "listens-first", "private": true }',
  'server.js': `const http = require('http');
let pages = null;
const server = http.createServer((req, res) => {
  if (!pages) {
    setTimeout(() => { pages = require('./pages.js'); console.log('loaded-at ' + performance.now()); }, 50);
    pages = undefined;
  }
  if (!pages) { res.statusCode = 503; return res.end('starting'); }
  res.end(pages.home());
});
server.listen(0, '127.0.0.1', () => console.log('listening-at ' + performance.now()));
`,
  // Burns 60 ms of CPU as it loads: the profile must hold it.
  'pages.js': `const end = performance.now() + 60; let n = 0; while (performance.now() < end) n++;
exports.home = () => 'home ' + n;
`,
};

function app(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-until-answer-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const moment = (text, name) => Number(new RegExp(`^${name} ([\\d.]+)$`, 'm').exec(text)[1]);

test('profile: a server that listens before it can answer is ready at its first answer; what the first request loaded is in the profile', async () => {
  const dir = app(LATE_APP);
  try {
    const r = await runCli(['profile', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.strictEqual(report.until, 'answer:/');
    assert.deepStrictEqual(report.answer, { status: 200 });
    // On the app's own clock (which also holds the profiler's attach pause: differences only), the
    // ready moment comes after pages.js loaded, at least that long after the listen.
    const loading = moment(r.stderr, 'loaded-at') - moment(r.stderr, 'listening-at');
    assert.ok(report.readyAt - report.listenAt >= loading, `ready ${report.readyAt - report.listenAt} ms after the listen; pages.js loaded ${loading} ms after it`);
    assert.ok(report.modules.some((m) => m.file === 'pages.js'), report.modules.map((m) => m.file).join(' '));

    const listened = await runCli(['profile', '--json', '--until', 'listen', '--out', 'listen', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(listened.code, 0, listened.stderr);
    assert.ok(!JSON.parse(listened.stdout).modules.some((m) => m.file === 'pages.js'), '--until listen stops before the first request');
  } finally {
    rm(dir);
  }
});

test('pack: the archive holds what the first request loads, and its self-check proves the archive alone answers', async () => {
  const dir = app(LATE_APP);
  try {
    const r = await runCli(['pack', '--out', 'startup.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const { readTarEntries } = require('../lib/start/tar-reader.js');
    const names = [...readTarEntries(fs.readFileSync(path.join(dir, 'startup.tar')))].map((e) => e.path);
    assert.ok(names.includes('pages.js'), names.join(' '));
    assert.match(r.stdout + r.stderr, /checked: its files alone, in an empty directory, started the app/);
  } finally {
    rm(dir);
  }
});

test('a server that does not speak HTTP is ready at its listen; one that ends after listening is named so; a 5xx for good times out', async () => {
  const dir = app({
    'package.json': '{ "name": "odd-servers", "private": true }',
    'tcp.js': "require('net').createServer(() => {}).listen(0, '127.0.0.1');\n",
    'dies.js': "require('http').createServer((q, s) => s.end()).listen(0, '127.0.0.1', () => { console.error('Error: Could not find a production build'); process.exit(1); });\n",
    'broken.js': "require('http').createServer((q, s) => { s.statusCode = 500; s.end(); }).listen(0, '127.0.0.1');\n",
  });
  try {
    const tcp = await runCli(['profile', '--json', '--', 'node', 'tcp.js'], { cwd: dir });
    assert.strictEqual(tcp.code, 0, tcp.stderr);
    const report = JSON.parse(tcp.stdout);
    assert.strictEqual(report.answer, null);
    assert.strictEqual(report.unanswered, 'not an HTTP server');
    assert.ok(report.listenAt <= report.readyAt);

    const dies = await runCli(['profile', '--out', 'd', '--', 'node', 'dies.js'], { cwd: dir });
    assert.strictEqual(dies.code, 1);
    assert.match(dies.stderr, /^coldstart: the app failed after it listened, before it answered GET \/ \(exit code 1\): Error: Could not find a production build$/m);

    const broken = await runCli(['profile', '--timeout', '3s', '--out', 'b', '--', 'node', 'broken.js'], { cwd: dir });
    assert.strictEqual(broken.code, 1);
    assert.match(broken.stderr, /^coldstart: the app listened but did not answer GET \/ with a status below 500 within 3s \(--timeout; --until listen if it is ready before it answers/m);
    assert.strictEqual(broken.stderr.split('\n').filter((l) => l.startsWith('coldstart:')).length, 1, broken.stderr);
  } finally {
    rm(dir);
  }
});

test('--until answer:/path asks that path; a bad one is one line, exit 2', async () => {
  const dir = app(LATE_APP);
  try {
    const r = await runCli(['profile', '--json', '--until', 'answer:/health?x=1', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(JSON.parse(r.stdout).until, 'answer:/health?x=1');
    for (const bad of ['answer:', 'answer:health', 'answer://x/y', 'answer:/a b']) {
      const b = await runCli(['profile', '--until', bad, '--', 'node', 'server.js'], { cwd: dir });
      assert.strictEqual(b.code, 2, bad);
      assert.match(b.stderr, /^coldstart: invalid --until "answer:[^"]*": a first answer is answer \(GET \/\) or answer:\/path\n$/);
    }
  } finally {
    rm(dir);
  }
});
