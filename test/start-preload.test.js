'use strict';
// The preload form of start: `node --require coldstart/start` (or NODE_OPTIONS) with
// COLDSTART_ARCHIVE serves the archive to whatever entry runs, as platforms that own the command
// start apps (Lambda's runtime, the Functions Framework, npm start). Same guarantees as start.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { copyFixture, runCli, rm, REPO } = require('./helpers/app.js');
const EXIT_ON_LISTEN = path.join(__dirname, 'helpers', 'exit-on-listen.js');

// One copy of express-app, packed once, for the two tests below (the first puts back the
// package.json it changes).
let express = null;
test.after(() => express && rm(express));
async function packedExpress() {
  if (express) return express;
  const dir = copyFixture('express-app');
  fs.symlinkSync(REPO, path.join(dir, 'node_modules', 'coldstart')); // as `npm install coldstart` puts it
  const packed = await runCli(['pack', '-q', '--out', 'startup.tar', '--', 'node', 'server.js'], { cwd: dir });
  assert.strictEqual(packed.code, 0, packed.stderr);
  express = dir;
  return dir;
}

const run = (dir, args, env) => spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PORT: '0', ...env } });
const ours = (stderr) => stderr.split('\n').filter((l) => l.startsWith('coldstart:'));

test('node --require coldstart/start with COLDSTART_ARCHIVE serves the archive: one summary line, the app starts; through NODE_OPTIONS and npm start the same, once', async () => {
  const dir = await packedExpress();
  const pkg = path.join(dir, 'package.json');
  const packedPkg = { text: fs.readFileSync(pkg), stat: fs.statSync(pkg) };
  try {
    const direct = run(dir, ['--require', 'coldstart/start', '--require', EXIT_ON_LISTEN, 'server.js'], { COLDSTART_ARCHIVE: 'startup.tar' });
    assert.strictEqual(direct.status, 0, direct.stderr);
    assert.deepStrictEqual(ours(direct.stderr).map((l) => l.replace(/\d[\d.,]*/g, 'N')).map((l) => l.split(' (')[0]), ['coldstart: serving N files, N kB from memory']);

    const report = path.join(dir, 'report.json');
    const viaOptions = run(dir, ['server.js'], {
      NODE_OPTIONS: `--require coldstart/start --require ${EXIT_ON_LISTEN}`, COLDSTART_ARCHIVE: path.join(dir, 'startup.tar'), COLDSTART_REPORT: report, COLDSTART_QUIET: '1',
    });
    assert.strictEqual(viaOptions.status, 0, viaOptions.stderr);
    assert.deepStrictEqual(ours(viaOptions.stderr), [], 'quiet');
    const doc = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.ok(doc.phases.archiveReady > 0 && doc.packages.some((p) => p.name === 'express'), JSON.stringify(doc.phases));

    fs.writeFileSync(pkg, JSON.stringify({ name: 'express-app', private: true, scripts: { start: 'node server.js' } }));
    const npm = spawnSync('npm', ['start', '--silent'], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PORT: '0', NODE_OPTIONS: `--require coldstart/start --require ${EXIT_ON_LISTEN}`, COLDSTART_ARCHIVE: path.join(dir, 'startup.tar') } });
    assert.strictEqual(npm.status, 0, npm.stderr);
    assert.strictEqual(ours(npm.stderr).filter((l) => l.startsWith('coldstart: serving')).length, 1, `npm itself is not served, the app is: ${npm.stderr}`);
  } finally {
    // As packed again (its size and modification time) for the next test.
    fs.writeFileSync(pkg, packedPkg.text);
    fs.utimesSync(pkg, packedPkg.stat.atime, packedPkg.stat.mtime);
  }
});

test('the preload never stops the app: a missing archive, an unknown mode, no COLDSTART_ARCHIVE', async () => {
  const dir = await packedExpress();
  for (const [env, line] of [
    [{ COLDSTART_ARCHIVE: 'missing.tar' }, /^coldstart: warning: archive not found: .*missing\.tar; starting the app without it$/],
    [{ COLDSTART_ARCHIVE: 'startup.tar', COLDSTART_MODE: 'fast' }, /^coldstart: warning: unknown --mode fast/],
    [{}, null],
  ]) {
    const r = run(dir, ['--require', 'coldstart/start', '--require', EXIT_ON_LISTEN, 'server.js'], env);
    assert.strictEqual(r.status, 0, r.stderr);
    const lines = ours(r.stderr);
    if (line) { assert.strictEqual(lines.length, 1, r.stderr); assert.match(lines[0], line); } else assert.deepStrictEqual(lines, []);
  }
});

test('a relative COLDSTART_ARCHIVE holds for a child the app starts in another directory: the child is served from the same archive, no warning', async () => {
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'cs-preload-child-'));
  try {
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"preload-child","private":true}');
    fs.writeFileSync(path.join(dir, 'server.js'), "require('child_process').fork(__dirname + '/child.js', { cwd: __dirname + '/sub' }).on('exit', (code) => process.exit(code));\n");
    fs.writeFileSync(path.join(dir, 'child.js'), "console.log('child ran');\n");
    const packed = await runCli(['pack', '--until', 'exit', '--out', 'startup.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const r = run(dir, ['--require', path.join(REPO, 'start.js'), 'server.js'], { COLDSTART_ARCHIVE: 'startup.tar' });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.match(r.stdout, /child ran/);
    const lines = ours(r.stderr);
    assert.strictEqual(lines.length, 2, r.stderr);
    for (const line of lines) assert.match(line, /^coldstart: serving 3 files/);
  } finally {
    rm(dir);
  }
});
