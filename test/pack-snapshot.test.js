'use strict';
// pack --snapshot-blob: the app's CommonJS startup modules evaluated at pack time into a V8 startup
// snapshot, started with `node --snapshot-blob FILE entry.js`. The app must see what a plain
// start shows (file names, require.cache, require.resolve, stack frames, import()), a file changed
// after pack must be what runs, and an app that cannot have a snapshot is told why and keeps its
// archive.
const test = require('./helpers/suite.js').testLeftOutOfFast('V8 startup snapshots built');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { runCli, rm } = require('./helpers/app.js');

// A package whose modules require each other and a JSON file, tell where their stack frames point,
// resolve a path and keep an import() for later; the entry prints what it sees and ends.
const FILES = {
  'package.json': '{ "name": "snapshot-app", "version": "1.0.0" }\n',
  'node_modules/dep/package.json': '{ "name": "dep", "version": "1.0.0", "main": "index.js" }\n',
  'node_modules/dep/index.js': `'use strict';
const util = require('./lib/util.js');
exports.mark = process.env.MARK || 'unset';
exports.where = util.where;
exports.answer = util.answer;
exports.data = require('./data.json');
exports.utilFile = util.filename;
exports.resolvedAtLoad = require.resolve('./lib/util.js');
exports.later = () => import('node:path');
try { require('not-installed'); } catch (err) { exports.optional = err.code; }
exports.seen = [];
`,
  'node_modules/dep/data.json': '{ "x": 1 }\n',
  'node_modules/dep/lib/util.js': `'use strict';
exports.where = function where() { return new Error('here').stack.split('\\n')[1].trim(); };
exports.answer = 'packed';
exports.filename = __filename;
// A Module while it loads, as under Node; its constructor kept for later.
const Module = module.constructor;
exports.atLoad = [module instanceof require('module'), Module === require('module'), typeof module.require, Array.isArray(module.paths)];
exports.resolveLater = () => Module._resolveFilename('../data.json', module);
`,
  // Resolves through Node's loader while it loads: it loads at start.
  'node_modules/resolver/package.json': '{ "name": "resolver", "version": "1.0.0", "main": "index.js" }\n',
  'node_modules/resolver/index.js': "'use strict';\nexports.self = module.constructor._resolveFilename('./index.js', module);\n",
  // Requires https and uses it only when called: in the snapshot, with the real module behind it.
  'node_modules/agent/package.json': '{ "name": "agent", "version": "1.0.0", "main": "index.js" }\n',
  'node_modules/agent/index.js': "'use strict';\nconst https = require('https');\nexports.globalAgent = () => https.globalAgent;\nexports.isAgent = (a) => a instanceof https.Agent;\nexports.mark = process.env.MARK || 'unset';\n",
  // Uses http while it loads, which Node cannot put in a snapshot: it loads at start.
  'node_modules/web/package.json': '{ "name": "web", "version": "1.0.0", "main": "index.js" }\n',
  // What it does before that (here: registers itself) must happen once, not at pack time too.
  'node_modules/web/index.js': "'use strict';\nrequire('dep').seen.push('web');\nconst http = require('http');\nexports.ok = http.STATUS_CODES[200];\nexports.server = typeof http.Server;\nexports.mark = process.env.MARK || 'unset';\n",
  // Reads http's and http2's tables of constants while it loads: in the snapshot, the real tables
  // behind them at start.
  'node_modules/tables/package.json': '{ "name": "tables", "version": "1.0.0", "main": "index.js" }\n',
  'node_modules/tables/index.js': "'use strict';\nconst http = require('http');\nexports.get = http.METHODS.includes('GET');\nexports.path = require('http2').constants.HTTP2_HEADER_PATH;\nexports.codes = http.STATUS_CODES;\nexports.mark = process.env.MARK || 'unset';\n",
  // Changes http's table while it loads: that cannot happen at pack time, it loads at start.
  'node_modules/codes/package.json': '{ "name": "codes", "version": "1.0.0", "main": "index.js" }\n',
  'node_modules/codes/index.js': "'use strict';\nrequire('http').STATUS_CODES[299] = 'Custom';\n",
  // require() of it gives an ES module that only passes on a CommonJS module's exports (the
  // "module-sync" shape): in the snapshot, as Node's require(esm) has it.
  'node_modules/fn/package.json': '{ "name": "fn", "version": "1.0.0", "exports": { ".": [{ "module-sync": "./require.mjs", "default": "./index.js" }, "./index.js"] } }\n',
  'node_modules/fn/index.js': "'use strict';\nmodule.exports = () => process.env.MARK || 'unset';\nmodule.exports.mark = process.env.MARK || 'unset';\n",
  'node_modules/fn/require.mjs': "// passes on index.js\nimport fn from './index.js';\n\nexport default fn;\n\nexport { fn as 'module.exports' };\n",
  'server.js': `'use strict';
const Module = require('module');
const dep = require('dep');
const web = require('web');
const agent = require('agent');
const tables = require('tables');
const fn = require('fn');
require('codes');
const resolver = require('resolver');
const util = require.cache[dep.utilFile];
dep.later().then((p) => {
  console.log(JSON.stringify({
    mark: dep.mark, web: [web.ok, web.mark], seen: dep.seen, answer: dep.answer, agentMark: agent.mark,
    agent: [agent.isAgent(agent.globalAgent()), agent.globalAgent() === require('https').globalAgent], where: dep.where(), data: dep.data, optional: dep.optional,
    resolve: require.resolve('dep'), resolvedAtLoad: dep.resolvedAtLoad,
    cached: Object.keys(require.cache).map((f) => path.relative(__dirname, f)).sort(),
    isModule: util instanceof Module, loaded: util.loaded, children: require.cache[require.resolve('dep')].children.length,
    importWorks: typeof p.join, main: require.main === module,
    tables: [tables.get, tables.path, tables.codes[404], (require('http').STATUS_CODES[599] = 'Late', tables.codes[599]), Object.keys(tables.codes).includes('599'),
      (Object.defineProperty(tables.codes, '598', { value: 'Def', enumerable: true, configurable: true, writable: true }), require('http').STATUS_CODES[598]),
      delete tables.codes['598'], require('http').STATUS_CODES[598], JSON.stringify(tables.codes).includes('Late'), tables.mark],
    fn: [fn(), fn.mark, require.cache[require.resolve('fn')].exports === fn, require.cache[require.resolve('fn')].children.length, require.cache[require.resolve('fn').replace('require.mjs', 'index.js')].parent],
    custom: require('http').STATUS_CODES[299],
    atLoad: util.exports.atLoad, resolveLater: path.relative(__dirname, util.exports.resolveLater()), resolver: path.relative(__dirname, resolver.self),
    parents: [util.parent.filename, require.cache[require.resolve('dep')].parent.filename].map((f) => path.relative(__dirname, f)),
  }));
});
const path = require('path');
`,
};

