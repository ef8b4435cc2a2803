'use strict';
// `start --mode memory` with an archive that lies: a startup index of the wrong shape, an entry
// pointed at another file's bytes, a flipped byte. The app always starts, running the code on
// disk, and one warning line says why.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { runCli, rm, BIN } = require('./helpers/app.js');
const { writeArchive } = require('../lib/pack/archive.js');
const { readLeadEntry } = require('../lib/start/tar-header.js');
const { INDEX_PATH } = require('../lib/archive-format.js');
const { sealIndex } = require('../lib/pack/startup-index.js');

// Two modules of the same size whose code differs: serving one for the other shows.
async function packedApp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bad-archive-')));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"bad-archive-app"}');
  fs.writeFileSync(path.join(dir, 'a.js'), "module.exports = 'A';\n");
  fs.writeFileSync(path.join(dir, 'b.js'), "module.exports = 'B';\n");
  fs.writeFileSync(path.join(dir, 'app.js'), "console.log(`a=${require('./a.js')} b=${require('./b.js')}`);\n");
  const tar = path.join(dir, '.startup.tar');
  const r = await runCli(['pack', '-q', '--until', 'exit', '--out', tar, '--', 'node', 'app.js'], { cwd: dir });
  assert.strictEqual(r.code, 0, r.stderr);
  const lead = readLeadEntry(fs.readFileSync(tar));
  const index = JSON.parse(lead.data.toString('utf8'));
  return { dir, tar, lead, index };
}

// The same files with another index in front, written by the archive writer: a well-formed tar.
function withIndex(dir, index, change) {
  const out = path.join(dir, `.changed-${Math.random().toString(16).slice(2)}.tar`);
  const files = Object.keys(index.layout.files).filter((rel) => !rel.startsWith('.coldstart/'));
  writeArchive({
    root: dir,
    files,
    out,
    leadEntry: { path: INDEX_PATH, data: (layout) => Buffer.from(JSON.stringify(change({ ...index, layout }))) },
  });
  return out;
}

