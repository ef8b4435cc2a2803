'use strict';
// start --mode memory against a disk that moved on since pack: a file changed after the archive
// was written runs as it is on disk, even at the same size; a packed file missing on disk is
// called missing; the app's files that were never packed are counted and, with --report, listed.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { runCli, rm, BIN } = require('./helpers/app.js');
const { readTarEntries } = require('../lib/start/tar-reader.js');

function writeApp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-stale-'));
  const files = {
    'package.json': '{ "name": "stale-app", "private": true }',
    'server.js': `const word = require('./word.js');
if (process.env.EXTRA) require('./extra.js');
require('http').createServer().listen(0, function () {
  console.log('word=' + word);
  if (process.env.LATE) setTimeout(() => { require('./late.js'); process.exit(0); }, 50);
  else process.exit(0);
});
`,
    'word.js': "module.exports = 'AAAA';\n",
    'extra.js': 'module.exports = 1;\n',
    'late.js': 'module.exports = 2;\n',
  };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

async function pack(dir) {
  const r = await runCli(['pack', '-q', '--out', 'startup.tar', '--', 'node', 'server.js'], { cwd: dir });
  assert.strictEqual(r.code, 0, r.stderr);
  const packed = [...readTarEntries(fs.readFileSync(path.join(dir, 'startup.tar')))].map((e) => e.path).filter((p) => p.endsWith('.js')).sort();
  assert.deepStrictEqual(packed, ['server.js', 'word.js']);
}

const start = (dir, args = [], env = {}) => spawnSync(process.execPath, [BIN, 'start', '--archive', 'startup.tar', ...args, '--', 'node', 'server.js'],
  { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });

test('a packed file changed after pack at the same size runs from disk, with one warning', async () => {
  const dir = writeApp();
  try {
    await pack(dir);
    const fresh = start(dir);
    assert.match(fresh.stdout, /word=AAAA/);
    assert.doesNotMatch(fresh.stderr, /warning/, fresh.stderr);
    // Same size, newer than the archive.
    const later = new Date(fs.statSync(path.join(dir, 'startup.tar')).mtimeMs + 2000);
    fs.writeFileSync(path.join(dir, 'word.js'), "module.exports = 'BBBB';\n");
    fs.utimesSync(path.join(dir, 'word.js'), later, later);
    const changed = start(dir);
    assert.match(changed.stdout, /word=BBBB/, 'the new content runs');
    const warnings = changed.stderr.split('\n').filter((l) => /warning/.test(l));
    assert.deepStrictEqual(warnings, ['coldstart: warning: word.js changed on disk after the archive (re-run coldstart pack); such files are read from disk']);
  } finally { rm(dir); }
});

