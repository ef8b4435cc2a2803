'use strict';
// The startup archive: deterministic bytes, readable by GNU tar and by our reader, and an
// extractor that refuses entries that would write outside its directory.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { Header, Pax } = require('tar');

const { writeArchive } = require('../lib/pack/archive.js');
const { readTarEntries, readSize } = require('../lib/start/tar-reader.js');
const { extractArchive } = require('../lib/start/extract.js');
const { readLeadEntry } = require('../lib/start/tar-header.js');

const LONG_DIR = `node_modules/${'long-package-name-'.repeat(4)}x/lib/${'deeper-'.repeat(8)}y`;
const LONG_FILE = `${LONG_DIR}/${'file-'.repeat(25)}z.js`; // > 100 bytes even as a basename

function tempDir(t, prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `coldstart-${prefix}-`));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(root, rel, content, mode) {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mode !== undefined) fs.chmodSync(file, mode);
}

// An app tree with the awkward cases: exec bits, odd modes, symlinks in and out, long and
// non-ASCII names. Returns the file list a manifest would give.
function makeApp(base) {
  const root = path.join(base, 'app');
  write(root, 'server.js', 'require("./lib/a.js")\n');
  write(root, 'lib/a.js', 'module.exports = 1\n', 0o664);
  write(root, 'bin/run.sh', '#!/bin/sh\necho run\n', 0o750);
  write(root, 'config/ünïcode.json', '{"ok":true}\n');
  write(root, LONG_FILE, 'module.exports = "long"\n');
  write(root, 'packages/linked/index.js', 'module.exports = "linked"\n');
  write(base, 'outside/secret.txt', 'outside content\n');
  fs.mkdirSync(path.join(root, 'node_modules'), { recursive: true });
  fs.symlinkSync('../packages/linked', path.join(root, 'node_modules/linked'));
  fs.symlinkSync('../lib/a.js', path.join(root, 'bin/a-link.js'));
  fs.symlinkSync(path.join(root, 'server.js'), path.join(root, 'absolute-inside.js'));
  fs.symlinkSync(path.join(base, 'outside/secret.txt'), path.join(root, 'outside-link.txt'));
  return {
    root,
    files: ['server.js', 'lib/a.js', 'bin/run.sh', 'config/ünïcode.json', LONG_FILE, 'bin/a-link.js',
      'absolute-inside.js', 'node_modules/linked/index.js'],
  };
}

test('packing twice gives byte-identical archives, whatever the mtimes, modes and list order', (t) => {
  const base = tempDir(t, 'determinism');
  const app = makeApp(base);
  const first = path.join(base, 'out/first.tar');
  const second = path.join(base, 'out/second.tar');
  const extras = [{ path: '.coldstart/resolve.json', data: Buffer.from('{}') }];

  const summary = writeArchive({ root: app.root, files: [...app.files].sort(), out: first, extraEntries: extras });
  fs.utimesSync(path.join(app.root, 'server.js'), new Date(2001, 1, 1), new Date(2001, 1, 1));
  fs.chmodSync(path.join(app.root, 'lib/a.js'), 0o600);
  writeArchive({ root: app.root, files: [...app.files].reverse(), out: second, extraEntries: extras });

  assert.ok(fs.readFileSync(first).equals(fs.readFileSync(second)), 'the two archives differ');
  assert.deepStrictEqual(fs.readdirSync(path.join(base, 'out')).sort(), ['first.tar', 'second.tar']);
  // + the extra entry, + node_modules/linked itself
  assert.strictEqual(summary.files, app.files.length + 2);
  assert.strictEqual(summary.archiveBytes, fs.statSync(first).size);
  const expectedBytes = ['server.js', 'lib/a.js', 'bin/run.sh', 'config/ünïcode.json', LONG_FILE, 'packages/linked/index.js']
    .reduce((sum, rel) => sum + fs.statSync(path.join(app.root, rel)).size, 0) + 2;
  assert.strictEqual(summary.bytes, expectedBytes);
});