function start(dir, tar) {
  const r = spawnSync(process.execPath, [BIN, 'start', '--archive', tar, '--', 'node', 'app.js'], { cwd: dir, encoding: 'utf8', timeout: 15000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function warnings(stderr) {
  return stderr.split('\n').filter((line) => line.startsWith('coldstart: warning:'));
}

test('start: a startup index of the wrong shape is one warning, and the app starts from disk', async () => {
  const { dir, index } = await packedApp();
  try {
    const cases = {
      'resolutions is a number': (i) => ({ ...i, resolutions: 5 }),
      'a layout entry is a number': (i) => ({ ...i, layout: { ...i.layout, files: { ...i.layout.files, 'app.js': 5 } } }),
      'a resolution is not three strings': (i) => ({ ...i, resolutions: [['.', './a.js', 7]] }),
      'a format is a number': (i) => ({ ...i, formats: { ...i.formats, 'a.js': 1 } }),
      'the layout has no files': (i) => ({ ...i, layout: { ...i.layout, files: null } }),
      'the code cache entries are a string': (i) => ({ ...i, codeCache: { entries: 'x' } }),
      'an install record outside the root': (i) => ({ ...i, installRecords: [['../node_modules', '../node_modules/.package-lock.json', 3, 0]] }),
      'an install record naming another file': (i) => ({ ...i, installRecords: [['node_modules', 'node_modules/a.js', 3, 0]] }),
      'the index is a list': () => [],
      'the version is a string': (i) => ({ ...i, version: 'two' }),
    };
    for (const [name, change] of Object.entries(cases)) {
      const r = start(dir, withIndex(dir, index, change));
      assert.strictEqual(r.code, 0, `${name}: ${r.stderr}`);
      assert.strictEqual(r.stdout, 'a=A b=B\n', name);
      assert.doesNotMatch(r.stderr, /TypeError|\n\s+at /, name);
      const lines = warnings(r.stderr);
      assert.strictEqual(lines.length, 1, `${name}: ${r.stderr}`);
      assert.match(lines[0], /^coldstart: warning: the startup index of .*\.tar (is malformed \(.+\)|is version "two", .*)/, name);
      assert.match(lines[0], /starting the app without it/, name);
      assert.doesNotMatch(r.stderr, /serving/, name);
    }
  } finally { rm(dir); }
});

test('start: an index pointing an entry at another same-size entry\'s bytes runs the right code, from disk', async () => {
  const { dir, index } = await packedApp();
  try {
    const swapped = withIndex(dir, index, (i) => {
      const files = { ...i.layout.files };
      assert.strictEqual(files['a.js'][1], files['b.js'][1], 'the two modules have the same size');
      files['a.js'] = [files['b.js'][0], files['b.js'][1], files['a.js'][2]];
      return { ...i, layout: { ...i.layout, files } };
    });
    const r = start(dir, swapped);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stdout, 'a=A b=B\n');
    const lines = warnings(r.stderr);
    assert.strictEqual(lines.length, 1, r.stderr);
    assert.match(lines[0], /^coldstart: warning: the startup index of .*\.tar does not match the checksum of the archive \(corrupt, or changed after packing\); starting the app without it$/);
    assert.doesNotMatch(r.stderr, /serving/);
    // The same index rewritten unchanged still holds its seal: served from memory, no warning.
    const same = start(dir, withIndex(dir, index, (i) => i));
    assert.strictEqual(same.stdout, 'a=A b=B\n');
    assert.deepStrictEqual(warnings(same.stderr), [], same.stderr);
    assert.match(same.stderr, /coldstart: serving \d+ files/);
  } finally { rm(dir); }
});

test('start: a layout that points a file at the wrong bytes, sealed as pack seals, serves that file from disk and the rest from memory', async () => {
  const { dir, index } = await packedApp();
  try {
    const { sum, ...unsealed } = index;
    assert.ok(sum !== undefined);
    const out = path.join(dir, '.shifted.tar');
    const files = Object.keys(index.layout.files).filter((rel) => !rel.startsWith('.coldstart/'));
    writeArchive({
      root: dir,
      files,
      out,
      leadEntry: {
        path: INDEX_PATH,
        data: (layout, tailCrc) => {
          const [offset, size, crc] = layout.files['a.js'];
          return sealIndex({ ...unsealed, layout: { ...layout, files: { ...layout.files, 'a.js': [offset + 512, size, crc] } } }, tailCrc);
        },
      },
    });
    const r = start(dir, out);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stdout, 'a=A b=B\n');
    const lines = warnings(r.stderr);
    assert.strictEqual(lines.length, 1, r.stderr);
    assert.match(lines[0], /^coldstart: warning: [ab]\.js in .*\.shifted\.tar does not match what pack recorded for it \(corrupt archive\?\); such files are read from disk$/);
    assert.match(r.stderr, /coldstart: serving \d+ files/, 'the other files are still served from memory');
  } finally { rm(dir); }
});

test('start: a flipped byte in a file\'s data runs the right code, from disk', async () => {
  const { dir, tar, lead, index } = await packedApp();
  try {
    const bytes = fs.readFileSync(tar);
    const [offset, size] = index.layout.files['a.js'];
    const at = lead.end + offset + bytes.subarray(lead.end + offset, lead.end + offset + size).indexOf("'A'") + 1;
    assert.strictEqual(String.fromCharCode(bytes[at]), 'A');
    bytes[at] = 'X'.charCodeAt(0); // the tar headers still check out: only the data changed
    const flipped = path.join(dir, '.flipped.tar');
    fs.writeFileSync(flipped, bytes);
    const r = start(dir, flipped);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stdout, 'a=A b=B\n');
    const lines = warnings(r.stderr);
    assert.strictEqual(lines.length, 1, r.stderr);
    assert.match(lines[0], /\.flipped\.tar does not match the checksum of the archive/);

    // Re-made by GNU tar (no usable layout, the index still lists the checksums): the same.
    const tree = path.join(dir, '.tree');
    fs.mkdirSync(tree);
    spawnSync('tar', ['-xf', flipped, '-C', tree]);
    const remade = path.join(dir, '.remade.tar');
    spawnSync('tar', ['-cf', remade, '-C', tree, '.']);
    const walked = start(dir, remade);
    assert.strictEqual(walked.stdout, 'a=A b=B\n', walked.stderr);
    assert.strictEqual(warnings(walked.stderr).length, 1, walked.stderr);
    assert.match(walked.stderr, /warning: a\.js in .*remade\.tar does not match what pack recorded for it \(corrupt archive\?\); such files are read from disk/);
    assert.match(walked.stderr, /coldstart: serving/, 'the other files are still served from memory');
  } finally { rm(dir); }
});

test('start: an archive packed with the previous index version is one warning, and the app starts from disk', async () => {
  const { dir, index } = await packedApp();
  try {
    const old = withIndex(dir, index, (i) => ({ ...i, version: 1 }));
    const r = start(dir, old);
    assert.strictEqual(r.stdout, 'a=A b=B\n', r.stderr);
    assert.deepStrictEqual(warnings(r.stderr).length, 1, r.stderr);
    assert.match(r.stderr, /startup index of .*\.tar is version 1, this coldstart reads 2 \(re-run coldstart pack\); starting the app without it/);
  } finally { rm(dir); }
});