function makeApp(extra = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-snapshot-')));
  for (const [rel, text] of Object.entries({ ...FILES, ...extra })) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const pack = (dir, args, env) => runCli(['pack', '--until', 'exit', '--out', 'startup.tar', '--snapshot-blob', 'startup.blob', ...args], { cwd: dir, env });
const runNode = (dir, args, env = {}) => spawnSync(process.execPath, args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });

test('pack --snapshot-blob: the app sees its modules as a plain start shows them, evaluated at pack time', async (t) => {
  const dir = makeApp();
  try {
    const packed = await pack(dir, ['--', 'node', 'server.js'], { MARK: 'pack' });
    assert.equal(packed.code, 0, packed.stderr);
    assert.match(packed.stdout, /snapshot: 7 modules evaluated, .+ in .+startup\.blob: start the app with node --snapshot-blob/);
    assert.match(packed.stdout, /3 modules load at start instead, because node_modules\/web\/index\.js uses node:http while it loads, which Node cannot put in a snapshot; node_modules\/codes\/index\.js changes node:http\.STATUS_CODES while it loads, .+; node_modules\/resolver\/index\.js calls Module\._resolveFilename\(\) while it loads: Node's loader cannot be used before the snapshot is taken/);
    assert.ok(fs.statSync(path.join(dir, 'startup.blob')).size > 0);
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('.partial-')), [], 'no partial file left');

    const plain = runNode(dir, ['server.js'], { MARK: 'run' });
    const snap = runNode(dir, ['--snapshot-blob', 'startup.blob', 'server.js'], { MARK: 'run' });
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(snap.status, 0, snap.stderr);
    assert.equal(snap.stderr, '', 'no warning when the snapshot is used');
    const a = JSON.parse(plain.stdout);
    const b = JSON.parse(snap.stdout);
    // What the modules read while loading is the pack's: they were evaluated there.
    assert.equal(a.mark, 'run');
    assert.equal(b.mark, 'pack');
    assert.deepEqual([a.agentMark, b.agentMark], ['run', 'pack'], 'a module that only requires https is in the snapshot');
    assert.deepEqual([a.tables, b.tables], [[true, ':path', 'Not Found', 'Late', true, 'Def', true, null, true, 'run'], [true, ':path', 'Not Found', 'Late', true, 'Def', true, null, true, 'pack']], 'tables read at pack, the real ones at start');
    assert.deepEqual([a.fn, b.fn], [['run', 'run', true, 0, null], ['run', 'pack', true, 0, null]], 'the ES module facade is in the snapshot');
    for (const x of [a, b]) {
      delete x.mark;
      delete x.agentMark;
      delete x.tables;
      delete x.fn;
    }
    delete a.web;
    const web = b.web;
    delete b.web;
    assert.deepEqual(b, a);
    b.web = web;
    assert.match(a.where, /node_modules\/dep\/lib\/util\.js:2:\d+\)$/);
    assert.equal(b.custom, 'Custom', 'the module that changes a table loads at start');
    assert.deepEqual(b.atLoad, [true, true, 'function', true], 'a Module while it loads');
    assert.equal(b.resolveLater, 'node_modules/dep/data.json');
    assert.equal(b.resolver, 'node_modules/resolver/index.js', 'the module that resolves through Node\'s loader loads at start');
    assert.deepEqual(a.cached, ['node_modules/agent/index.js', 'node_modules/codes/index.js', 'node_modules/dep/data.json', 'node_modules/dep/index.js', 'node_modules/dep/lib/util.js',
      'node_modules/fn/index.js', 'node_modules/fn/require.mjs', 'node_modules/resolver/index.js', 'node_modules/tables/index.js', 'node_modules/web/index.js', 'server.js']);
    assert.deepEqual(b.agent, [true, true], 'the stand-in for https is the real module at start');
    assert.deepEqual(b.web, ['OK', 'run'], 'the module left out loads at start');
    assert.deepEqual(b.seen, ['web'], 'what the module left out did before its refusal is not in the snapshot');
    assert.deepEqual([b.isModule, b.loaded, b.children, b.importWorks, b.main, b.optional], [true, true, 2, 'function', true, 'MODULE_NOT_FOUND']);
    assert.deepEqual(b.parents, ['node_modules/dep/index.js', 'server.js']);
    t.diagnostic(snap.stdout.trim());
  } finally {
    rm(dir);
  }
});

