'use strict';
// start's default check of a node_modules tree installed by npm: one stat of npm's hidden lockfile
// (node_modules/.package-lock.json) instead of one per packed file. Real npm installs of real
// package tarballs: while no install ran after pack, the tree's packed files are served (even one
// edited by hand, which the README says is not caught); an install after pack, even of a package
// of the same size, is caught and the new files run; files outside node_modules are still checked
// one by one; modification times cut to the second (Docker's classic builder) still hold. The
// snapshot's check reads the same record.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { runCli, rm, BIN } = require('./helpers/app.js');
const { fastSkips } = require('./helpers/suite.js');

const NPM_FLAGS = ['--offline', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'];

function npm(cwd, args) {
  const r = spawnSync('npm', [...args, ...NPM_FLAGS], { cwd, encoding: 'utf8', timeout: 120_000 });
  assert.strictEqual(r.status, 0, `npm ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

// A package tarball as the registry serves it (npm pack), of `word` at `version`: every version
// has files of the same sizes.
function packageTarball(dir, version, word) {
  const src = path.join(dir, `dep-src-${version}`);
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name: 'dep', version, main: 'index.js' }));
  fs.writeFileSync(path.join(src, 'index.js'), `module.exports = '${word}';\n`);
  return path.join(dir, npm(src, ['pack', '--pack-destination', dir]).split('\n').pop());
}

// The two versions' tarballs, made once for the file's tests.
let tarballs = null;
test.after(() => tarballs && rm(tarballs.dir));
function depTarballs() {
  if (!tarballs) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-dep-tarballs-'));
    tarballs = { dir, v1: packageTarball(dir, '1.0.0', 'AAAA'), v2: packageTarball(dir, '1.0.1', 'BBBB') };
  }
  return tarballs;
}

function writeApp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-installed-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'installed-app', private: true }));
  fs.writeFileSync(path.join(dir, 'own.js'), "module.exports = 'own-1';\n");
  fs.writeFileSync(path.join(dir, 'server.js'), `const dep = require('dep');
const own = require('./own.js');
require('http').createServer().listen(0, function () {
  console.log(dep + ' ' + own);
  this.close();
});
`);
  const { v1, v2 } = depTarballs();
  npm(dir, ['install', v1]);
  return { dir, v2 };
}

const start = (dir, flags = []) => spawnSync(process.execPath, [BIN, 'start', '--archive', 'startup.tar', ...flags, '--', 'node', 'server.js'],
  { cwd: dir, encoding: 'utf8', timeout: 30_000 });
// start's startup report (COLDSTART_REPORT): what its check read.
function checkedBy(dir, flags = []) {
  const r = start(dir, ['--report-file', 'report.json', ...flags]);
  assert.strictEqual(r.status, 0, r.stderr);
  return JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')).checked;
}
const warnings = (stderr) => stderr.split('\n').filter((line) => /warning/.test(line));
function cutToSecond(file) {
  const at = new Date(Math.floor(fs.statSync(file).mtimeMs / 1000) * 1000);
  fs.utimesSync(file, at, at);
}
// Same size, modified well after the archive: what the per-file check calls changed.
function editLater(file, from, to) {
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(from, to));
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(file, later, later);
}

test('start: npm\'s tree is checked by its hidden lockfile; an install after pack is caught, files outside node_modules each', fastSkips('npm pack and an install'), async () => {
  const { dir, v2 } = writeApp();
  try {
    const packed = await runCli(['pack', '-q', '--out', 'startup.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const fresh = start(dir);
    assert.strictEqual(fresh.stdout, 'AAAA own-1\n', fresh.stderr);
    assert.deepStrictEqual(warnings(fresh.stderr), []);
    // The report says what was read: the two files of the app's own, one stat each; the tree, by its record.
    assert.deepStrictEqual(checkedBy(dir), { files: 2, trees: [{ tree: 'node_modules', record: 'node_modules/.package-lock.json', held: true }] });
    assert.strictEqual(checkedBy(dir, ['--trust-archive']), null);
    // Image layers of Docker's classic builder keep modification times to the second.
    cutToSecond(path.join(dir, 'node_modules/.package-lock.json'));
    assert.deepStrictEqual(warnings(start(dir).stderr), []);

    // No install since pack: the tree's files are not stat'ed one by one, so a hand edit there
    // is not seen (what the README says the default does not catch).
    editLater(path.join(dir, 'node_modules/dep/index.js'), 'AAAA', 'XXXX');
    const byHand = start(dir);
    assert.strictEqual(byHand.stdout, 'AAAA own-1\n', byHand.stderr);
    assert.deepStrictEqual(warnings(byHand.stderr), []);

    // A file of the app's own, outside node_modules: still checked on its own.
    editLater(path.join(dir, 'own.js'), 'own-1', 'own-2');
    const own = start(dir);
    assert.strictEqual(own.stdout, 'AAAA own-2\n', own.stderr);
    assert.deepStrictEqual(warnings(own.stderr), ['coldstart: warning: own.js changed on disk after the archive (re-run coldstart pack); such files are read from disk']);

    // npm installs another version of the same size: its record moved, and each file of the tree is checked.
    npm(dir, ['install', v2]);
    const installed = start(dir);
    assert.strictEqual(installed.stdout, 'BBBB own-2\n', installed.stderr);
    // The record moved: the tree's module is checked on its own too (Node resolves into the tree again).
    assert.deepStrictEqual(checkedBy(dir), { files: 3, trees: [{ tree: 'node_modules', record: 'node_modules/.package-lock.json', held: false }] });
    assert.deepStrictEqual(warnings(installed.stderr), [
      'coldstart: warning: node_modules/.package-lock.json changed since the archive was made (an install after coldstart pack?): each packed file under node_modules is checked on disk (re-run coldstart pack after the install)',
      'coldstart: warning: node_modules/dep/index.js changed on disk after the archive (re-run coldstart pack); such files are read from disk',
    ]);
  } finally { rm(dir); }
});

test('pack --snapshot-blob: an npm install after pack leaves the snapshot aside; without one, the snapshot is used', fastSkips('V8 startup snapshots built'), async () => {
  const { dir, v2 } = writeApp();
  try {
    const packed = await runCli(['pack', '-q', '--out', 'startup.tar', '--snapshot-blob', 'startup.blob', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const runSnapshot = () => spawnSync(process.execPath, ['--snapshot-blob', 'startup.blob', 'server.js'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    // Every file as Docker's classic builder stores it: modification times to the second.
    for (const rel of ['server.js', 'own.js', 'node_modules/.package-lock.json', 'node_modules/dep/index.js', 'node_modules/dep/package.json']) cutToSecond(path.join(dir, rel));
    const used = runSnapshot();
    assert.strictEqual(used.stdout, 'AAAA own-1\n', used.stderr);
    assert.deepStrictEqual(warnings(used.stderr), []);
    const reported = spawnSync(process.execPath, ['--snapshot-blob', 'startup.blob', 'server.js'],
      { cwd: dir, encoding: 'utf8', timeout: 30_000, env: { ...process.env, COLDSTART_REPORT: path.join(dir, 'report.json') } });
    assert.strictEqual(reported.status, 0, reported.stderr);
    const { checked } = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
    assert.deepStrictEqual(checked.trees, [{ tree: 'node_modules', record: 'node_modules/.package-lock.json', held: true }]);
    assert.ok(checked.files >= 2 && checked.files <= 3, JSON.stringify(checked)); // server.js, own.js (package.json if packed)

    npm(dir, ['install', v2]);
    const after = runSnapshot();
    assert.strictEqual(after.status, 0, after.stderr);
    assert.strictEqual(after.stdout, 'BBBB own-1\n', after.stderr);
    assert.match(warnings(after.stderr)[0], /^coldstart: warning: node_modules\/\.package-lock\.json changed on disk since the snapshot was made \(re-run coldstart pack --snapshot-blob\); starting the app without it/);
  } finally { rm(dir); }
});

// pnpm's layout, written here as pnpm writes it (each version in its store folder, node_modules/NAME
// a link into it, node_modules/.modules.yaml rewritten at each install; pnpm itself needs the
// registry): an install after pack that moves the link and leaves the old version in the store.
test('start: after an install moved a link (pnpm), a request into the tree is Node\'s to resolve again: the new version runs', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-pnpm-'));
  const install = (version, word) => {
    const store = path.join(dir, 'node_modules/.pnpm', `dep@${version}`, 'node_modules/dep');
    fs.mkdirSync(store, { recursive: true });
    fs.writeFileSync(path.join(store, 'package.json'), JSON.stringify({ name: 'dep', version, main: 'index.js' }));
    fs.writeFileSync(path.join(store, 'index.js'), `module.exports = '${word}';\n`);
    fs.rmSync(path.join(dir, 'node_modules/dep'), { force: true });
    fs.symlinkSync(path.join('.pnpm', `dep@${version}`, 'node_modules/dep'), path.join(dir, 'node_modules/dep'));
    fs.writeFileSync(path.join(dir, 'node_modules/.modules.yaml'), `layoutVersion: 5\nincluded:\n  dependencies: true\n`);
    // Written after npm's record, which a tree npm installed first keeps: the newest record is pnpm's.
    const later = new Date(Date.now() + 2000);
    fs.utimesSync(path.join(dir, 'node_modules/.modules.yaml'), later, later);
  };
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'pnpm-app', private: true }));
    fs.writeFileSync(path.join(dir, 'own.js'), "module.exports = 'own-1';\n");
    fs.writeFileSync(path.join(dir, 'server.js'), "console.log(require('dep') + ' ' + require('./own.js'));\n");
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.writeFileSync(path.join(dir, 'node_modules/.package-lock.json'), '{ "lockfileVersion": 3, "packages": {} }\n');
    install('1.0.0', 'AAAA');
    const packed = await runCli(['pack', '-q', '--until', 'exit', '--out', 'startup.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    assert.strictEqual(start(dir).stdout, 'AAAA own-1\n');

    install('1.0.1', 'BBBB');
    const after = start(dir);
    assert.strictEqual(after.stdout, 'BBBB own-1\n', after.stderr);
    assert.deepStrictEqual(warnings(after.stderr), [
      'coldstart: warning: node_modules/.modules.yaml changed since the archive was made (an install after coldstart pack?): each packed file under node_modules is checked on disk (re-run coldstart pack after the install)',
    ]);
  } finally { rm(dir); }
});
