'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { copyFixture, runCli, rm, BIN, runNodeUntil } = require('./helpers/app.js');

const startUntilListen = (dir, args, pattern) => runNodeUntil(dir, [BIN, 'start', ...args], pattern);

const EXIT_ON_LISTEN = path.join(os.tmpdir(), `cs-exit-on-listen-${process.pid}.js`);
fs.writeFileSync(EXIT_ON_LISTEN, `const net = require('net'); const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function (ev) { if (ev === 'listening') setImmediate(() => process.exit(0)); return emit.apply(this, arguments); };\n`);
test.after(() => fs.rmSync(EXIT_ON_LISTEN, { force: true }));

async function packed(fixture, entry) {
  const dir = copyFixture(fixture);
  const tar = path.join(dir, '.startup.tar');
  const r = await runCli(['pack', '-q', '--out', tar, '--', 'node', entry], { cwd: dir });
  assert.strictEqual(r.code, 0, r.stderr);
  return { dir, tar };
}

// One copy of express-app, packed once, for the tests below that add files beside it or put back
// what they change: a copy of its 68 packages and a pack cost more than most of these tests.
let express = null;
test.after(() => express && rm(express.dir));
async function packedExpress() {
  if (!express) express = await packed('express-app', 'server.js');
  return express;
}

test('--mode memory: express starts with modules served from the archive', async () => {
  const { dir, tar } = await packedExpress();
  const out = await startUntilListen(dir, ['--archive', tar, '--mode', 'memory', '--', 'node', 'server.js'], /express-app listening on \d+/);
  assert.match(out, /coldstart: serving \d+ files, .* from memory \(\d+ resolutions[,;)]/);
  assert.doesNotMatch(out, /warning/);
});

for (const codeCache of [false, true]) {
  test(`--mode memory${codeCache ? ' with --code-cache' : ''} keeps module identity: __filename, require.cache, require.resolve, module.paths, stack columns, import()`, async () => {
    const { dir } = await packedExpress();
    fs.writeFileSync(path.join(dir, 'probe.js'), `'use strict';
const express = require('express');
const fs = require('fs');
const file = require.resolve('express');
let thrown; try { JSON.parse('{bad'); } catch (err) { thrown = err.stack.split('\\n')[1].trim(); }
const info = { filename: __filename, dirname: __dirname, main: require.main === module,
  resolved: file, cached: Object.keys(require.cache).includes(file), paths: module.paths[0],
  resolvePaths: require.resolve.paths('x')[0], hasExtensions: typeof require.extensions['.js'],
  stack: new Error('x').stack.split('\\n')[1].trim(), thrown };
import('node:os').then((os) => {
  info.dynamicImport = typeof os.cpus;
  fs.writeFileSync(process.env.OUT, JSON.stringify(info));
  require('http').createServer().listen(0, function () { console.log('probe listening'); });
});
`);
    const variant = codeCache ? 'cache' : 'plain';
    const tar = path.join(dir, `.probe-${variant}.tar`);
    const r = await runCli(['pack', '-q', ...(codeCache ? ['--code-cache'] : []), '--out', tar, '--', 'node', 'probe.js'], { cwd: dir, env: { OUT: path.join(dir, `pack-${variant}.json`) } });
    assert.strictEqual(r.code, 0, r.stderr);
    const plainOut = path.join(dir, `node-${variant}.json`);
    const memOut = path.join(dir, `memory-${variant}.json`);
    spawnSync(process.execPath, ['-r', EXIT_ON_LISTEN, 'probe.js'], { cwd: dir, env: { ...process.env, OUT: plainOut } });
    const started = spawnSync(process.execPath, [BIN, 'start', '--archive', tar, '--mode', 'memory', '--', 'node', '-r', EXIT_ON_LISTEN, 'probe.js'],
      { cwd: dir, env: { ...process.env, OUT: memOut, COLDSTART_DEBUG_CACHE: '1' }, encoding: 'utf8' });
    assert.doesNotMatch(started.stderr, /Warning/);
    if (codeCache) assert.match(started.stderr, /code cache used for [1-9]\d* modules, rejected for 0/);
    const plain = JSON.parse(fs.readFileSync(plainOut, 'utf8'));
    assert.strictEqual(plain.dynamicImport, 'function');
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(memOut, 'utf8')), plain);
  });
}