test('pack --snapshot-blob: a file changed after pack is what runs, with one line on why the snapshot was left aside', async () => {
  const dir = makeApp();
  try {
    assert.equal((await pack(dir, ['--', 'node', 'server.js'])).code, 0);
    fs.appendFileSync(path.join(dir, 'node_modules/dep/lib/util.js'), "exports.answer = 'changed after pack';\n");
    const r = runNode(dir, ['--snapshot-blob', 'startup.blob', 'server.js']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).answer, 'changed after pack');
    // A fresh node without the snapshot where Node can replace the process (22.15+), else here, said so.
    const fresh = typeof process.execve === 'function';
    const how = fresh ? '$' : ", in this process, where the snapshot's modules already ran once \\(global effects they have may be doubled\\)$";
    assert.match(r.stderr, new RegExp(`^coldstart: warning: node_modules/dep/lib/util\\.js changed on disk since the snapshot was made \\(re-run coldstart pack --snapshot-blob\\); starting the app without it${how}`, 'm'));
    assert.equal(r.stderr.trim().split('\n').length, fresh ? 1 : 2, r.stderr); // here, the archive's own check says it too

    // Another entry than the one packed: it runs, without the snapshot's modules.
    fs.writeFileSync(path.join(dir, 'other.js'), "console.log('other', require('dep').answer);\n");
    const other = runNode(dir, ['--snapshot-blob', 'startup.blob', 'other.js']);
    assert.equal(other.status, 0, other.stderr);
    assert.equal(other.stdout.trim(), 'other changed after pack');
    assert.match(other.stderr, /the snapshot was made for .+server\.js, not .+other\.js; starting the app without it/);
  } finally {
    rm(dir);
  }
});

