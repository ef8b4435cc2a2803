'use strict';
// The layout's rules, checked on the code itself: who may import whom (read statically from
// every file of lib/), how much of coldstart `coldstart start` loads before the app runs, and
// how much of it runs inside an app under `coldstart profile`. docs/api.md's layout section
// states the same rules and figures.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { isBuiltin } = require('node:module');
const { spawnSync } = require('node:child_process');
const acorn = require('acorn');
const { REPO, BIN, runCli, rm, writeFiles } = require('./helpers/app.js');

// ---------------------------------------------------------------------------------------------
// The import graph of lib/

const LIB = path.join(REPO, 'lib');

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(file);
    return /\.(js|cjs|mjs)$/.test(e.name) ? [file] : [];
  });
}

function parse(file) {
  const text = fs.readFileSync(file, 'utf8');
  const options = { ecmaVersion: 'latest', allowHashBang: true, allowReturnOutsideFunction: true };
  if (file.endsWith('.mjs')) return acorn.parse(text, { ...options, sourceType: 'module' });
  try {
    return acorn.parse(text, { ...options, sourceType: 'script' });
  } catch {
    return acorn.parse(text, { ...options, sourceType: 'module' });
  }
}

/** Every string given to require(), import() or import/export ... from, wherever it stands in the file. */
function specifiersOf(file) {
  const found = [];
  const visit = (node) => {
    if (!node || typeof node.type !== 'string') return;
    const literal = (n) => (n && n.type === 'Literal' && typeof n.value === 'string' ? n.value : null);
    if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'require') {
      const spec = literal(node.arguments[0]);
      if (spec) found.push(spec);
    } else if (node.type === 'ImportExpression' || /^(Import|ExportNamed|ExportAll)Declaration$/.test(node.type)) {
      const spec = literal(node.source);
      if (spec) found.push(spec);
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') visit(value);
    }
  };
  visit(parse(file));
  return found;
}

/** 'lib/x.js' for a file of the repo, 'node:fs' for a built-in, the package name otherwise. */
function resolveSpecifier(from, spec) {
  if (isBuiltin(spec)) return { builtin: spec.replace(/^node:/, '') };
  if (!spec.startsWith('.')) return { pkg: spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0] };
  const base = path.resolve(path.dirname(from), spec);
  const file = [base, `${base}.js`, `${base}.cjs`, path.join(base, 'index.js')].find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
  assert.ok(file, `${rel(from)}: ${spec} does not resolve`);
  return { file: rel(file) };
}

const rel = (file) => path.relative(REPO, file).split(path.sep).join('/');

/** lib/<file> -> its imports: { files: lib files, builtins, packages }. */
const GRAPH = new Map(sourceFiles(LIB).map((file) => {
  const imports = { files: new Set(), builtins: new Set(), packages: new Set() };
  for (const spec of specifiersOf(file)) {
    const r = resolveSpecifier(file, spec);
    if (r.builtin) imports.builtins.add(r.builtin);
    else if (r.pkg) imports.packages.add(r.pkg);
    else imports.files.add(r.file);
  }
  return [rel(file), imports];
}));

const inDir = (dir) => (file) => file.startsWith(`${dir}/`);
const filesIn = (dir) => [...GRAPH.keys()].filter(inDir(dir));

/** Every lib file `file` reaches through its imports, itself included. */
function closure(file) {
  const seen = new Set([file]);
  for (const f of seen) for (const next of (GRAPH.get(f) || { files: [] }).files) seen.add(next);
  return seen;
}

/**
 * Files outside lib/in-app/ that code inside the app may load: each imports Node built-ins only,
 * so loading it brings nothing else of coldstart into the app.
 */
const SHARED_LEAVES = {
  'lib/package-manager-script.js': 'the agent tells a package manager\'s own process (npm start) from the app\'s',
  'lib/package-name.js': 'the production startup report names the package of each module',
  'lib/write-atomic.js': 'the production startup report is written atomically, as every artifact is',
};

test('house: the import graph is read from every file of lib/', () => {
  assert.ok(GRAPH.size > 100, `${GRAPH.size} files`);
  assert.ok(GRAPH.get('lib/cli.js').packages.has('yargs'), 'require() calls are found');
  assert.ok(GRAPH.get('lib/in-app/esm-hooks.mjs').builtins.has('module'), 'import declarations are found');
});

test('house: lib/in-app/ imports only lib/in-app/, Node built-ins and the shared leaves, which import built-ins only', () => {
  const wrong = [];
  for (const file of filesIn('lib/in-app')) {
    const { files, packages } = GRAPH.get(file);
    for (const p of packages) wrong.push(`${file} imports the package ${p}`);
    for (const f of files) if (!inDir('lib/in-app')(f) && !(f in SHARED_LEAVES)) wrong.push(`${file} imports ${f}`);
  }
  for (const leaf of Object.keys(SHARED_LEAVES)) {
    const { files, packages } = GRAPH.get(leaf);
    for (const f of [...files, ...packages]) wrong.push(`the shared leaf ${leaf} imports ${f}`);
  }
  assert.deepStrictEqual(wrong, []);
  const used = new Set(filesIn('lib/in-app').flatMap((f) => [...GRAPH.get(f).files]));
  assert.deepStrictEqual(Object.keys(SHARED_LEAVES).filter((leaf) => !used.has(leaf)), [], 'a leaf no in-app file uses leaves the list');
});

