'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { copyFixture, runCli, rm, runNodeUntil } = require('./helpers/app.js');

test('startup-files.txt lists express and its package.json files; those files alone start the app', async () => {
  const dir = copyFixture('express-app');
  const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-only-startup-'));
  try {
    const { code, stderr } = await runCli(['profile', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const list = fs.readFileSync(path.join(dir, '.coldstart', 'startup-files.txt'), 'utf8').trim().split('\n');
    assert.deepStrictEqual(list, [...list].sort(), 'sorted');
    for (const f of ['server.js', 'config.json', 'package.json', 'node_modules/express/index.js',
      'node_modules/express/package.json', 'node_modules/express/lib/application.js']) {
      assert.ok(list.includes(f), `${f} listed`);
    }
    assert.ok(list.every((f) => !path.isAbsolute(f) && !f.startsWith('..')), 'relative to the root');
    // Far fewer files than the installed tree: README, tests, docs are not needed.
    assert.ok(!list.some((f) => /README|\.md$/i.test(f)), 'no docs listed');

    for (const f of list) {
      fs.mkdirSync(path.join(bare, path.dirname(f)), { recursive: true });
      fs.copyFileSync(path.join(dir, f), path.join(bare, f));
    }
    const out = await runNodeUntil(bare, ['server.js'], /express-app listening on \d+/);
    assert.match(out, /listening/);
  } finally {
    rm(dir);
    rm(bare);
  }
});

test('files read outside the root are reported, not listed', async () => {
  const dir = copyFixture('plain-http');
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-outside-'));
  try {
    const secret = path.join(outside, 'secret.txt');
    fs.writeFileSync(secret, 'token');
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"reads-outside"}');
    fs.writeFileSync(path.join(dir, 'app.js'), `require('fs').readFileSync(${JSON.stringify(secret)}); require('./server.js');\n`);
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', 'app.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    assert.ok(report.outsideRoot.includes(secret), 'reported as outside the root');
    const list = fs.readFileSync(path.join(dir, '.coldstart', 'startup-files.txt'), 'utf8');
    assert.ok(!list.includes('secret'), 'not listed');
    assert.match(list, /^app\.js$/m);
  } finally {
    rm(dir);
    rm(outside);
  }
});

test('a startup longer than the agent\'s watch of the CLI (250 ms): its /proc reads are not the app\'s', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-slow-start-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "slow-start", "private": true }');
    fs.writeFileSync(path.join(dir, 'server.js'), "setTimeout(() => require('http').createServer().listen(0), 700);\n");
    const r = await runCli(['profile', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.ok(report.readyAt >= 700, `${report.readyAt}`);
    assert.deepStrictEqual(report.outsideRoot, []);
  } finally { rm(dir); }
});