test('pack --snapshot-blob: an app that cannot have one is told why, keeps its archive, and gets no snapshot file', async () => {
  const dir = makeApp({
    'node_modules/ticker/package.json': '{ "name": "ticker", "main": "index.js" }\n',
    'node_modules/ticker/index.js': 'setInterval(() => {}, 60000).unref();\nmodule.exports = 1;\n',
    'ticks.js': "require('ticker');\nsetImmediate(() => process.exit(0));\n",
    'opens-socket.js': "module.exports = require('net').createServer().listen(0, '127.0.0.1');\n",
    'listens.js': "require('./opens-socket.js').on('listening', function () { this.close(); });\n",
    'preload.js': '// an APM agent would patch require here\n',
  });
  try {
    const cases = [
      [['--', 'node', 'ticks.js'], /no snapshot written: node_modules\/ticker\/index\.js starts work while it loads \(Timeout\) that is still going when the snapshot is taken, which a snapshot cannot carry over; the archive serves coldstart start as usual/],
      [['--', 'node', 'listens.js'], /no snapshot written: opens-socket\.js starts work while it loads \(TCPSERVERWRAP\) that is still going/],
    ];
    for (const [args, reason] of cases) {
      const r = await pack(dir, args);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, reason);
      assert.equal(r.stderr.trim().split('\n').filter((l) => /snapshot/.test(l)).length, 1, r.stderr);
      assert.doesNotMatch(r.stdout, /snapshot:/);
      assert.ok(fs.statSync(path.join(dir, 'startup.tar')).size > 0, 'the archive is written');
      assert.equal(fs.existsSync(path.join(dir, 'startup.blob')), false, args.join(' '));
    }
    // The unref'd timer would have been lost without a word: a snapshot keeps no timer.
    const json = await pack(dir, ['--json', '--', 'node', 'ticks.js']);
    const { snapshot, warnings } = JSON.parse(json.stdout);
    assert.deepEqual(snapshot.refused, { file: 'node_modules/ticker/index.js', reason: 'starts work while it loads (Timeout) that is still going when the snapshot is taken, which a snapshot cannot carry over' });
    assert.ok(warnings.some((w) => w.code === 'PACK_SNAPSHOT_REFUSED'), json.stdout);
  } finally {
    rm(dir);
  }
});

test('pack --snapshot-blob: a preload or an ES module entry is refused before the app runs: one line, exit 2, nothing written', async () => {
  const dir = makeApp({
    'preload.js': '// an APM agent would patch require here\n',
    'esm/package.json': '{ "type": "module" }\n',
    'esm/server.js': "throw new Error('the app must not run');\n",
    'server.mjs': "throw new Error('the app must not run');\n",
  });
  try {
    for (const [args, reason] of [
      [['--', 'node', '-r', './preload.js', 'server.js'], /^coldstart: --snapshot-blob: no snapshot for this app: the app starts with -r \.\/preload\.js: a preload \(an APM agent\) must see the modules load, .*; leave out --snapshot-blob$/],
      [['--', 'node', 'server.mjs'], /^coldstart: --snapshot-blob: no snapshot for this app: the entry server\.mjs is an ES module: the snapshot holds CommonJS modules/],
      [['--', 'node', 'esm/server.js'], /^coldstart: --snapshot-blob: no snapshot for this app: the entry esm\/server\.js is an ES module/],
    ]) {
      const r = await pack(dir, args);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr.trim(), reason);
      assert.equal(fs.existsSync(path.join(dir, 'startup.tar')), false, 'no archive');
      assert.equal(fs.existsSync(path.join(dir, 'startup.blob')), false, 'no snapshot');
    }
  } finally {
    rm(dir);
  }
});