test('GNU tar lists sorted entries with parents, one mtime, owner 0/0 and normalised modes', (t) => {
  const base = tempDir(t, 'tvf');
  const app = makeApp(base);
  const archive = path.join(base, 'app.tar');
  writeArchive({ root: app.root, files: app.files, out: archive });

  const listing = execFileSync('tar', ['--quoting-style=literal', '-tvf', archive], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC', LC_ALL: 'C' } });
  const rows = listing.trim().split('\n').map((line) => {
    const [mode, owner, size, date, time, ...rest] = line.split(/\s+/);
    const [name, link] = rest.join(' ').split(' -> ');
    return { mode, owner, size: Number(size), when: `${date} ${time}`, name: name.replace(/\/$/, ''), link };
  });
  const names = rows.map((row) => row.name);
  assert.deepStrictEqual(names, [...names].sort(), 'entries are not sorted');
  for (const dir of ['bin', 'config', 'lib', 'node_modules', LONG_DIR]) assert.ok(names.includes(dir), `no entry for ${dir}`);
  for (const row of rows) {
    assert.strictEqual(row.owner, '0/0', row.name);
    assert.strictEqual(row.when, '1970-01-01 00:00', row.name);
  }
  const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
  assert.strictEqual(byName.bin.mode, 'drwxr-xr-x');
  assert.strictEqual(byName['lib/a.js'].mode, '-rw-r--r--');
  assert.strictEqual(byName['bin/run.sh'].mode, '-rwxr-xr-x');
  assert.strictEqual(byName['bin/a-link.js'].mode, 'lrwxrwxrwx');
  assert.strictEqual(byName['bin/a-link.js'].link, '../lib/a.js');
  assert.strictEqual(byName['absolute-inside.js'].link, 'server.js', 'absolute link inside root made relative');
  assert.ok(!names.includes('outside-link.txt'), 'a link leaving the root is never packed');
  // A path through a symlinked directory: stored at its real place, plus the link.
  assert.strictEqual(byName['node_modules/linked'].link, '../packages/linked');
  assert.ok(byName['packages/linked/index.js']);
  assert.ok(!names.some((name) => name.startsWith('node_modules/linked/')), 'nothing below a symlink');
  assert.ok(byName[LONG_FILE], 'long path listed in full');
  assert.ok(byName['config/ünïcode.json'], 'non-ASCII name listed');
});

test('pack: a symlink out of the root given to the archive writer is refused, never stored as its content', (t) => {
  const base = tempDir(t, 'link-out');
  const app = makeApp(base);
  const out = path.join(base, 'out.tar');
  assert.throws(() => writeArchive({ root: app.root, files: [...app.files, 'outside-link.txt'], out }),
    (err) => err.code === 'PACK_PATH_ESCAPES' && /outside-link\.txt/.test(err.message));
  assert.strictEqual(fs.existsSync(out), false);
});

test('an archive reads back the same through tar-reader and through GNU tar xf', (t) => {
  const base = tempDir(t, 'roundtrip');
  const app = makeApp(base);
  const archive = path.join(base, 'app.tar');
  writeArchive({ root: app.root, files: app.files, out: archive });

  const entries = [...readTarEntries(fs.readFileSync(archive))];
  const byPath = Object.fromEntries(entries.map((entry) => [entry.path.replace(/\/$/, ''), entry]));
  assert.strictEqual(byPath[LONG_FILE].data.toString(), 'module.exports = "long"\n');
  assert.strictEqual(byPath['config/ünïcode.json'].data.toString(), '{"ok":true}\n');
  assert.strictEqual(byPath['bin/a-link.js'].type, 'symlink');
  assert.strictEqual(byPath['bin/a-link.js'].linkpath, '../lib/a.js');
  assert.strictEqual(byPath['bin/run.sh'].mode, 0o755);
  assert.strictEqual(byPath[LONG_DIR].type, 'dir');

  const viaGnu = path.join(base, 'gnu');
  const viaOurs = path.join(base, 'ours');
  fs.mkdirSync(viaGnu);
  execFileSync('tar', ['xf', archive, '-C', viaGnu]);
  const result = extractArchive(fs.readFileSync(archive), viaOurs);
  assert.deepStrictEqual(result.refused, []);
  assert.strictEqual(result.files, app.files.length + 1);
  for (const dir of [viaGnu, viaOurs]) {
    for (const rel of app.files) {
      assert.strictEqual(fs.readFileSync(path.join(dir, rel), 'utf8'), fs.readFileSync(path.join(app.root, rel), 'utf8'), rel);
    }
    assert.strictEqual(fs.readlinkSync(path.join(dir, 'bin/a-link.js')), '../lib/a.js');
    assert.strictEqual(fs.statSync(path.join(dir, 'bin/run.sh')).mode & 0o111, 0o111);
  }
});

test('a lead entry comes first and lays out every later file: each one\'s bytes lie where the layout says', (t) => {
  const base = tempDir(t, 'layout');
  const app = makeApp(base);
  const archive = path.join(base, 'laid-out.tar');
  const lead = { path: '.meta/index.json', data: (layout) => Buffer.from(JSON.stringify({ layout })) };
  writeArchive({ root: app.root, files: app.files, out: archive, extraEntries: [{ path: '.meta/blob.bin', data: Buffer.from('blob') }], leadEntry: lead });

  const listing = execFileSync('tar', ['-tf', archive], { encoding: 'utf8' }).trim().split('\n');
  assert.deepStrictEqual(listing.slice(0, 2), ['.meta/', '.meta/index.json']);
  const buffer = fs.readFileSync(archive);
  const found = readLeadEntry(buffer);
  assert.strictEqual(found.path, '.meta/index.json');
  const { layout } = JSON.parse(found.data.toString('utf8'));
  assert.strictEqual(buffer.length - found.end, layout.tailBytes, 'the layout counts every byte after the lead');
  const bytesOf = (rel) => {
    const [offset, size] = layout.files[rel];
    assert.strictEqual(readSize(buffer, found.end + offset - 512), size, `${rel}: its own tar header just before its bytes`);
    return buffer.subarray(found.end + offset, found.end + offset + size);
  };
  // Every file the walk finds after the lead, byte for byte, long and non-ASCII names included.
  let walked = 0;
  for (const entry of readTarEntries(buffer)) {
    if (entry.type !== 'file' || entry.path.startsWith('.meta/')) continue;
    walked += 1;
    assert.ok(bytesOf(entry.path).equals(entry.data), entry.path);
  }
  assert.strictEqual(walked, layout.count);
  assert.ok(Object.hasOwn(layout.files, LONG_FILE) && Object.hasOwn(layout.files, 'config/ünïcode.json'));
  assert.strictEqual(bytesOf('.meta/blob.bin').toString(), 'blob');
  assert.strictEqual(Object.hasOwn(layout.files, 'lib/missing.js'), false);
  // Packing the same files again gives the same bytes.
  const again = path.join(base, 'again.tar');
  writeArchive({ root: app.root, files: [...app.files].reverse(), out: again, extraEntries: [{ path: '.meta/blob.bin', data: Buffer.from('blob') }], leadEntry: lead });
  assert.ok(fs.readFileSync(again).equals(buffer));
});

test('packing refuses paths that escape the root and leaves no temp file', (t) => {
  const base = tempDir(t, 'escape');
  const app = makeApp(base);
  const out = path.join(base, 'out/app.tar');
  for (const bad of ['../outside/secret.txt', '/etc/hostname', 'lib/../../outside/secret.txt']) {
    assert.throws(() => writeArchive({ root: app.root, files: ['server.js', bad], out }),
      (err) => err.code === 'PACK_PATH_ESCAPES', bad);
  }
  fs.mkdirSync(path.join(base, 'out'), { recursive: true });
  assert.throws(() => writeArchive({ root: app.root, files: ['server.js', 'missing.js'], out }),
    (err) => err.code === 'PACK_MISSING_FILE');
  assert.deepStrictEqual(fs.readdirSync(path.join(base, 'out')), []);
});

test('tar-reader reads GNU and pax archives made by GNU tar, hard links included', (t) => {
  const base = tempDir(t, 'gnu-formats');
  const app = makeApp(base);
  fs.linkSync(path.join(app.root, 'server.js'), path.join(app.root, 'server-hardlink.js'));
  for (const format of ['gnu', 'posix']) {
    const archive = path.join(base, `${format}.tar`);
    execFileSync('tar', [`--format=${format}`, '-cf', archive, '-C', app.root, '.']);
    const entries = [...readTarEntries(fs.readFileSync(archive))];
    const long = entries.find((entry) => entry.path === `./${LONG_FILE}`);
    assert.ok(long, `${format}: long name not read`);
    assert.strictEqual(long.data.toString(), 'module.exports = "long"\n');
    const into = path.join(base, `into-${format}`);
    const result = extractArchive(fs.readFileSync(archive), into);
    // Absolute link targets are refused even when they point inside: after --into they would not.
    assert.deepStrictEqual(result.refused.sort(), ['./absolute-inside.js', './outside-link.txt'], format);
    assert.strictEqual(fs.readFileSync(path.join(into, 'server-hardlink.js'), 'utf8'), 'require("./lib/a.js")\n');
    assert.strictEqual(fs.readFileSync(path.join(into, LONG_FILE), 'utf8'), 'module.exports = "long"\n');
  }
});

test('archives without directory entries extract (tar -T list)', (t) => {
  const base = tempDir(t, 'no-dirs');
  const app = makeApp(base);
  const archive = path.join(base, 'files.tar');
  execFileSync('tar', ['--no-recursion', '-cf', archive, '-C', app.root, 'lib/a.js', LONG_FILE]);
  const into = path.join(base, 'into');
  const result = extractArchive(fs.readFileSync(archive), into);
  assert.strictEqual(result.files, 2);
  assert.strictEqual(fs.readFileSync(path.join(into, LONG_FILE), 'utf8'), 'module.exports = "long"\n');
});

test('a corrupt or truncated archive throws ARCHIVE_CORRUPT and writes nothing', (t) => {
  const base = tempDir(t, 'corrupt');
  const app = makeApp(base);
  const archive = path.join(base, 'app.tar');
  writeArchive({ root: app.root, files: app.files, out: archive });
  const good = fs.readFileSync(archive);

  const flipped = Buffer.from(good);
  const lastFile = [...readTarEntries(good)].filter((entry) => entry.type === 'file').pop();
  const lastHeader = lastFile.data.byteOffset - good.byteOffset - 512;
  flipped[lastHeader + 1] ^= 0x01; // a name byte of the last header: its checksum no longer matches
  const truncated = good.subarray(0, 2048 + 512 + 100);
  for (const [name, bad] of [['flipped', flipped], ['truncated', truncated], ['empty', Buffer.alloc(0)]]) {
    const into = path.join(base, `into-${name}`);
    assert.throws(() => extractArchive(bad, into), (err) => err.code === 'ARCHIVE_CORRUPT' && /corrupt archive/.test(err.message), name);
    assert.strictEqual(fs.existsSync(into), false, `${name}: something was written`);
  }
});

// Builds a tar by hand, header by header, to get entries no honest packer writes.
function rawTar(entries) {
  const blocks = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data || '');
    const header = new Header({
      path: entry.path, mode: entry.mode || 0o644, uid: 0, gid: 0, size: data.length,
      mtime: new Date(0), type: entry.type || 'File', linkpath: entry.linkpath,
    });
    if (header.encode()) blocks.push(new Pax({ path: entry.path, linkpath: entry.linkpath }).encode());
    blocks.push(header.block, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

test('extraction refuses .., absolute and escaping-symlink entries and keeps going', (t) => {
  const base = tempDir(t, 'malicious');
  const into = path.join(base, 'deep/into');
  const victim = path.join(base, 'victim.txt');
  const archive = rawTar([
    { path: 'ok.txt', data: 'fine\n' },
    { path: '../deep/escaped.txt', data: 'evil\n' },
    { path: 'sub/../../../escaped2.txt', data: 'evil\n' },
    { path: victim, data: 'evil\n' },
    { path: 'up', type: 'SymbolicLink', linkpath: '../..' },
    { path: 'abs', type: 'SymbolicLink', linkpath: base },
    { path: 'dot', type: 'SymbolicLink', linkpath: '.' },
    { path: 'tricky', type: 'SymbolicLink', linkpath: 'dot/../../x' },
    { path: 'dot/through.txt', data: 'written below an archived symlink\n' },
    { path: 'sub/good-link.js', type: 'SymbolicLink', linkpath: '../ok.txt' },
    { path: 'after.txt', data: 'still extracted\n' },
  ]);
  const result = extractArchive(archive, into);
  assert.deepStrictEqual(result.refused.sort(), [
    '../deep/escaped.txt', victim, 'abs', 'dot/through.txt', 'sub/../../../escaped2.txt', 'tricky', 'up',
  ].sort());
  assert.strictEqual(fs.readFileSync(path.join(into, 'after.txt'), 'utf8'), 'still extracted\n');
  assert.strictEqual(fs.readFileSync(path.join(into, 'sub/good-link.js'), 'utf8'), 'fine\n');
  assert.strictEqual(fs.readlinkSync(path.join(into, 'dot')), '.');
  assert.deepStrictEqual(fs.readdirSync(base).sort(), ['deep']);
  assert.deepStrictEqual(fs.readdirSync(path.join(base, 'deep')), ['into']);
});

test('extracting over an existing tree replaces files and never writes through an existing symlink', (t) => {
  const base = tempDir(t, 'in-place');
  const into = path.join(base, 'app');
  write(into, 'a.txt', 'old content that is longer than the new one\n');
  write(base, 'victim.txt', 'untouched\n');
  fs.symlinkSync(path.join(base, 'victim.txt'), path.join(into, 'b.txt'));
  const archive = rawTar([
    { path: 'a.txt', data: 'new\n' },
    { path: 'b.txt', data: 'replaced link\n', mode: 0o755 },
  ]);
  const result = extractArchive(archive, into);
  assert.strictEqual(result.files, 2);
  assert.strictEqual(fs.readFileSync(path.join(into, 'a.txt'), 'utf8'), 'new\n');
  assert.strictEqual(fs.lstatSync(path.join(into, 'b.txt')).isFile(), true);
  assert.strictEqual(fs.statSync(path.join(into, 'b.txt')).mode & 0o111, 0o111);
  assert.strictEqual(fs.readFileSync(path.join(base, 'victim.txt'), 'utf8'), 'untouched\n');
  assert.deepStrictEqual(fs.readdirSync(into).sort(), ['a.txt', 'b.txt'], 'no temp file left');
});

test('the startup index is the same whatever order the modules loaded in', () => {
  const { buildStartupIndex } = require('../lib/pack/startup-index.js');
  const rel = (f) => f.replace('/app/', '');
  const modules = [
    { file: '/app/index.js', kind: 'esm' },
    { file: '/app/node_modules/a/index.js', kind: 'esm' },
    { file: '/app/node_modules/b/index.cjs', kind: 'cjs' },
    { file: '/app/data.json', kind: 'json' },
  ];
  const esmResolutions = [
    ['/app/index.js', 'a', '/app/node_modules/a/index.js'],
    ['/app/index.js', 'b', '/app/node_modules/b/index.cjs'],
    ['/app/node_modules/a/index.js', '../../data.json', '/app/data.json'],
  ];
  const one = buildStartupIndex({ modules, resolutions: [], esmResolutions }, () => 'module', rel);
  const other = buildStartupIndex({
    modules: [...modules].reverse(),
    resolutions: [],
    esmResolutions: [...esmResolutions].reverse().concat([esmResolutions[0]]),
  }, () => 'module', rel);
  assert.strictEqual(JSON.stringify(other), JSON.stringify(one));
  assert.deepStrictEqual(Object.keys(one.formats), ['data.json', 'index.js', 'node_modules/a/index.js', 'node_modules/b/index.cjs']);
  assert.strictEqual(one.esmResolutions.length, 3, 'a resolution recorded twice is kept once');
});

test('the checksum benchmark\'s table CRC-32 (for Node without zlib.crc32) gives the same sums as zlib', () => {
  const { CRC32_MODULE } = require('../bench/checksum-cost.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-crc32-'));
  fs.writeFileSync(path.join(dir, 'crc32.js'), CRC32_MODULE);
  const { crc32, tableCrc32 } = require(path.join(dir, 'crc32.js'));
  fs.rmSync(dir, { recursive: true, force: true });
  const zlib = require('node:zlib');
  const samples = [Buffer.alloc(0), Buffer.from('123456789'), require('node:crypto').randomBytes(70001)];
  assert.strictEqual(tableCrc32(samples[1]), 0xcbf43926, 'the standard check value');
  for (const data of samples) {
    assert.strictEqual(tableCrc32(data), crc32(data));
    if (typeof zlib.crc32 === 'function') assert.strictEqual(tableCrc32(data), zlib.crc32(data));
  }
});

test('the package type of a file: a bad package.json between it and a "type": "module" one above makes it CommonJS, as in the app', () => {
  const { packageTypeReader } = require('../lib/in-app/package-type.cjs');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-package-type-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }');
    for (const sub of ['bad', 'plain', 'none', 'node_modules/dep']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
    fs.writeFileSync(path.join(dir, 'bad', 'package.json'), '{ "type": "module", ');
    fs.writeFileSync(path.join(dir, 'plain', 'package.json'), '{}');
    const typeOf = packageTypeReader();
    assert.strictEqual(typeOf(path.join(dir, 'bad', 'a.js')), 'commonjs', 'a package.json that does not parse is not skipped');
    assert.strictEqual(typeOf(path.join(dir, 'plain', 'a.js')), 'commonjs');
    assert.strictEqual(typeOf(path.join(dir, 'none', 'a.js')), 'module');
    assert.strictEqual(typeOf(path.join(dir, 'node_modules', 'dep', 'a.js')), 'commonjs', 'the walk stops at node_modules');
    assert.strictEqual(typeOf(path.join(dir, 'a.js')), 'module');
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});