const IO_BUILTINS = ['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'http2', 'dgram', 'worker_threads'];

test('house: lib/analyze/ does no I/O: no file it reaches in lib/ imports fs, child_process, net, http(s), dgram or worker_threads', () => {
  const wrong = [];
  for (const file of filesIn('lib/analyze')) {
    for (const reached of closure(file)) {
      const io = [...GRAPH.get(reached).builtins].filter((b) => IO_BUILTINS.includes(b));
      if (io.length) wrong.push(`${file}${reached === file ? '' : ` through ${reached}`} imports ${io.join(', ')}`);
    }
  }
  assert.deepStrictEqual(wrong, []);
});

// The files directly in lib/ are the ground the rooms stand on: they import only each other.
// Above them: cli.js and index.js (the two doors of the house) and options.js (the flags every
// command shares, --lambda's handler read by capture/lambda-function.js among them).
const ABOVE_THE_GROUND = new Set(['lib/cli.js', 'lib/index.js', 'lib/options.js']);

test('house: a file directly in lib/ imports only files directly in lib/, Node built-ins and packages (but cli.js, index.js and options.js)', () => {
  const ground = [...GRAPH.keys()].filter((file) => /^lib\/[^/]+$/.test(file) && !ABOVE_THE_GROUND.has(file));
  assert.ok(ground.length > 20, `${ground.length} files directly in lib/`);
  const upward = ground.flatMap((file) => [...GRAPH.get(file).files].filter((to) => !/^lib\/[^/]+$/.test(to)).map((to) => `${file} -> ${to}`));
  assert.deepStrictEqual(upward, []);
});

test('house: a command file imports no other command file', () => {
  const wrong = filesIn('lib/commands').flatMap((file) => [...GRAPH.get(file).files].filter(inDir('lib/commands')).map((f) => `${file} imports ${f}`));
  assert.deepStrictEqual(wrong, []);
});

/**
 * What pack (build time) may import from start (container start time), and why. pack also runs
 * start, as a child process, without loading it: code-cache-run.js runs `coldstart start` to record
 * the code cache, make-snapshot.js runs lib/start/snapshot-main.js under node --build-snapshot.
 */
const PACK_FROM_START = {
  'lib/start/code-cache.js': 'V8 accepts a code cache only for code compiled exactly as start compiles it: the same wrapper, the same compile call',
  'lib/start/code-cache-recorder.js': 'a code cache is joined into one blob and index one way, whether pack compiles the modules or start\'s recording run serialises them (joinCaches)',
  'lib/start/compile-cache-keys.js': 'an ES module\'s code cache is found under the name Node\'s compile cache gives it, the name start writes it back under',
};

test('house: lib/pack/ imports from lib/start/ only what the allow-list names; lib/start/ imports no build-time code and no package', () => {
  const fromStart = new Set();
  const wrong = [];
  for (const file of filesIn('lib/pack')) {
    for (const f of GRAPH.get(file).files) {
      if (!inDir('lib/start')(f)) continue;
      fromStart.add(f);
      if (!(f in PACK_FROM_START)) wrong.push(`${file} imports ${f}, which PACK_FROM_START does not name`);
    }
  }
  assert.deepStrictEqual([...fromStart].sort(), Object.keys(PACK_FROM_START).sort(), 'the allow-list names what pack uses, no more');
  const buildTime = ['lib/pack', 'lib/capture', 'lib/analyze', 'lib/report', 'lib/commands'];
  for (const file of filesIn('lib/start')) {
    const { files, packages } = GRAPH.get(file);
    for (const f of files) if (buildTime.some((dir) => inDir(dir)(f))) wrong.push(`${file} imports ${f}`);
    for (const p of packages) wrong.push(`${file} imports the package ${p}`);
  }
  assert.deepStrictEqual(wrong, []);
});

// ---------------------------------------------------------------------------------------------
// What coldstart loads into the app's process, counted from require.cache when the app ends

/** A small CommonJS app that, as it exits, writes which of coldstart's files are loaded (and their lines). */
function countingApp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-house-')));
  const repo = REPO + path.sep;
  writeFiles(dir, {
    'package.json': '{ "name": "house-app", "private": true }\n',
    'a.js': "module.exports = 'A';\n",
    // A dependency as npm installs it, with npm's record of the tree (start checks the tree by it).
    'node_modules/b/package.json': '{ "name": "b", "version": "1.0.0" }\n',
    'node_modules/b/index.js': "module.exports = 'B';\n",
    'node_modules/.package-lock.json': '{ "name": "house-app", "lockfileVersion": 3, "requires": true, "packages": { "node_modules/b": { "version": "1.0.0" } } }\n',
    'app.js': `const fs = require('fs');
process.on('exit', () => {
  if (!process.env.HOUSE_OUT) return;
  const own = Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(repo)}) || f.includes('node_modules/yargs'));
  fs.writeFileSync(process.env.HOUSE_OUT, JSON.stringify(own.map((f) => [f.slice(${repo.length}), fs.readFileSync(f, 'utf8').split('\\n').length - 1])));
});
console.log(\`a=\${require('./a.js')} b=\${require('b')}\`);
`,
  });
  return dir;
}

