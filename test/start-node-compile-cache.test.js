'use strict';
// Node's own compile cache (NODE_COMPILE_CACHE) misses silently when the container runs as
// another uid than the image build, from another path, or with another Node: start says which.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { BIN, rm } = require('./helpers/app.js');
const { compileCacheProblem } = require('../lib/start/node-compile-cache.js');

const { NODE, NODE_VERSION: nodeVersion, SKIP } = require('./helpers/compile-cache-node.js');

// Exits once listening, so Node writes its compile cache.
const APP = "require('http').createServer().listen(0, () => { console.log('tiny listening'); process.exit(0); });\n";

function makeApp(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'server.js'), APP);
  return dir;
}

function run(args, cwd, env) {
  const full = { ...process.env, ...env };
  delete full.NODE_DISABLE_COMPILE_CACHE;
  const r = spawnSync(NODE, args, { cwd, env: full, encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.match(r.stdout, /tiny listening/);
  return r;
}

// The image build: the app run once with the cache set.
const build = (appDir, env) => run(['server.js'], appDir, env);
// The container start: the cache warnings start printed.
function start(appDir, env) {
  const r = run([BIN, 'start', '--', 'node', 'server.js'], appDir, env);
  return r.stderr.split('\n').filter((line) => line.startsWith('coldstart: warning: NODE_COMPILE_CACHE'));
}

function withTemp(fn) {
  return async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-compile-cache-'));
    try { await fn(base); } finally { rm(base); }
  };
}

test('NODE_COMPILE_CACHE built by the same uid at the same path: start says nothing', { skip: SKIP }, withTemp((base) => {
  const app = makeApp(path.join(base, 'app'));
  const env = { NODE_COMPILE_CACHE: path.join(base, 'cache') };
  build(app, env);
  assert.deepStrictEqual(start(app, env), []);
}));

test('an ES module entry: Node keys it by its file: URL, and start finds it there (no warning)', { skip: SKIP }, withTemp((base) => {
  const appDir = path.join(base, 'app');
  fs.mkdirSync(appDir, { recursive: true });
  fs.writeFileSync(path.join(appDir, 'server.mjs'), APP.replace("require('http')", "(await import('node:http'))"));
  const env = { NODE_COMPILE_CACHE: path.join(base, 'cache') };
  run(['server.mjs'], appDir, env);
  const r = run([BIN, 'start', '--', 'node', 'server.mjs'], appDir, env);
  assert.deepStrictEqual(r.stderr.split('\n').filter((line) => line.startsWith('coldstart: warning: NODE_COMPILE_CACHE')), []);
}));

test('NODE_COMPILE_CACHE built as another uid (root at image build): start names the uid', { skip: SKIP || (typeof process.getuid !== 'function' && 'SKIPPED: no uids here') }, withTemp((base) => {
  const app = makeApp(path.join(base, 'app'));
  const cache = path.join(base, 'cache');
  build(app, { NODE_COMPILE_CACHE: cache });
  const [built] = fs.readdirSync(cache);
  const uid = Number(/-(\d+)$/.exec(built)[1]);
  const other = uid + 1000;
  fs.renameSync(path.join(cache, built), path.join(cache, built.replace(/\d+$/, String(other))));
  const warnings = start(app, { NODE_COMPILE_CACHE: cache });
  assert.strictEqual(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], new RegExp(`has a cache for uid ${other} only; this process runs as uid ${uid}, so Node compiles every module anew \\(build the cache as the user the container runs as`));
}));

test('NODE_COMPILE_CACHE built with the app at another path: start names the path and portable mode', { skip: SKIP }, withTemp((base) => {
  const app = makeApp(path.join(base, 'built-here'));
  const cache = path.join(base, 'cache');
  build(app, { NODE_COMPILE_CACHE: cache });
  const moved = makeApp(path.join(base, 'runs-here'));
  const warnings = start(moved, { NODE_COMPILE_CACHE: cache });
  assert.strictEqual(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], /has a cache for this Node and uid but none for .*runs-here.server\.js: it was built at another path .*NODE_COMPILE_CACHE_PORTABLE=1/);
}));

const portable = nodeVersion && (([major, minor]) => major > 24 || (major === 24 && minor >= 12))(nodeVersion.split('.').map(Number));
test('a portable NODE_COMPILE_CACHE moved with the app: start says nothing', { skip: SKIP || (!portable && `SKIPPED: Node ${nodeVersion} has no portable compile cache (24.12+)`) }, withTemp((base) => {
  const env = { NODE_COMPILE_CACHE: '../cache', NODE_COMPILE_CACHE_PORTABLE: '1' };
  build(makeApp(path.join(base, 'one', 'app')), env);
  fs.cpSync(path.join(base, 'one'), path.join(base, 'two'), { recursive: true });
  assert.deepStrictEqual(start(path.join(base, 'two', 'app'), env), []);
}));

test('compileCacheProblem: each trap from the directory listing', () => {
  const own = 'v24.12.0-x64-964aae3f-1000';
  const facts = { dir: '/cache', own, subdirs: [own], entryCached: false, ownFiles: 0, entry: '/app/server.js', portable: false };
  assert.strictEqual(compileCacheProblem({ ...facts, entryCached: true, ownFiles: 3 }), null);
  assert.match(compileCacheProblem({ ...facts, subdirs: [own, 'v24.12.0-x64-964aae3f-0'] }),
    /^NODE_COMPILE_CACHE=\/cache has a cache for uid 0 only; this process runs as uid 1000, so Node compiles every module anew \(build the cache as the user the container runs as, or run as uid 0\)$/);
  assert.match(compileCacheProblem({ ...facts, ownFiles: 12 }), /none for \/app\/server\.js: it was built at another path or without this entry.*NODE_COMPILE_CACHE_PORTABLE=1 at build and at run/);
  assert.match(compileCacheProblem({ ...facts, ownFiles: 12, portable: true }), /relative to the cache directory/);
  assert.match(compileCacheProblem({ ...facts, subdirs: [own, 'v22.1.0-x64-9ac5647c-1000', 'v24.12.0-x64-11111111-0', 'not-a-cache'] }),
    /has caches for v22\.1\.0-x64-9ac5647c-1000, v24\.12\.0-x64-11111111-0 only; this process is v24\.12\.0-x64-964aae3f-1000 .*V8 flags/);
  assert.match(compileCacheProblem({ ...facts, subdirs: [own] }), /=\/cache holds no cache: no cache was built there/);
  assert.match(compileCacheProblem({ ...facts, subdirs: null }), /does not exist or cannot be read: no cache was built there/);
  // A prerelease Node and a platform without uids.
  assert.match(compileCacheProblem({ ...facts, own: 'v26.0.0-pre-x64-310b2ce3', subdirs: ['v26.0.0-pre-x64-00000000'] }), /has caches for v26\.0\.0-pre-x64-00000000 only/);
});

test('NODE_DISABLE_COMPILE_CACHE, even empty, turns the look off', { skip: SKIP }, withTemp((base) => {
  const app = makeApp(path.join(base, 'app'));
  const r = spawnSync(NODE, [BIN, 'start', '--', 'node', 'server.js'], {
    cwd: app, env: { ...process.env, NODE_COMPILE_CACHE: path.join(base, 'cache'), NODE_DISABLE_COMPILE_CACHE: '' }, encoding: 'utf8',
  });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /NODE_COMPILE_CACHE/);
}));
