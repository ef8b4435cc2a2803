'use strict';
// `start --mode extract` and `--into` with what a target directory may already hold, and with
// archives that do not hold the whole app: nothing is written through a link found on disk, and
// the app starts whenever the other modes would start it.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Header } = require('tar');
const { BIN } = require('./helpers/app.js');
const { writeArchive } = require('../lib/pack/archive.js');

function tempBase(t) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-extract-safety-')));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  return base;
}

// A tar with the given file entries, headers made by the tar package (no directory entries).
function rawTar(entries) {
  const blocks = [];
  for (const { name, text } of entries) {
    const data = Buffer.from(text);
    const header = new Header({ path: name, mode: 0o644, size: data.length, mtime: new Date(0), type: 'File' });
    header.encode();
    blocks.push(header.block, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

function start(cwd, args) {
  const r = spawnSync(process.execPath, [BIN, 'start', ...args], { cwd, encoding: 'utf8', timeout: 15000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function warnings(stderr) {
  return stderr.split('\n').filter((line) => line.startsWith('coldstart: warning:'));
}

test('start --mode extract: never writes through a symlink already in the target directory', (t) => {
  const base = tempBase(t);
  const app = path.join(base, 'app');
  const elsewhere = path.join(base, 'elsewhere');
  fs.mkdirSync(app);
  fs.mkdirSync(elsewhere);
  fs.writeFileSync(path.join(app, 'app.js'), "console.log('app ran');\n");
  fs.symlinkSync(elsewhere, path.join(app, 'cachedir'));
  fs.symlinkSync(elsewhere, path.join(app, 'linkdir'));
  const archive = path.join(base, 'evil.tar');
  // cachedir/evil: below a link on disk; linkdir/: a directory entry over a link; deep/ok.txt: fine.
  const blocks = [rawTar([{ name: 'cachedir/evil', text: 'evil\n' }, { name: 'deep/ok.txt', text: 'ok\n' }]).subarray(0, -1024)];
  const dir = new Header({ path: 'linkdir/', mode: 0o755, size: 0, mtime: new Date(0), type: 'Directory' });
  dir.encode();
  blocks.push(dir.block, rawTar([{ name: 'linkdir/inner/evil2', text: 'evil\n' }]));
  fs.writeFileSync(archive, Buffer.concat(blocks));

  for (const args of [['--mode', 'extract'], ['--into', app]]) {
    const r = start(app, ['--archive', archive, ...args, '--', 'node', 'app.js']);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stdout, 'app ran\n');
    assert.deepStrictEqual(fs.readdirSync(elsewhere), [], 'nothing written through the links');
    const lines = warnings(r.stderr);
    assert.strictEqual(lines.length, 1, r.stderr);
    assert.match(lines[0], /^coldstart: warning: not written through symlinks already in .*: cachedir\/evil, linkdir, linkdir\/inner\/evil2$/);
    assert.strictEqual(fs.readFileSync(path.join(app, 'deep', 'ok.txt'), 'utf8'), 'ok\n');
    assert.ok(fs.lstatSync(path.join(app, 'cachedir')).isSymbolicLink(), 'the link is left as it was');
  }
});

test('start --mode extract: a symlink at the temp name of a replaced file is never followed', (t) => {
  const { extractArchive } = require('../lib/start/extract.js');
  const base = tempBase(t);
  const into = path.join(base, 'app');
  fs.mkdirSync(into);
  fs.writeFileSync(path.join(into, 'a.txt'), 'old\n');
  fs.writeFileSync(path.join(base, 'victim.txt'), 'untouched\n');
  // The temp name the replacement uses, planted as a link to a file outside.
  fs.symlinkSync(path.join(base, 'victim.txt'), path.join(into, `a.txt.coldstart-${process.pid}`));
  const result = extractArchive(rawTar([{ name: 'a.txt', text: 'new\n' }]), into);
  assert.strictEqual(result.files, 1);
  assert.strictEqual(fs.readFileSync(path.join(into, 'a.txt'), 'utf8'), 'new\n');
  assert.strictEqual(fs.readFileSync(path.join(base, 'victim.txt'), 'utf8'), 'untouched\n');
});

test('start --into: an archive without the entry still starts the app, from the working directory', (t) => {
  const base = tempBase(t);
  const app = path.join(base, 'app');
  fs.mkdirSync(path.join(app, 'lib'), { recursive: true });
  fs.writeFileSync(path.join(app, 'app.js'), "console.log(require('./lib/greet.js') + ' from ' + process.cwd());\n");
  fs.writeFileSync(path.join(app, 'lib', 'greet.js'), "module.exports = 'hello';\n");
  const archive = path.join(base, 'partial.tar');
  writeArchive({ root: app, files: ['lib/greet.js'], out: archive });
  const into = path.join(base, 'tmpfs', 'app');

  // The other modes start it: so must --into.
  for (const mode of ['memory', 'extract']) {
    const r = start(app, ['--archive', archive, '--mode', mode, '-q', '--', 'node', 'app.js']);
    assert.strictEqual(r.code, 0, `${mode}: ${r.stderr}`);
  }
  const r = start(app, ['--archive', archive, '--into', into, '--', 'node', 'app.js']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual(r.stdout, `hello from ${app}\n`);
  const lines = warnings(r.stderr);
  assert.strictEqual(lines.length, 1, r.stderr);
  assert.match(lines[0], /^coldstart: warning: app\.js is not in .*partial\.tar; starting the app from the working directory, not .*tmpfs\/app$/);
});

test('start --into: an archive with the entry runs the app from DIR', (t) => {
  const base = tempBase(t);
  const app = path.join(base, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'app.js'), "console.log('cwd ' + process.cwd() + ' file ' + __filename);\n");
  const archive = path.join(base, 'whole.tar');
  writeArchive({ root: app, files: ['app.js'], out: archive });
  const into = path.join(base, 'tmpfs', 'app');
  const r = start(app, ['--archive', archive, '--into', into, '-q', '--', 'node', 'app.js']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual(r.stdout, `cwd ${into} file ${path.join(into, 'app.js')}\n`);
  assert.strictEqual(r.stderr, '');
});

/** An app of `files` (app.js its entry) under a new base directory, packed to base/app.tar. */
async function packedApp(t, files) {
  const { runCli } = require('./helpers/app.js');
  const base = tempBase(t);
  const app = path.join(base, 'app');
  fs.mkdirSync(app);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(app, name), text);
  const archive = path.join(base, 'app.tar');
  const packed = await runCli(['pack', '--until', 'exit', '--out', archive, '--', 'node', 'app.js'], { cwd: app });
  assert.strictEqual(packed.code, 0, packed.stderr);
  return { base, app, archive };
}

test('start --mode extract and --into: bytes damaged in a packed archive are never written over the app; the app starts from its own files', async (t) => {
  const { base, app, archive } = await packedApp(t, {
    'package.json': '{ "name": "sealed", "private": true }\n',
    'app.js': "console.log('the good code');\n",
  });
  const bytes = fs.readFileSync(archive);
  const at = bytes.indexOf('the good code');
  assert.ok(at > 0);
  bytes.write('the evil code', at); // same size: only the seal tells
  fs.writeFileSync(archive, bytes);
  for (const args of [['--mode', 'extract'], ['--into', path.join(base, 'into')]]) {
    const r = start(app, ['--archive', archive, ...args, '--', 'node', 'app.js']);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stdout, 'the good code\n', args.join(' '));
    assert.match(warnings(r.stderr).join('\n'), /does not match its checksum .*nothing written/);
    assert.strictEqual(fs.readFileSync(path.join(app, 'app.js'), 'utf8'), "console.log('the good code');\n");
  }
  assert.strictEqual(fs.existsSync(path.join(base, 'into', 'app.js')), false);
});

test('start --mode extract: a pack archive re-made by another tool (seal gone, index inside) writes only the files whose bytes pack recorded', async (t) => {
  const { base, app, archive } = await packedApp(t, {
    'package.json': '{ "name": "remade", "private": true }\n',
    'lib.js': "exports.v = 'good';\n",
    'app.js': "console.log(require('./lib.js').v);\n",
  });
  // Unpacked, one file changed, packed again with GNU tar: its own order, no seal.
  const x = path.join(base, 'x');
  fs.mkdirSync(x);
  assert.strictEqual(spawnSync('tar', ['-C', x, '-xf', archive]).status, 0);
  fs.writeFileSync(path.join(x, 'lib.js'), "exports.v = 'evil';\n");
  const remade = path.join(base, 're.tar');
  assert.strictEqual(spawnSync('tar', ['-C', x, '-cf', remade, '.']).status, 0);
  const r = start(app, ['--archive', remade, '--mode', 'extract', '--', 'node', 'app.js']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual(r.stdout, 'good\n');
  assert.match(warnings(r.stderr).join('\n'), /not written: 1 files whose bytes are not what pack recorded .*: lib\.js/);
  assert.strictEqual(fs.readFileSync(path.join(app, 'lib.js'), 'utf8'), "exports.v = 'good';\n");
});

test('start: names from the archive are printed escaped: a line break forges no log line, terminal escapes do not pass', (t) => {
  const base = tempBase(t);
  const app = path.join(base, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'app.js'), "console.log('ran');\n");
  const archive = path.join(base, 'names.tar');
  fs.writeFileSync(archive, rawTar([
    { name: 'app.js', text: "console.log('ran');\n" },
    { name: '../x\ncoldstart: serving 999 files from memory\u001b[2J', text: 'x' },
  ]));
  const r = start(app, ['--archive', archive, '--mode', 'extract', '--', 'node', 'app.js']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual(r.stdout, 'ran\n');
  assert.ok(!r.stderr.split('\n').some((line) => line.startsWith('coldstart: serving 999')), r.stderr);
  assert.ok(!r.stderr.includes('\u001b'), 'no terminal escape printed');
  assert.match(r.stderr, /refused 1 unsafe archive entries: \.\.\/x\\u000acoldstart: serving 999 files from memory\\u001b\[2J/);
});

test('start --into: a module the archive lacks, required after the ready moment, comes from the working directory with one warning; the app does not die', (t) => {
  const base = tempBase(t);
  const app = path.join(base, 'app');
  fs.mkdirSync(path.join(app, 'lib'), { recursive: true });
  fs.writeFileSync(path.join(app, 'lib', 'late.js'), "module.exports = 'late module';\n");
  fs.writeFileSync(path.join(app, 'app.js'), "setTimeout(() => console.log(require('./lib/late.js')), 10);\n");
  const archive = path.join(base, 'partial.tar');
  writeArchive({ root: app, files: ['app.js'], out: archive });
  const into = path.join(base, 'into');
  const r = start(app, ['--archive', archive, '--into', into, '-q', '--', 'node', 'app.js']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual(r.stdout, 'late module\n');
  const lines = warnings(r.stderr);
  assert.strictEqual(lines.length, 1, r.stderr);
  assert.match(lines[0], /\.\/lib\/late\.js \(required by app\.js\) is not in .*into: loaded from .*app instead/);
});
