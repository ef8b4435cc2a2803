'use strict';
// pack --code-cache gives the archive's larger ES modules a code cache too, through Node's own
// compile cache (Node 22.1+): start writes the entries Node made in pack's recording run into a
// directory of its own, turns the cache on there, and removes it when the process exits. What
// Node did with each entry is Node's own word (NODE_DEBUG_NATIVE=COMPILE_CACHE): accepted.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { BIN, rm } = require('./helpers/app.js');
const { NODE, SKIP } = require('./helpers/compile-cache-node.js');

// An ES module app: a large module (a cache pays for it), a small one (left to compile), and an
// entry that prints what they return once it listens, then exits.
function makeApp(dir) {
  fs.mkdirSync(path.join(dir, 'lib'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'esm-cache', private: true, type: 'module' }));
  const functions = Array.from({ length: 300 }, (_, i) => `export function f${i}(x) { const y = x * ${i} + ${i % 7}; return y > ${i} ? y - ${i} : [y, ${i}].join('-'); }`);
  fs.writeFileSync(path.join(dir, 'lib', 'big.js'), `${functions.join('\n')}\nexport const total = f1(2) + f299(3);\n`);
  fs.writeFileSync(path.join(dir, 'lib', 'small.js'), "export const name = 'small';\n");
  fs.writeFileSync(path.join(dir, 'server.js'), [
    "import { createServer } from 'node:http';",
    "import { total } from './lib/big.js';",
    "import { name } from './lib/small.js';",
    'const server = createServer((req, res) => res.end(`${total} ${name}`));',
    'server.listen(0, () => { console.log(`esm-cache listening: ${total} ${name}`); if (process.env.EXIT_AT_LISTEN) process.exit(0); });',
    '',
  ].join('\n'));
  return dir;
}

function node(args, cwd, env = {}) {
  const full = { ...process.env, ...env };
  delete full.NODE_COMPILE_CACHE;
  delete full.NODE_DISABLE_COMPILE_CACHE;
  for (const [key, value] of Object.entries(env)) if (value !== undefined) full[key] = value;
  const r = spawnSync(NODE, args, { cwd, env: full, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  return r;
}

// Node's own account of the ES modules it compiled with the cache: file URL -> accepted | rejected
// ("V8 code cache for ESM file:///… was accepted" from Node 24, "cache for file:///… was accepted" on 22).
function nodeSaid(stderr) {
  const said = new Map();
  for (const m of stderr.matchAll(/cache for (?:ESM )?(file:\S+) was (accepted|rejected)/g)) said.set(m[1], m[2]);
  return said;
}

let base;
let app;
let packed; // pack --json
test.before(() => {
  if (SKIP) return;
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-esm-code-cache-'));
  app = makeApp(path.join(base, 'app'));
  const out = node([BIN, 'pack', '--code-cache', '--json', '--out', path.join(base, 'startup.tar'), '--', 'node', 'server.js'], app);
  packed = JSON.parse(out.stdout);
});
test.after(() => base && rm(base));

test('pack keeps a code cache for the large ES module only, and says so', { skip: SKIP }, () => {
  const { codeCache } = packed;
  assert.equal(codeCache.made, 'run');
  assert.equal(codeCache.esModules, 1, JSON.stringify(codeCache));
  assert.equal(codeCache.modules, 0, 'no CommonJS module in this app');
});

test('start hands the entry to Node, which accepts it; the startup report and the serving line count it; nothing is left behind', { skip: SKIP }, () => {
  const shm = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const ours = () => fs.readdirSync(shm).filter((name) => name.startsWith('coldstart-esm-cache-')).length;
  const before = ours();
  const report = path.join(base, 'report.json');
  const r = node([BIN, 'start', '--archive', path.join(base, 'startup.tar'), '--report-file', report, '--', 'node', 'server.js'], app,
    { EXIT_AT_LISTEN: '1', NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  const plain = node(['server.js'], app, { EXIT_AT_LISTEN: '1' });
  assert.equal(r.stdout.trim(), plain.stdout.trim(), 'the app says what it says started plain');
  const said = nodeSaid(r.stderr);
  assert.equal(said.get(new URL('lib/big.js', `file://${app}/`).href), 'accepted', [...said].join('\n'));
  assert.equal(said.size, 1, `Node used no other ES module entry: ${[...said].join(', ')}`);
  assert.match(r.stderr, /^coldstart: serving \d+ files, .*code cache for 1 ES modules\) in /m);
  assert.equal(JSON.parse(fs.readFileSync(report, 'utf8')).codeCache.esm, 1);
  assert.equal(ours(), before, 'the directory start made is gone once the app exited');
});

test('an app with a compile cache of its own (NODE_COMPILE_CACHE) keeps it: start writes nothing', { skip: SKIP }, () => {
  const cache = path.join(base, 'own-cache');
  const r = node([BIN, 'start', '--archive', path.join(base, 'startup.tar'), '--', 'node', 'server.js'], app,
    { EXIT_AT_LISTEN: '1', NODE_COMPILE_CACHE: cache, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  assert.doesNotMatch(r.stderr, /coldstart-esm-cache-/);
  assert.doesNotMatch(r.stderr, /code cache for 1 ES modules/);
  assert.ok(fs.readdirSync(cache).length, 'Node kept its cache where the app said');
});