function fileSyscalls(cwd, args) {
  const log = path.join(cwd, `.strace-${Math.random().toString(16).slice(2)}`);
  const r = spawnSync('strace', ['-f', '-c', '-o', log, process.execPath, ...args], { cwd, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  const text = fs.readFileSync(log, 'utf8');
  let n = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(statx|stat|lstat|newfstatat|openat|open|read|pread64|close|readlink)$/.exec(line);
    if (m) n += Number(m[1]);
  }
  return n;
}

const hasStrace = spawnSync('strace', ['-V']).status === 0;
test('--mode memory makes far fewer file syscalls than a plain start', { skip: !hasStrace && !process.env.CI ? 'SKIPPED: strace is not installed' : false }, async () => {
  const { dir, tar } = await packedExpress();
  const plain = fileSyscalls(dir, ['-r', EXIT_ON_LISTEN, 'server.js']);
  const memory = fileSyscalls(dir, [BIN, 'start', '-q', '--archive', tar, '--mode', 'memory', '--', 'node', '-r', EXIT_ON_LISTEN, 'server.js']);
  assert.ok(memory < plain * 0.4, `memory ${memory} file syscalls vs plain ${plain}`);
});

test('--mode memory: a file changed after packing is read from disk, with one warning', async () => {
  const { dir, tar } = await packedExpress();
  const config = path.join(dir, 'config.json');
  const packedText = fs.readFileSync(config);
  const packedStat = fs.statSync(config);
  try {
    fs.writeFileSync(config, '{ "name": "changed-after-pack" }');
    const out = await startUntilListen(dir, ['--archive', tar, '--mode', 'memory', '--', 'node', 'server.js'], /express-app listening/);
    assert.strictEqual((out.match(/warning: config\.json changed on disk after the archive/g) || []).length, 1, out);
  } finally {
    // As packed again (its size and modification time) for the other tests of the copy.
    fs.writeFileSync(config, packedText);
    fs.utimesSync(config, packedStat.atime, packedStat.mtime);
  }
});

test('--mode memory: an archive from another Node version is ignored with a warning', async () => {
  const { dir, tar } = await packed('plain-http', 'server.js');
  try {
    // Rewrite the index entry's Node version, keeping the tar valid.
    const extracted = path.join(dir, 'x');
    fs.mkdirSync(extracted);
    spawnSync('tar', ['-xf', tar, '-C', extracted]);
    const indexFile = path.join(extracted, '.coldstart', 'startup-index.json');
    const index = JSON.parse(fs.readFileSync(indexFile, 'utf8'));
    index.node = 'v18.0.0';
    fs.writeFileSync(indexFile, JSON.stringify(index));
    const other = path.join(dir, 'other.tar');
    spawnSync('tar', ['-cf', other, '-C', extracted, '.']);
    const out = await startUntilListen(dir, ['--archive', other, '--mode', 'memory', '--', 'node', 'server.js'], /plain-http listening/);
    assert.match(out, /warning: .* packed with Node v18\.0\.0/);
    assert.doesNotMatch(out, /serving/);
  } finally { rm(dir); }
});

test('--mode memory with --code-cache: a hook that replaces a module\'s _compile still sees its source', async () => {
  const dir = copyFixture('plain-http');
  try {
    fs.writeFileSync(path.join(dir, 'greet.js'), "module.exports = 'plain';\n");
    fs.writeFileSync(path.join(dir, 'hook.js'), `const Module = require('module');
const previous = Module._extensions['.js'];
Module._extensions['.js'] = function (mod, filename) {
  if (filename.endsWith('greet.js')) {
    const compile = mod._compile;
    mod._compile = function (source, file) { return compile.call(this, source.replace('plain', 'hooked'), file); };
  }
  return previous(mod, filename);
};
`);
    fs.writeFileSync(path.join(dir, 'app.js'), "console.log('greeting ' + require('./greet.js'));\nrequire('http').createServer().listen(0, () => console.log('hooked-app listening'));\n");
    const tar = path.join(dir, '.s.tar');
    const r = await runCli(['pack', '-q', '--code-cache', '--out', tar, '--', 'node', '-r', './hook.js', 'app.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const out = await startUntilListen(dir, ['--archive', tar, '--', 'node', '-r', './hook.js', 'app.js'], /hooked-app listening/);
    assert.match(out, /greeting hooked/);
    assert.match(out, /code cache for \d+ modules/);
  } finally { rm(dir); }
});

test('--mode memory with --code-cache: a module that mentions import( is served from the cache where Node keeps its import() (22 and later)', async () => {
  const dir = copyFixture('plain-http');
  try {
    // A JSDoc type import, as many packages have, and a real import() called at startup.
    fs.writeFileSync(path.join(dir, 'sep.js'), "/** @type {import('./sep')} */\nmodule.exports = async () => (await import('node:path')).sep + require('./plain.js');\n");
    fs.writeFileSync(path.join(dir, 'plain.js'), "module.exports = 'plain';\n");
    fs.writeFileSync(path.join(dir, 'app.js'), "require('./sep.js')().then((v) => {\n  console.log('imported ' + v);\n  require('http').createServer().listen(0, () => console.log('import-app listening'));\n});\n");
    const tar = path.join(dir, '.s.tar');
    const r = await runCli(['pack', '-q', '--code-cache', '--out', tar, '--', 'node', 'app.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const started = spawnSync(process.execPath, [BIN, 'start', '--archive', tar, '--', 'node', '-r', EXIT_ON_LISTEN, 'app.js'],
      { cwd: dir, env: { ...process.env, COLDSTART_DEBUG_CACHE: '1' }, encoding: 'utf8' });
    assert.strictEqual(started.status, 0, started.stderr);
    assert.match(started.stdout, /imported \/plain/);
    assert.doesNotMatch(started.stderr, /Warning/); // the loader option is coldstart's, not the app's
    const used = Number(/code cache used for (\d+) modules, rejected for 0/.exec(started.stderr)[1]);
    const importKept = Number(process.versions.node.split('.')[0]) >= 22;
    // app.js and plain.js always; sep.js only where a cached script keeps its import() callback.
    assert.strictEqual(used, importKept ? 3 : 2, started.stderr);
  } finally { rm(dir); }
});

test('--mode memory with --code-cache: ASCII sources are kept outside V8\'s heap; UTF-8, byte-order-mark and hashbang modules are served as they are', async () => {
  const dir = copyFixture('plain-http');
  try {
    // 24 modules of ~150 kB of ASCII: 3.6 MB of source that a plain start decodes into V8's heap.
    const names = [];
    for (let i = 0; i < 24; i++) {
      const fns = [];
      for (let j = 0; j < 4000; j++) fns.push(`function f${j}(a) { return a + ${j}; }\n`);
      fs.writeFileSync(path.join(dir, `big${i}.js`), `${fns.join('')}module.exports = f${i} && ${i};\n`);
      names.push(`big${i}.js`);
    }
    fs.writeFileSync(path.join(dir, 'utf8.js'), "module.exports = 'café ✓ ' + new Error('x').stack.split('\\n')[1].trim();\n");
    fs.writeFileSync(path.join(dir, 'bom.js'), "\uFEFFmodule.exports = 'bom ' + new Error('x').stack.split('\\n')[1].trim();\n");
    fs.writeFileSync(path.join(dir, 'hashbang.js'), "#!/usr/bin/env node\nmodule.exports = 'hashbang';\n");
    // Filling its last 512-byte tar block: no padding after it for the wrapper's tail.
    const full = "module.exports = 'full';\n";
    fs.writeFileSync(path.join(dir, 'full.js'), `${full}//${'x'.repeat(1024 - full.length - 3)}\n`);
    fs.writeFileSync(path.join(dir, 'app.js'), `const sum = ${JSON.stringify(names)}.reduce((n, f) => n + require('./' + f), 0);
const line = [sum, require('./utf8.js'), require('./bom.js'), require('./hashbang.js'), require('./full.js'), new Error('x').stack.split('\\n')[1].trim()].join(' | ');
require('http').createServer().listen(0, () => { console.log(line); console.log('memory ' + JSON.stringify(process.memoryUsage())); });
`);
    const tar = path.join(dir, '.s.tar');
    const r = await runCli(['pack', '-q', '--code-cache', '--out', tar, '--', 'node', 'app.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const plain = spawnSync(process.execPath, ['-r', EXIT_ON_LISTEN, 'app.js'], { cwd: dir, encoding: 'utf8' });
    const started = spawnSync(process.execPath, [BIN, 'start', '--trust-archive', '--archive', tar, '--', 'node', '-r', EXIT_ON_LISTEN, 'app.js'],
      { cwd: dir, env: { ...process.env, COLDSTART_DEBUG_CACHE: '1' }, encoding: 'utf8' });
    assert.strictEqual(started.status, 0, started.stderr);
    // Every module but the one with a hashbang (which the wrapper cannot hold) from the cache.
    assert.match(started.stderr, new RegExp(`code cache used for ${names.length + 4} modules, rejected for 0`));
    assert.strictEqual(started.stdout.split('\n')[0], plain.stdout.split('\n')[0]);
    assert.match(started.stdout, /^276 \| café ✓ at Object.<anonymous> \(.*utf8\.js:1:\d+\) \| bom at .*bom\.js:1:\d+\) \| hashbang \| full \| at Object/);
    // The sources are outside V8's heap, not copies in it: a plain start holds them in its heap.
    const sources = names.reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    const heap = (out) => JSON.parse(/memory (.*)/.exec(out)[1]).heapUsed;
    assert.ok(heap(started.stdout) < heap(plain.stdout) - 0.6 * sources, `heap used under start ${heap(started.stdout)}, plain ${heap(plain.stdout)}, sources ${sources}`);
  } finally { rm(dir); }
});

test('--mode memory: the archive re-made by GNU tar (no layout) is walked and still served', async () => {
  const { dir, tar } = await packedExpress();
  const extracted = path.join(dir, 'x');
  const remade = path.join(dir, 'remade.tar');
  try {
    fs.mkdirSync(extracted);
    spawnSync('tar', ['-xf', tar, '-C', extracted]);
    spawnSync('tar', ['-cf', remade, '-C', extracted, '.']);
    const out = await startUntilListen(dir, ['--archive', remade, '--mode', 'memory', '--', 'node', 'server.js'], /express-app listening on \d+/);
    const original = await startUntilListen(dir, ['--archive', tar, '--mode', 'memory', '--', 'node', 'server.js'], /express-app listening on \d+/);
    const served = (text) => /coldstart: serving (\d+ files, [^(]+)\((\d+) resolutions/.exec(text).slice(1).join(' ');
    assert.strictEqual(served(out), served(original));
    assert.doesNotMatch(out, /warning/);
  } finally { rm(extracted); rm(remade); }
});

test('--mode memory: a hand-made tar with a code-cache entry but no index still starts the app', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-noindex-'));
  try {
    const tree = path.join(dir, 'tree');
    fs.mkdirSync(path.join(tree, '.coldstart'), { recursive: true });
    fs.writeFileSync(path.join(tree, '.coldstart', 'code-cache.bin'), 'not a cache');
    fs.writeFileSync(path.join(tree, 'app.js'), "require('http').createServer().listen(0, () => console.log('noindex listening'));\n");
    fs.copyFileSync(path.join(tree, 'app.js'), path.join(dir, 'app.js'));
    const tar = path.join(dir, 'hand.tar');
    spawnSync('tar', ['-cf', tar, '-C', tree, '.']);
    const out = await startUntilListen(dir, ['--archive', tar, '--', 'node', 'app.js'], /noindex listening/);
    assert.match(out, /coldstart: serving 1 files, \d+ B from memory \(0 resolutions: no startup index, packed with --manifest or by hand, so Node resolves\)/);
    assert.doesNotMatch(out, /code cache|TypeError/);
  } finally { rm(dir); }
});

test('--mode memory: an ESM app starts (in-thread ESM hooks where Node has them, else Node\'s loader)', async () => {
  const { dir, tar } = await packed('esm-app', 'index.js');
  try {
    const out = await startUntilListen(dir, ['--archive', tar, '--mode', 'memory', '--', 'node', 'index.js'], /esm-app listening/);
    assert.match(out, /serving/);
    const inThreadHooks = typeof require('module').registerHooks === 'function';
    assert.strictEqual(/3 ES modules[,)]/.test(out), inThreadHooks, out);
    // Where they cannot be served, the start line says so plainly.
    assert.strictEqual(/3 ES modules read from disk: Node [\d.]+ has no in-thread loader hooks/.test(out), !inThreadHooks, out);
  } finally { rm(dir); }
});

test('--mode memory: a few ES modules among many CommonJS resolutions are left to Node\'s loader, where hooks would cost more than they save', async () => {
  const dir = copyFixture('plain-http');
  try {
    // An ES module entry that imports one more and requires 200 CommonJS files.
    fs.mkdirSync(path.join(dir, 'parts'));
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(dir, 'parts', `p${i}.js`), `module.exports = ${i};\n`);
    fs.writeFileSync(path.join(dir, 'late.mjs'), "export const word = 'from esm';\n");
    fs.writeFileSync(path.join(dir, 'app.mjs'), `import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { word } from './late.mjs';
const require = createRequire(import.meta.url);
let sum = 0;
for (let i = 0; i < 200; i++) sum += require('./parts/p' + i + '.js');
console.log('sum ' + sum + ' ' + word);
createServer().listen(0, () => console.log('mixed-app listening'));
`);
    const tar = path.join(dir, '.s.tar');
    const r = await runCli(['pack', '-q', '--out', tar, '--', 'node', 'app.mjs'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const out = await startUntilListen(dir, ['--archive', tar, '--trust-archive', '--', 'node', 'app.mjs'], /mixed-app listening/);
    assert.match(out, /sum 19900 from esm/);
    if (typeof require('module').registerHooks === 'function') {
      assert.match(out, /\(201 resolutions; 2 ES modules read from disk \(loader hooks would slow its 200 CommonJS resolutions more than they save\)\)/);
    }
    assert.doesNotMatch(out, /warning/);
  } finally { rm(dir); }
});

test('--mode memory: loader hooks pay for an app of ES modules, not for a few among many CommonJS resolutions', () => {
  const { esmHooksPay } = require('../lib/start/memory-esm-hooks.js');
  assert.strictEqual(esmHooksPay(301, 300), true); // the 300-module ES module fixture
  assert.strictEqual(esmHooksPay(3, 2243), false); // express + googleapis + firebase-admin
  assert.strictEqual(esmHooksPay(0, 0), false);
});

test('--mode memory: ES modules keep their identity: import.meta, import() from a served module, stack columns', async () => {
  const dir = copyFixture('esm-app');
  try {
    fs.writeFileSync(path.join(dir, 'lib', 'where.js'), `export function where() {
  let thrown; try { JSON.parse('{bad'); } catch (err) { thrown = err.stack.split('\\n')[1].trim(); }
  return { url: import.meta.url, filename: import.meta.filename ?? null, dirname: import.meta.dirname ?? null,
    stack: new Error('x').stack.split('\\n')[1].trim(), thrown };
}
export const late = () => import('./greeting.js');
`);
    fs.writeFileSync(path.join(dir, 'probe.js'), `import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { where, late } from './lib/where.js';
const info = { main: import.meta.url, where: where(), resolved: import.meta.resolve('./lib/greeting.js') };
info.dynamic = (await late()).greeting;
writeFileSync(process.env.OUT, JSON.stringify(info));
createServer().listen(0, () => console.log('probe listening'));
`);
    const tar = path.join(dir, '.s.tar');
    const r = await runCli(['pack', '-q', '--out', tar, '--', 'node', 'probe.js'], { cwd: dir, env: { OUT: path.join(dir, 'pack.json') } });
    assert.strictEqual(r.code, 0, r.stderr);
    const plainOut = path.join(dir, 'plain.json');
    const memOut = path.join(dir, 'mem.json');
    spawnSync(process.execPath, ['-r', EXIT_ON_LISTEN, 'probe.js'], { cwd: dir, env: { ...process.env, OUT: plainOut } });
    const started = spawnSync(process.execPath, [BIN, 'start', '--archive', tar, '--mode', 'memory', '--', 'node', '-r', EXIT_ON_LISTEN, 'probe.js'],
      { cwd: dir, env: { ...process.env, OUT: memOut }, encoding: 'utf8' });
    assert.doesNotMatch(started.stderr, /warning|Warning/, started.stderr);
    // Served from memory where Node has in-thread hooks (22.15+), from disk on Node 20: same identity either way.
    const inThreadHooks = typeof require('module').registerHooks === 'function';
    assert.match(started.stderr, inThreadHooks ? /serving \d+ files, .* \d+ ES modules[,)]/ : /ES modules read from disk/, started.stderr);
    const plain = JSON.parse(fs.readFileSync(plainOut, 'utf8'));
    assert.strictEqual(plain.dynamic, 'hello from esm');
    assert.match(plain.where.stack, /lib\/where\.js:4:\d+/);
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(memOut, 'utf8')), plain);
  } finally { rm(dir); }
});