test('start: a forged index (sealed as pack seals) that maps `fs` or `node:fs` to a file of its own never runs it, with --trust-archive too', async () => {
  const { dir, index } = await packedApp();
  try {
    fs.writeFileSync(path.join(dir, 'app.js'), "const a = require('fs');\nconst b = require('node:fs');\nconsole.log(typeof a.readFileSync, typeof b.readFileSync);\n");
    fs.writeFileSync(path.join(dir, 'payload.js'), "console.log('PAYLOAD RAN');\nmodule.exports = {};\n");
    const out = path.join(dir, '.forged.tar');
    writeArchive({
      root: dir,
      files: ['app.js', 'payload.js'],
      out,
      leadEntry: {
        path: INDEX_PATH,
        data: (layout, tailCrc) => sealIndex({
          ...index,
          formats: { ...index.formats, 'payload.js': 'commonjs' },
          resolutions: [...index.resolutions, ['.', 'fs', 'payload.js'], ['.', 'node:fs', 'payload.js']],
          layout,
        }, tailCrc),
      },
    });
    for (const verify of [[], ['--trust-archive']]) {
      const r = spawnSync(process.execPath, [BIN, 'start', '--archive', out, ...verify, '--', 'node', 'app.js'], { cwd: dir, encoding: 'utf8', timeout: 15000 });
      assert.strictEqual(r.status, 0, r.stderr);
      assert.strictEqual(r.stdout, 'function function\n', `${verify.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /coldstart: serving \d+ files/, 'the archive was used');
    }
  } finally { rm(dir); }
});

test('start: an archive too large to read whole (a 300 MB file of zeros, sparse) is not read; one warning, and the app starts from disk in every mode', async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-huge-archive-')));
  try {
    fs.writeFileSync(path.join(dir, 'app.js'), "console.log('started');\n");
    const huge = path.join(dir, 'huge.tar');
    fs.closeSync(fs.openSync(huge, 'w'));
    fs.truncateSync(huge, 300 << 20); // no disk used: a sparse file
    for (const mode of [[], ['--mode', 'extract'], ['--into', path.join(dir, 'into')]]) {
      const r = spawnSync(process.execPath, [BIN, 'start', '--archive', huge, ...mode, '--', 'node', 'app.js'], { cwd: dir, encoding: 'utf8', timeout: 30000 });
      assert.strictEqual(r.status, 0, r.stderr);
      assert.strictEqual(r.stdout, 'started\n', mode.join(' '));
      const lines = warnings(r.stderr);
      assert.strictEqual(lines.length, 1, r.stderr);
      assert.match(lines[0], /huge\.tar: it is 300 MB, over the 256 MB an archive is read whole up to/);
    }
  } finally { rm(dir); }
});

test('start: an index over 8 MB is not parsed; one warning, and the app starts from disk', async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-big-index-')));
  try {
    fs.writeFileSync(path.join(dir, 'app.js'), "console.log('started');\n");
    const out = path.join(dir, 'big-index.tar');
    writeArchive({ root: dir, files: ['app.js'], out, leadEntry: { path: INDEX_PATH, data: () => Buffer.from(JSON.stringify({ padding: 'x'.repeat(9 << 20) })) } });
    const r = spawnSync(process.execPath, [BIN, 'start', '--archive', out, '--', 'node', 'app.js'], { cwd: dir, encoding: 'utf8', timeout: 30000 });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.strictEqual(r.stdout, 'started\n');
    const lines = warnings(r.stderr);
    assert.strictEqual(lines.length, 1, r.stderr);
    assert.match(lines[0], /the startup index of .*big-index\.tar is 9 MB, over the 8 MB an index is read up to; starting the app without it/);
  } finally { rm(dir); }
});

test('start: an archive that users other than its owner can write is not used (it could be re-sealed with any content); one warning, the app starts from disk', async () => {
  const { dir, tar } = await packedApp();
  try {
    fs.chmodSync(tar, 0o664);
    for (const mode of [[], ['--mode', 'extract']]) {
      const r = spawnSync(process.execPath, [BIN, 'start', '--archive', tar, ...mode, '--', 'node', 'app.js'], { cwd: dir, encoding: 'utf8', timeout: 15000 });
      assert.strictEqual(r.status, 0, r.stderr);
      assert.strictEqual(r.stdout, 'a=A b=B\n');
      const lines = warnings(r.stderr);
      assert.strictEqual(lines.length, 1, r.stderr);
      assert.match(lines[0], /can be written by users other than its owner \(mode 664\).*chmod go-w it; starting the app without it/);
    }
    fs.chmodSync(tar, 0o644);
    const served = start(dir, tar);
    assert.match(served.stderr, /coldstart: serving \d+ files/);
  } finally { rm(dir); }
});

test('start: a FIFO or a device named as the archive never blocks the start; one warning, the app starts from disk in every mode and through the preload', async () => {
  const { dir } = await packedApp();
  try {
    const fifo = path.join(dir, 'fifo.tar');
    assert.strictEqual(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo makes the FIFO');
    for (const archive of [fifo, '/dev/zero']) {
      const runs = [
        [BIN, 'start', '--archive', archive, '--', 'node', 'app.js'],
        [BIN, 'start', '--archive', archive, '--mode', 'extract', '--', 'node', 'app.js'],
        ['--require', path.join(__dirname, '..', 'start.js'), 'app.js'],
      ];
      for (const args of runs) {
        const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 15000, env: { ...process.env, COLDSTART_ARCHIVE: archive } });
        assert.strictEqual(r.error, undefined, `${args.join(' ')}: ${r.error && r.error.message}`);
        assert.strictEqual(r.status, 0, r.stderr);
        assert.strictEqual(r.stdout, 'a=A b=B\n');
        const lines = warnings(r.stderr);
        assert.strictEqual(lines.length, 1, r.stderr);
        assert.match(lines[0], /it is not a regular file; starting the app without it/);
      }
    }
  } finally { rm(dir); }
});