function loadedBy(dir, args, env = {}) {
  const out = path.join(dir, '.loaded.json');
  fs.rmSync(out, { force: true });
  const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', timeout: 30000, env: { ...process.env, CI: '', ...env, HOUSE_OUT: out } });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.match(r.stdout, /a=A b=B/);
  const loaded = JSON.parse(fs.readFileSync(out, 'utf8')).filter(([f]) => f.startsWith('lib/') || f.includes('yargs'));
  return { files: loaded.map(([f]) => f), lines: loaded.reduce((sum, [, n]) => sum + n, 0) };
}

// Bounds on what start loads before the app runs, in each of its modes: the plain archive's is
// start's promise (an app with an npm-installed tree: the check by its record); the code cache adds
// its compile wrapper (lib/start/code-cache.js); extract mode its tar reader and writer; a report
// file the in-app report (lib/in-app/startup-report.cjs).
const START_MODES = {
  plain: { pack: [], start: [], files: 9, lines: 1200 },
  'code cache': { pack: ['--code-cache'], start: [], files: 10, lines: 1360 },
  extract: { pack: [], start: ['--mode', 'extract'], files: 9, lines: 1140 },
  'report file': { pack: [], start: ['--report-file', '.start-report.json'], files: 13, lines: 1510 },
};
const START_FILES = /^lib\/(start\/[\w-]+\.js|in-app\/(startup-report|ready-moment)\.cjs|(archive-format|node-command|format-units|package-name|write-atomic)\.js)$/;

test('house: coldstart start loads at most 9 files of lib/ (1,200 lines) for a plain archive, 10 (1,360) with a code cache, 9 (1,140) in extract mode, 13 (1,510) with a report file; only lib/start/ and the few shared ones, nothing of capture, pack, report or yargs', async (t) => {
  const dir = countingApp();
  try {
    for (const [mode, bound] of Object.entries(START_MODES)) {
      const tar = path.join(dir, `.${mode.replace(' ', '-')}.tar`);
      const packed = await runCli(['pack', '-q', '--until', 'exit', ...bound.pack, '--out', tar, '--', 'node', 'app.js'], { cwd: dir });
      assert.strictEqual(packed.code, 0, packed.stderr);
      const loaded = loadedBy(dir, [BIN, 'start', '--archive', tar, ...bound.start, '--', 'node', 'app.js']);
      t.diagnostic(`start, ${mode}: ${loaded.files.length} files, ${loaded.lines} lines (${loaded.files.join(' ')})`);
      assert.deepStrictEqual(loaded.files.filter((f) => !START_FILES.test(f)), [], mode);
      assert.ok(loaded.files.length <= bound.files, `${mode}: ${loaded.files.join(' ')}`);
      assert.ok(loaded.lines <= bound.lines, `${mode}: ${loaded.lines} lines`);
    }
    // A startup snapshot holds start's code in the blob: none of coldstart's files is read to start it.
    const packed = await runCli(['pack', '-q', '--until', 'exit', '--snapshot-blob', '.startup.blob', '--out', '.snapshot.tar', '--', 'node', 'app.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const loaded = loadedBy(dir, ['--snapshot-blob', '.startup.blob', 'app.js']);
    t.diagnostic(`node --snapshot-blob: ${loaded.files.length} files, ${loaded.lines} lines of coldstart loaded from disk`);
    assert.deepStrictEqual(loaded.files, []);
  } finally { rm(dir); }
});

// What `coldstart profile` injects into a plain CommonJS app that exits: the agent and what it
// loads. 1,188 lines on Node 20; 1,245 on 22.15 and later, where the ES module hooks come in at
// the first sign of ES modules (import-keyword.cjs searches the source for it); the bound is the
// larger + 1%. A server's first answer and a readiness URL add readiness-probe.cjs, ES modules
// esm-timing.cjs.
const INJECTED_BOUND = { files: 12, lines: 1260 };

test('house: coldstart profile injects at most 1,260 lines of coldstart into a plain CommonJS app, from lib/in-app/ and its shared leaves', (t) => {
  const dir = countingApp();
  try {
    const loaded = loadedBy(dir, [BIN, 'profile', '-q', '--until', 'exit', '--', 'node', 'app.js']);
    t.diagnostic(`profile injects ${loaded.files.length} files, ${loaded.lines} lines (${loaded.files.join(' ')})`);
    assert.deepStrictEqual(loaded.files.filter((f) => !inDir('lib/in-app')(f) && !(f in SHARED_LEAVES)), []);
    assert.ok(loaded.files.length <= INJECTED_BOUND.files, loaded.files.join(' '));
    assert.ok(loaded.lines <= INJECTED_BOUND.lines, `${loaded.lines} lines`);
  } finally { rm(dir); }
});