test('a packed file missing on disk is called missing; --trust-archive serves the archive\'s copy', async () => {
  const dir = writeApp();
  try {
    await pack(dir);
    fs.rmSync(path.join(dir, 'word.js'));
    const checked = start(dir);
    assert.match(checked.stderr, /^coldstart: warning: word\.js is missing on disk but is in the archive \(re-run coldstart pack\); such files are read from disk \(--trust-archive serves the archive's copy\)$/m);
    assert.doesNotMatch(checked.stderr, /differs|changed/);
    const served = start(dir, ['--trust-archive']);
    assert.strictEqual(served.status, 0, served.stderr);
    assert.match(served.stdout, /word=AAAA/);
  } finally { rm(dir); }
});

test('files never packed: one line at the ready moment for those before it; --report-file lists each with its time', async () => {
  const dir = writeApp();
  try {
    await pack(dir);
    const quiet = start(dir, [], { LATE: '1' });
    assert.strictEqual(quiet.status, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /warning/, 'a file loaded after the ready moment is not a startup file');

    const r = start(dir, ['--report-file', 'from-disk.json'], { EXTRA: '1', LATE: '1' });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.match(r.stderr, /^coldstart: warning: 1 of the app's files loaded before it listened were not in the archive and came from disk: extra\.js \(re-run coldstart pack\)$/m);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'from-disk.json'), 'utf8'));
    assert.ok(report.readyAt > 0);
    assert.deepStrictEqual(report.fromDisk.map((f) => [f.file, f.beforeReady]), [['extra.js', true], ['late.js', false]]);
    assert.ok(report.fromDisk[0].ms <= report.readyAt && report.fromDisk[1].ms > report.readyAt, JSON.stringify(report));
    assert.ok(!fs.existsSync(path.join(dir, 'from-disk.json.tmp')));

    const viaEnv = start(dir, [], { EXTRA: '1', COLDSTART_REPORT: path.join(dir, 'env.json') });
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8')).fromDisk.map((f) => f.file), ['extra.js']);
    assert.match(viaEnv.stderr, /came from disk: extra\.js/);
  } finally { rm(dir); }
});

test('coldstart installed in the app\'s node_modules: its own files loaded after the archive are not the app\'s', async () => {
  const dir = writeApp();
  try {
    const own = path.join(dir, 'node_modules', 'coldstart');
    for (const part of ['bin', 'lib', 'package.json']) fs.cpSync(path.join(__dirname, '..', part), path.join(own, part), { recursive: true });
    fs.symlinkSync(path.join(__dirname, '..', 'node_modules'), path.join(own, 'node_modules'), 'dir');
    await pack(dir);
    const r = spawnSync(process.execPath, ['node_modules/coldstart/bin/coldstart.js', 'start', '--archive', 'startup.tar', '--', 'node', 'server.js'],
      { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.match(r.stdout, /word=AAAA/);
    assert.match(r.stderr, /^coldstart: serving /m);
    assert.doesNotMatch(r.stderr, /warning/, r.stderr);
  } finally { rm(dir); }
});

test('pack --after 600ms: a module loaded 200 ms after listen is packed, with its code cache; start then serves it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-settle-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "settle-app", "private": true }');
    fs.writeFileSync(path.join(dir, 'late.js'), "module.exports = 'late loaded';\n");
    fs.writeFileSync(path.join(dir, 'server.js'), `require('http').createServer().listen(0, () => {
  setTimeout(() => { console.log(require('./late.js'), 'at', performance.now()); if (process.env.EXIT_AFTER) process.exit(0); }, 200);
});
`);
    const packedFiles = (tar) => [...readTarEntries(fs.readFileSync(path.join(dir, tar)))].map((e) => e.path);
    const plain = await runCli(['pack', '-q', '--out', 'plain.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(plain.code, 0, plain.stderr);
    assert.ok(!packedFiles('plain.tar').includes('late.js'), 'without --after the capture ends at listen');

    const settled = await runCli(['pack', '--json', '--after', '600ms', '--code-cache', '--out', 'settled.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(settled.code, 0, settled.stderr);
    assert.ok(packedFiles('settled.tar').includes('late.js'), packedFiles('settled.tar').join(' '));
    const summary = JSON.parse(settled.stdout);
    // The app's own clock says when the late module loaded (its output goes to stderr under --json).
    const lateAt = Number(/late loaded at ([\d.]+)/.exec(settled.stderr)[1]);
    assert.ok(summary.readyAt < lateAt - 150, `readyAt is still the listen (${summary.readyAt} ms; the late module at ${lateAt} ms)`);

    const r = spawnSync(process.execPath, [BIN, 'start', '--archive', 'settled.tar', '--report-file', 'r.json', '--', 'node', 'server.js'],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, EXIT_AFTER: '1', COLDSTART_DEBUG_CACHE: '1' }, timeout: 30_000 });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.match(r.stdout, /late loaded/);
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8')).fromDisk, [], 'nothing came from disk');
    assert.match(r.stderr, /code cache used for 2 modules, rejected for 0/, 'the late module has its code cache too');

    const bad = await runCli(['pack', '--after', '1s', '--until', 'exit', '--out', 'x.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(bad.code, 2);
    assert.match(bad.stderr, /--after keeps the app running after its ready moment: not with --until exit/);
  } finally { rm(dir); }
});
