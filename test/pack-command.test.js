'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { copyFixture, runCli, rm, runNodeUntil, isAlive, waitFor } = require('./helpers/app.js');

async function packAndRunAlone(fixture, entry, pattern) {
  const dir = copyFixture(fixture);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), `cs-unpacked-${fixture}-`));
  const tar = path.join(os.tmpdir(), `cs-${fixture}-${process.pid}.tar`);
  try {
    const r = await runCli(['pack', '--json', '--out', tar, '--', 'node', entry], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.ok(summary.files > 0 && summary.bytes > 0);
    assert.ok(summary.files <= summary.tree.files);
    execFileSync('tar', ['-xf', tar, '-C', empty]);
    await runNodeUntil(empty, [entry], pattern);
    return summary;
  } finally {
    rm(dir);
    rm(empty);
    rm(tar);
  }
}

test('pack express: the tar alone, extracted into an empty directory, starts the app', async () => {
  const summary = await packAndRunAlone('express-app', 'server.js', /express-app listening on \d+/);
  assert.ok(summary.files < summary.tree.files / 2, `packs a fraction of the tree (${summary.files} of ${summary.tree.files})`);
});

test('pack ESM (with an fs-read settings file): the tar alone starts the app', async () => {
  await packAndRunAlone('esm-app', 'index.js', /esm-app listening on \d+/);
});

// Each fixture that packs, with the command that starts it: ES modules load in an order that
// varies between runs, which must not reach the archive.
const PACKED_APPS = [
  ['express-app', ['--', 'node', 'server.js']],
  ['esm-app', ['--', 'node', 'index.js']],
  ['start-esm', ['--until', 'exit', '--', 'node', '--import', './preload.mjs', 'app.js']],
  ['otel-express', ['--', 'node', '--require', './tracing.js', 'server.js']],
  ['grpc-proto', ['--', 'node', 'server.js']],
  ['plain-http', ['--', 'node', 'server.js']],
];
// The fast part packs twice: what differs from one pack to the next shows in two. It also skips
// pack's self-check where a test is about what pack writes (the check starts the app from the
// archive once it is written, which cannot change it; the tests above run it).
const { FAST } = require('./helpers/suite.js');
const PACKS = FAST ? 2 : 5;
const NO_CHECK = FAST ? ['--no-verify'] : [];

/** Every entry of a tar but the code cache, whose V8 hash seed differs from pack to pack. */
function entriesWithoutCodeCache(file) {
  const { readTarEntries } = require('../lib/start/tar-reader.js');
  return [...readTarEntries(fs.readFileSync(file))]
    .filter((e) => e.path !== '.coldstart/code-cache.bin')
    .map((e) => ({ path: e.path, type: e.type, mode: e.mode, linkpath: e.linkpath, data: e.data.toString('base64') }));
}

for (const [fixture, args] of PACKED_APPS) {
  test(`${PACKS} packs of ${fixture} are byte-identical`, async () => {
    const dir = copyFixture(fixture);
    try {
      const tars = [];
      for (let i = 0; i < PACKS; i++) {
        const out = path.join(dir, `pack-${i}.tar`);
        const r = await runCli(['pack', '-q', ...NO_CHECK, '--out', out, ...args], { cwd: dir });
        assert.strictEqual(r.code, 0, r.stderr);
        tars.push(fs.readFileSync(out));
      }
      for (let i = 1; i < PACKS; i++) assert.ok(tars[i].equals(tars[0]), `pack ${i + 1} differs from pack 1`);
      const listing = execFileSync('tar', ['-tvf', path.join(dir, 'pack-0.tar')], { encoding: 'utf8' }).trim().split('\n');
      assert.ok(listing.every((l) => / 0\/0 /.test(l) || /root\/root/.test(l)), 'owner normalised');
      assert.ok(!listing.some((l) => /pack-\d\.tar/.test(l)));
    } finally { rm(dir); }
  });
}

test(`${PACKS} packs with --code-cache are identical but for the code cache entry`, async () => {
  const dir = copyFixture('esm-app');
  try {
    const packs = [];
    for (let i = 0; i < PACKS; i++) {
      const out = path.join(dir, `pack-${i}.tar`);
      const r = await runCli(['pack', '-q', ...NO_CHECK, '--code-cache', '--out', out, '--', 'node', 'index.js'], { cwd: dir });
      assert.strictEqual(r.code, 0, r.stderr);
      packs.push(entriesWithoutCodeCache(out));
    }
    for (let i = 1; i < PACKS; i++) assert.deepStrictEqual(packs[i], packs[0], `pack ${i + 1} differs from pack 1`);
  } finally { rm(dir); }
});