test('pack --snapshot-blob: the app\'s node flags apply while its modules are evaluated (--env-file)', async () => {
  const dir = makeApp({
    '.env': 'FROM_FILE=from the env file\n',
    'node_modules/cfg/package.json': '{ "name": "cfg", "version": "1.0.0", "main": "index.js" }\n',
    'node_modules/cfg/index.js': "'use strict';\nexports.value = process.env.FROM_FILE || 'unset';\n",
    'flags.js': "'use strict';\nconsole.log(require('cfg').value);\n",
  });
  try {
    const packed = await pack(dir, ['--', 'node', '--env-file=.env', 'flags.js']);
    assert.equal(packed.code, 0, packed.stderr);
    assert.match(packed.stdout, /snapshot: 1 modules? evaluated/);
    const snap = runNode(dir, ['--snapshot-blob', 'startup.blob', '--env-file=.env', 'flags.js']);
    assert.equal(snap.status, 0, snap.stderr);
    assert.equal(snap.stderr, '');
    assert.equal(snap.stdout, 'from the env file\n');
  } finally {
    rm(dir);
  }
});

test('pack --snapshot-blob: bad input is one line and exit 2, before the app runs', async () => {
  const dir = makeApp();
  try {
    fs.writeFileSync(path.join(dir, 'files.txt'), 'server.js\n');
    for (const [args, message] of [
      [['pack', '--manifest', 'files.txt', '--snapshot-blob', 's.blob'], /--snapshot-blob needs the app run, not --manifest/],
      [['pack', '--out', 'a.tar', '--snapshot-blob', 'a.tar', '--', 'node', 'server.js'], /--snapshot-blob and --out name the same file/],
      [['pack', '--snapshot-blob', 'node_modules', '--', 'node', 'server.js'], /--snapshot-blob .+node_modules is a directory/],
    ]) {
      const r = await runCli(args, { cwd: dir });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.equal(fs.existsSync(path.join(dir, 'a.tar')), false);
    assert.equal(fs.existsSync(path.join(dir, 's.blob')), false);
  } finally {
    rm(dir);
  }
});

test('pack --snapshot-blob killed (SIGKILL) while the snapshot builds leaves no partial blob, no temp folder, no builder running', { timeout: 120_000 }, async () => {
  const { spawnCli, waitFor } = require('./helpers/app.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-snapshot-killed-'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-snapshot-killed-tmp-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "slow-snapshot", "version": "1.0.0" }\n');
    fs.mkdirSync(path.join(dir, 'node_modules', 'slow'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules', 'slow', 'package.json'), '{ "name": "slow", "version": "1.0.0", "main": "index.js" }\n');
    // Three seconds of work at load, in the app's run and again in the snapshot builder.
    fs.writeFileSync(path.join(dir, 'node_modules', 'slow', 'index.js'), "'use strict';\nconst end = Date.now() + 3000;\nwhile (Date.now() < end);\nexports.ok = true;\n");
    fs.writeFileSync(path.join(dir, 'app.js'), "'use strict';\nconsole.log(require('slow').ok);\n");
    const cli = spawnCli(['pack', '--until', 'exit', '--no-verify', '--snapshot-blob', 's.blob', '--out', 'a.tar', '--', 'node', 'app.js'], { cwd: dir, env: { TMPDIR: tmp } });
    await waitFor(() => fs.readdirSync(tmp).some((n) => n.startsWith('coldstart-snapshot-')), 60_000, 'the snapshot build to begin');
    cli.child.kill('SIGKILL');
    await cli.done;
    await new Promise((r) => setTimeout(r, 5000)); // longer than the builder would have needed to finish
    assert.deepStrictEqual(fs.readdirSync(dir).filter((n) => n.startsWith('s.blob')), [], 'no blob, partial or whole');
    assert.deepStrictEqual(fs.readdirSync(tmp).filter((n) => n.startsWith('coldstart-snapshot-')), [], 'no temp folder');
  } finally {
    rm(dir);
    rm(tmp);
  }
});
