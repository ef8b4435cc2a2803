'use strict';
// coldstart view where no browser can be opened: it prints URLs that work (checked here by
// fetching them), serves speedscope offline, and leaves no server or process behind.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { fileURLToPath } = require('url');
const { copyFixture, runCli, spawnCli, waitFor, rm } = require('./helpers/app.js');

// No display, no opener: what a CI runner or an SSH session looks like.
const HEADLESS = { DISPLAY: '', WAYLAND_DISPLAY: '', BROWSER: '' };

let app;
test.before(async () => {
  app = copyFixture('plain-http');
  const r = await runCli(['profile', '--quiet', '--', 'node', 'server.js'], { cwd: app });
  assert.strictEqual(r.code, 0, r.stderr);
});
test.after(() => rm(app));

function assertUsageError(r, pattern) {
  assert.strictEqual(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.strictEqual(lines.length, 1, r.stderr);
  assert.match(lines[0], /^coldstart: /);
  assert.match(lines[0], pattern);
  assert.strictEqual(r.stdout, '');
}

/** The promise's value, or 'still running' after ms (the timer does not keep the test alive). */
function within(promise, ms) {
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve('still running'), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const portIsClosed = (port) => new Promise((resolve) => {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('connect', () => { socket.destroy(); resolve(false); });
  socket.on('error', () => resolve(true));
});

test('--no-open: a file:// URL of the installed speedscope with the profile inlined, and DevTools steps', async () => {
  // The raw profile beside it, however new, is not the one opened by default.
  const raw = path.join(app, '.coldstart', 'startup.raw.cpuprofile');
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(raw, later, later);
  const r = await runCli(['view', '--no-open'], { cwd: app, env: HEADLESS });
  assert.strictEqual(r.code, 0, r.stderr);
  const url = /file:\/\/\S+/.exec(r.stdout)[0];
  const [page, hash] = url.split('#');
  assert.strictEqual(fileURLToPath(page), require.resolve('speedscope/dist/release/index.html'));
  const loaderPath = '/' + decodeURIComponent(decodeURIComponent(/^localProfilePath=(.*)$/.exec(hash)[1])).replace(/^\/+/, '');
  const loader = fs.readFileSync(loaderPath, 'utf8');
  const m = /^speedscope\.loadFileFromBase64\("startup\.cpuprofile", "([A-Za-z0-9+/=]+)"\)/.exec(loader);
  assert.ok(m, 'the loader hands the profile to speedscope');
  const profile = path.join(app, '.coldstart', 'startup.cpuprofile');
  assert.deepStrictEqual(Buffer.from(m[1], 'base64'), fs.readFileSync(profile));
  assert.match(r.stdout, /not opened \(--no-open\)/);
  assert.match(r.stdout, /Chrome DevTools: Performance panel > "Load profile…"/);
  assert.ok(r.stdout.includes(profile), 'names the profile to load');
});

test('a report as FILE: the file:// URL of report.html, re-rendered from report.json when the page is missing', async () => {
  const r = await runCli(['view', '.coldstart/report.html', '--json'], { cwd: app, env: HEADLESS });
  assert.strictEqual(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  const html = path.join(app, '.coldstart', 'report.html');
  assert.deepStrictEqual(doc, { kind: 'report', file: html, url: `file://${html}`, opened: false, serving: false });

  fs.rmSync(html);
  const again = await runCli(['view', '.coldstart/report.json'], { cwd: app, env: HEADLESS });
  assert.strictEqual(again.code, 0, again.stderr);
  assert.ok(again.stdout.includes(`file://${html}`));
  assert.match(fs.readFileSync(html, 'utf8'), /^<!doctype html>/);

  // A saved report under another name (a check baseline) gets its own page.
  fs.copyFileSync(path.join(app, '.coldstart', 'report.json'), path.join(app, 'baseline.json'));
  const named = await runCli(['view', 'baseline.json'], { cwd: app, env: HEADLESS });
  assert.strictEqual(named.code, 0, named.stderr);
  assert.ok(named.stdout.includes(`file://${path.join(app, 'baseline.html')}`));
  assert.ok(fs.existsSync(path.join(app, 'baseline.html')));
});

test('serving where no browser can be opened: the printed URL loads speedscope and the profile from 127.0.0.1', async () => {
  const { child, done, output } = spawnCli(['view'], { cwd: app, env: HEADLESS });
  try {
    const url = await waitFor(() => (/http:\/\/127\.0\.0\.1:\d+\/\S+/.exec(output().stdout) || [])[0], 10000, 'the URL');
    const origin = new URL(url).origin;
    const port = Number(new URL(url).port);
    assert.match(output().stdout, /no browser to open here \(no DISPLAY\)/);
    assert.match(output().stdout, new RegExp(`ssh -L ${port}:127\\.0\\.0\\.1:${port}`));

    const root = await fetch(`${origin}/`, { redirect: 'manual' });
    assert.strictEqual(root.status, 302);
    assert.strictEqual(root.headers.get('location'), url);

    const index = await fetch(url);
    assert.strictEqual(index.status, 200);
    assert.match(index.headers.get('content-type'), /text\/html/);
    const scripts = [...(await index.text()).matchAll(/src="([^"]+)"/g)].map((x) => x[1]);
    assert.ok(scripts.length > 0);
    for (const src of scripts) {
      assert.doesNotMatch(src, /^https?:/, 'speedscope loads nothing from the network');
      assert.strictEqual((await fetch(`${origin}/${src}`)).status, 200, src);
    }
    assert.strictEqual((await fetch(`${origin}/..%2Fpackage.json`)).status, 404);
    const foreign = await new Promise((resolve) => {
      require('http').get({ host: '127.0.0.1', port, path: '/index.html', headers: { Host: 'attacker.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
    });
    assert.strictEqual(foreign, 403, 'requests for another host name are refused');

    const profileUrl = decodeURIComponent(/profileURL=([^&]+)/.exec(url)[1]);
    assert.ok(profileUrl.startsWith(`${origin}/`));
    const served = await fetch(profileUrl);
    assert.strictEqual(served.status, 200);
    assert.deepStrictEqual(Buffer.from(await served.arrayBuffer()), fs.readFileSync(path.join(app, '.coldstart', 'startup.cpuprofile')));

    child.kill('SIGINT');
    const result = await within(done, 10000);
    assert.notStrictEqual(result, 'still running', 'Ctrl-C stops the server');
    assert.strictEqual(result.code, 0, result.stderr);
    assert.ok(await portIsClosed(port));
  } finally {
    child.kill('SIGKILL');
  }
});

test('serving until Ctrl-C: SIGINT closes the server and exits 0', async () => {
  const { child, done, output } = spawnCli(['view'], { cwd: app, env: HEADLESS });
  try {
    await waitFor(() => /Serving on 127\.0\.0\.1:\d+; press Ctrl-C to stop/.test(output().stdout), 10000, 'serving');
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(output().stdout)[1]);
    const keepAlive = new (require('http').Agent)({ keepAlive: true });
    await new Promise((resolve) => require('http').get({ host: '127.0.0.1', port, path: '/index.html', agent: keepAlive }, (res) => { res.resume(); res.on('end', resolve); }));
    child.kill('SIGINT');
    const result = await within(done, 5000);
    assert.notStrictEqual(result, 'still running', 'an open keep-alive connection does not hold it up');
    assert.strictEqual(result.code, 0, result.stderr);
    assert.ok(await portIsClosed(port));
    keepAlive.destroy();
  } finally {
    child.kill('SIGKILL');
  }
});

test('a browser opener is started with the URL when one is available', async () => {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-opener-'));
  try {
    const opener = path.join(bin, 'fake-browser');
    fs.writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > "${bin}/opened.txt"\n`, { mode: 0o755 });
    const r = await runCli(['view', '.coldstart/report.html'], { cwd: app, env: { ...HEADLESS, BROWSER: opener } });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stdout, /opened in your browser/);
    const opened = await waitFor(() => fs.existsSync(path.join(bin, 'opened.txt')) && fs.readFileSync(path.join(bin, 'opened.txt'), 'utf8'), 5000, 'the opener');
    assert.strictEqual(opened, `file://${path.join(app, '.coldstart', 'report.html')}`);
  } finally {
    rm(bin);
  }
});

test('view: usage errors exit 2 with one coldstart: line', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-view-empty-'));
  try {
    fs.writeFileSync(path.join(empty, 'notes.txt'), 'hello');
    assertUsageError(await runCli(['view', 'missing.cpuprofile'], { cwd: empty, env: HEADLESS }), /file not found: missing\.cpuprofile/);
    assertUsageError(await runCli(['view'], { cwd: empty, env: HEADLESS }), /no \.cpuprofile in \.coldstart\/: run coldstart profile/);
    assertUsageError(await runCli(['view', '.coldstart/report.html'], { cwd: empty, env: HEADLESS }), /file not found: \.coldstart\/report\.html/);
    fs.writeFileSync(path.join(empty, 'notes.json'), '{"notes": []}');
    assertUsageError(await runCli(['view', 'notes.json'], { cwd: empty, env: HEADLESS }), /notes\.json is not a CPU profile or trace \(nor a coldstart report\)/);
  } finally {
    rm(empty);
  }
});