test('files read outside the root are never packed and are listed in the summary', async () => {
  const dir = copyFixture('plain-http');
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-secrets-'));
  try {
    const secret = path.join(outside, 'token');
    fs.writeFileSync(secret, 'hunter2');
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"reads-secret"}');
    fs.writeFileSync(path.join(dir, 'app.js'), `require('fs').readFileSync(${JSON.stringify(secret)}); require('./server.js');\n`);
    const tar = path.join(dir, 'startup.tar');
    const r = await runCli(['pack', '--out', tar, '--', 'node', 'app.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stdout, /not packed, outside the root/);
    assert.ok(r.stdout.includes(secret));
    const listing = execFileSync('tar', ['-tf', tar], { encoding: 'utf8' });
    assert.ok(!listing.includes('token'));
    assert.match(listing, /^app\.js$/m);
  } finally { rm(dir); rm(outside); }
});

test('--manifest packs a saved list; entries escaping the root are refused', async () => {
  const dir = copyFixture('plain-http');
  try {
    fs.writeFileSync(path.join(dir, 'list.txt'), '# startup files\nserver.js\n../../etc/passwd\n/etc/hostname\n');
    const tar = path.join(dir, 's.tar');
    const r = await runCli(['pack', '--json', '--manifest', 'list.txt', '--out', tar], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.strictEqual(s.files, 1);
    assert.deepStrictEqual(s.outsideRoot.sort(), ['../../etc/passwd', '/etc/hostname']);
    assert.deepStrictEqual(execFileSync('tar', ['-tf', tar], { encoding: 'utf8' }).trim().split('\n'), ['server.js']);
  } finally { rm(dir); }
});

test('pack bad input: app that crashes, missing manifest, both manifest and command', async () => {
  const dir = copyFixture('crash-before-listen');
  try {
    const tar = path.join(dir, 'x.tar');
    let r = await runCli(['pack', '--out', tar, '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 1);
    assert.match(r.stderr.trim().split('\n').pop(), /^coldstart: the app failed before listening \(exit code 1\): Error: DATABASE_URL is not set; pack runs the app: give settings it needs to start \(not secrets\) harmless values, e\.g\. ENV in the pack stage$/);
    assert.ok(!fs.existsSync(tar));
    r = await runCli(['pack', '--manifest', 'nope.txt', '--out', tar], { cwd: dir });
    assert.strictEqual(r.code, 2);
    assert.match(r.stderr, /cannot read --manifest/);
    r = await runCli(['pack', '--manifest', 'nope.txt', '--out', tar, '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 2);
    assert.deepStrictEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tar') || f.includes('.tmp')), []);
  } finally { rm(dir); }
});

test('pack --code-cache records the cache at the ready moment (functions startup ran included), and the run leaves no process behind', async () => {
  const dir = copyFixture('plain-http');
  try {
    // A function body that only a run compiles: its bytecode is in a recorded cache only.
    const body = Array.from({ length: 300 }, (_, i) => `  total += (${i} * n) % ${i + 7};`).join('\n');
    fs.writeFileSync(path.join(dir, 'work.js'), `module.exports = function work(n) {\n  let total = 0;\n${body}\n  return total;\n};\n`);
    fs.writeFileSync(path.join(dir, 'app.js'), `const fs = require('fs');
const { spawn } = require('child_process');
console.log('work ' + require('./work.js')(3));
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
fs.writeFileSync(process.env.PID_FILE, String(child.pid));
require('http').createServer().listen(0, () => console.log('cache-app listening'));
`);
    const pidFile = path.join(dir, 'child.pid');
    const pack = async (command, flags = []) => {
      const r = await runCli(['pack', '--json', ...NO_CHECK, '--code-cache', ...flags, '--out', path.join(dir, 'out.tar'), '--', ...command], { cwd: dir, env: { PID_FILE: pidFile } });
      assert.strictEqual(r.code, 0, r.stderr);
      return { summary: JSON.parse(r.stdout), stderr: r.stderr };
    };
    const recorded = await pack(['node', 'app.js']);
    assert.strictEqual(recorded.summary.codeCache.made, 'run');
    const childPid = Number(fs.readFileSync(pidFile, 'utf8'));
    // SIGKILLed as pack ends: gone within moments, not left running.
    await waitFor(() => !isAlive(childPid), 2000, 'the recording run\'s child process to end');

    // A command start cannot run in-process: one warning, then the modules are compiled unrun.
    const compiled = await pack(['sh', '-c', 'exec node app.js']);
    assert.strictEqual(compiled.summary.codeCache.made, 'compile');
    assert.match(compiled.stderr, /coldstart: warning: could not record the code cache under coldstart start \(.*\); compiling the modules without running them/);
    assert.strictEqual(compiled.summary.codeCache.modules, recorded.summary.codeCache.modules);
    assert.ok(recorded.summary.codeCache.bytes > compiled.summary.codeCache.bytes + 2000,
      `recorded ${recorded.summary.codeCache.bytes} B vs compiled ${compiled.summary.codeCache.bytes} B`);
    // Asked for (--code-cache compile): no second run, no warning.
    const asked = await pack(['node', 'app.js'], ['compile']);
    assert.strictEqual(asked.summary.codeCache.made, 'compile');
    assert.doesNotMatch(asked.stderr, /warning/);
  } finally { rm(dir); }
});

test('pack --code-cache alone, last before -- or before another flag, records the cache from a run; --code-cache compile compiles it', async () => {
  const dir = copyFixture('plain-http');
  try {
    for (const [flags, made] of [
      [['--out', 'a.tar', '--code-cache'], 'run'],
      [['--code-cache', '--out', 'b.tar'], 'run'],
      [['--code-cache', 'compile', '--out', 'c.tar'], 'compile'],
    ]) {
      const r = await runCli(['pack', '--json', '--no-verify', ...flags, '--', 'node', 'server.js'], { cwd: dir });
      assert.strictEqual(r.code, 0, `${flags.join(' ')}: ${r.stderr}`);
      assert.strictEqual(JSON.parse(r.stdout).codeCache.made, made, flags.join(' '));
    }
  } finally { rm(dir); }
});

test('pack: a bad --out (a directory, under a file, under /proc, a device, a FIFO) is one line and exit 2 before the app runs, and the device stays one', async () => {
  const dir = copyFixture('plain-http');
  try {
    const marker = path.join(dir, 'ran');
    fs.writeFileSync(path.join(dir, 'app.js'), `require('fs').writeFileSync(${JSON.stringify(marker)}, '1');\nrequire('./server.js');\n`);
    fs.mkdirSync(path.join(dir, 'existing'));
    fs.writeFileSync(path.join(dir, 'a-file'), '');
    require('child_process').execFileSync('mkfifo', [path.join(dir, 'a-fifo')]);
    for (const [out, pattern] of [
      ['existing', /--out .*existing is a directory: give a file name/],
      ['a-file/x.tar', /--out .*a-file is not a directory/],
      ['/proc/coldstart-no-such/x.tar', /cannot write to --out \/proc\/coldstart-no-such: ENOENT/],
      ['/dev/null', /--out \/dev\/null is not a regular file/],
      ['/dev/full', /--out \/dev\/full is not a regular file/],
      ['a-fifo', /--out .*a-fifo is not a regular file/],
    ]) {
      const r = await runCli(['pack', '--out', out, '--', 'node', 'app.js'], { cwd: dir });
      assert.strictEqual(r.code, 2, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.strictEqual(lines.length, 1, r.stderr);
      assert.match(lines[0], pattern);
    }
    assert.strictEqual(fs.existsSync(marker), false, 'the app was not started');
    assert.ok(fs.statSync('/dev/null').isCharacterDevice(), '/dev/null is still a device');
  } finally { rm(dir); }
});

test('pack counts the app under the root, not the archive it writes there (nor the one it replaces)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-pack-tree-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "tree", "private": true }\n');
    fs.writeFileSync(path.join(dir, 'app.js'), "console.log('ran');\n");
    const pack = async () => {
      const r = await runCli(['pack', '--json', ...NO_CHECK, '--until', 'exit', '--out', 'startup.tar', '--', 'node', 'app.js'], { cwd: dir });
      assert.strictEqual(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).tree;
    };
    const first = await pack();
    assert.ok(fs.existsSync(path.join(dir, 'startup.tar')));
    assert.deepStrictEqual(await pack(), first, 'the archive of the first pack is not counted by the second');
    assert.strictEqual(first.files, 2, JSON.stringify(first));
  } finally { rm(dir); }
});
