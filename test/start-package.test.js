'use strict';
// The runtime alone (coldstart-start): written by lib/start-package.js, packed by npm, installed into
// an app as its one production dependency. Its install weighs under 1 MB with no dependency, and
// everything `coldstart start` does from the CLI package it does from there: memory and extract
// modes, CommonJS and ES modules, the code cache, the preload form, the startup report.
const test = require('./helpers/suite.js').testLeftOutOfFast('npm pack and an install');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { BIN, rm, writeFiles } = require('./helpers/app.js');
const { writeStartPackage, runtimeFiles } = require('../lib/start-package.js');

const run = (cmd, args, cwd, env = {}) => spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
const ok = (r, what) => { assert.equal(r.status, 0, `${what}: ${r.stdout}${r.stderr}`); return r; };

// A CommonJS server that loads a module, a JSON file and an ES module, then asks itself GET / and
// prints the answer (the same words plain node prints), and exits.
const APP = {
  'server.js': [
    "'use strict';",
    "const http = require('node:http');",
    "const { greet } = require('./lib/greet.js');",
    "const config = require('./config.json');",
    "import('./lib/shout.mjs').then(({ shout }) => {",
    '  const server = http.createServer((req, res) => res.end(shout(greet(config.name))));',
    "  server.listen(0, '127.0.0.1', () => http.get(`http://127.0.0.1:${server.address().port}/`, (res) => {",
    "    let body = ''; res.on('data', (d) => { body += d; });",
    "    res.on('end', () => { console.log(`${res.statusCode} ${body}`); server.close(); });",
    '  }));',
    '});',
    '',
  ].join('\n'),
  'lib/greet.js': `'use strict';\n${Array.from({ length: 200 }, (_, i) => `function g${i}(x) { return x + ${i}; }`).join('\n')}\nexports.greet = (name) => \`hello \${name} \${g199(0)}\`;\n`,
  'lib/shout.mjs': 'export const shout = (s) => s.toUpperCase();\n',
  'config.json': '{ "name": "packed" }\n',
};

let base;
let app;
let tarball;
test.before(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-start-package-'));
  const pkg = writeStartPackage(path.join(base, 'coldstart-start'));
  const packed = ok(run('npm', ['pack', '--json', '--pack-destination', base, pkg], base), 'npm pack');
  tarball = path.join(base, JSON.parse(packed.stdout)[0].filename);
  app = path.join(base, 'app');
  writeFiles(app, { ...APP, 'package.json': JSON.stringify({ name: 'runtime-only', private: true, dependencies: { 'coldstart-start': `file:${tarball}` } }) });
  ok(run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--offline'], app), 'npm install');
  ok(run(process.execPath, [BIN, 'pack', '--code-cache', '--out', 'startup.tar', '--', 'node', 'server.js'], app), 'pack');
});
test.after(() => base && rm(base));

const runtimeBin = () => path.join(app, 'node_modules', 'coldstart-start', 'bin', 'coldstart-start.js');

test('the production install is the runtime alone: no dependency, under 1 MB', () => {
  const listed = ok(run('npm', ['ls', '--omit=dev', '--all', '--parseable'], app), 'npm ls').stdout.trim().split('\n');
  assert.deepEqual(listed.map((p) => path.relative(app, p)), ['', path.join('node_modules', 'coldstart-start')]);
  const dir = path.join(app, 'node_modules', 'coldstart-start');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  assert.equal(manifest.dependencies, undefined);
  assert.equal(manifest.version, require('../package.json').version, 'the same version as the coldstart that packs');
  let bytes = 0;
  const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else bytes += fs.statSync(p).size; } };
  walk(dir);
  assert.ok(bytes <= 1024 * 1024, `${bytes} bytes installed`);
  const ofCli = runtimeFiles().filter((rel) => /^lib\/((capture|analyze|report|pack|bundle|commands|check|bench)\/|(cli|options)\.js$)/.test(rel));
  assert.deepStrictEqual(ofCli, [], 'nothing of the CLI');
});

test('coldstart-start serves the app from memory with its code cache, and the app answers as plain node', () => {
  const plain = ok(run(process.execPath, ['server.js'], app), 'plain');
  assert.equal(plain.stdout.trim(), '200 HELLO PACKED 199');
  const report = path.join(base, 'report.json');
  const r = ok(run(process.execPath, [runtimeBin(), '--archive', 'startup.tar', '--report-file', report, '--', 'node', 'server.js'], app), 'coldstart-start');
  assert.equal(r.stdout, plain.stdout);
  assert.match(r.stderr, /^coldstart: serving \d+ files, .* from memory/m);
  const doc = JSON.parse(fs.readFileSync(report, 'utf8'));
  assert.ok(doc.codeCache && doc.codeCache.hits > 0, JSON.stringify(doc.codeCache));
  assert.equal(doc.codeCache.rejected, 0);
});

test('the preload form, node --require coldstart-start, and extract mode work from the runtime package', () => {
  const plain = ok(run(process.execPath, ['server.js'], app), 'plain').stdout;
  const preloaded = ok(run(process.execPath, ['--require', 'coldstart-start', 'server.js'], app, { COLDSTART_ARCHIVE: 'startup.tar' }), 'preload');
  assert.equal(preloaded.stdout, plain);
  assert.match(preloaded.stderr, /^coldstart: serving \d+ files/m);
  const into = path.join(base, 'extracted');
  const extracted = ok(run(process.execPath, [runtimeBin(), '--archive', 'startup.tar', '--into', into, '--', 'node', 'server.js'], app), 'extract');
  assert.equal(extracted.stdout, plain);
  assert.ok(fs.existsSync(path.join(into, 'lib', 'shout.mjs')));
});

test('the runtime package says what it is for and refuses bad words in one line', () => {
  const r = run(process.execPath, [runtimeBin(), '--archive'], app);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^coldstart: .+\n/);
  const usage = run(process.execPath, [path.join(__dirname, '..', 'lib', 'start-package.js')], base);
  assert.equal(usage.status, 2);
  assert.equal(usage.stderr, 'coldstart: usage: node lib/start-package.js DIR\n');
});
