'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { copyFixture, runCli, rm, writeFiles } = require('./helpers/app.js');
const { mayImport, mayImportLater } = require('../lib/in-app/import-keyword.cjs');

test('an ESM app with top-level await: modules timed, files listed', async () => {
  const dir = copyFixture('esm-app');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', 'index.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    const byFile = new Map(report.modules.map((m) => [m.file, m]));
    for (const f of ['index.js', 'lib/greeting.js', 'lib/settings.js']) {
      assert.ok(byFile.has(f), `${f} recorded`);
      assert.strictEqual(byFile.get(f).kind, 'esm');
    }
    assert.strictEqual(byFile.get('lib/greeting.js').parent, 'index.js');
    const index = byFile.get('index.js');
    assert.ok(index.inclusiveMs >= byFile.get('lib/settings.js').inclusiveMs);
    const fs = require('fs');
    const list = fs.readFileSync(`${dir}/.coldstart/startup-files.txt`, 'utf8').trim().split('\n');
    for (const f of ['index.js', 'lib/greeting.js', 'lib/settings.js', 'settings.json', 'package.json']) assert.ok(list.includes(f), f);
  } finally {
    rm(dir);
  }
});

test('a --require preload is profiled from its first line', async () => {
  const dir = copyFixture('preload-app');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', '--require', './tracing.js', 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    const files = report.modules.map((m) => m.file);
    assert.ok(files.includes('tracing.js') && files.includes('server.js'));
    assert.ok(files.indexOf('tracing.js') < files.indexOf('server.js'), 'the preload loads first');
    assert.ok(files.includes('tracing-config.json'));
  } finally {
    rm(dir);
  }
});

test('module timing: CommonJS source that may load ES modules is told from source that cannot by its `import` keywords, comments left out; an import() from the rest', () => {
  for (const source of [
    "const m = await import('./x.mjs');",
    'import(specifier).then(run);',
    "import { a } from './a.js';\nexport const b = a;",
    "import x from 'y'",
    "import*as ns from 'z'",
    "import'./side-effect.js'",
    'const dir = import.meta.dirname;',
    "foo(); /* a comment closed before */ import('x');",
    "const s = 'import the config'; // a string only brings the hooks in early",
  ]) assert.strictEqual(mayImport(source), true, source);
  for (const source of [
    "'use strict';\nmodule.exports = require('./lib');",
    "/** @type {import('./types').Options} */\nmodule.exports = {};",
    " * @param {import('y').Z} z\n",
    "// import the config lazily\nconst c = require('./config');",
    "x = /** @type {import('./get')} */ function getDunder() {};",
    '// eslint-disable-next-line import/no-extraneous-dependencies',
    'const r = __importDefault(require("x")); exports.important = reimport;',
    'obj.imports = []; importer(); const imported = 1;',
  ]) assert.strictEqual(mayImport(source), false, source);
  for (const [source, later] of [
    ["import x from 'y';\nexport default x;", false],
    ['const dir = import.meta.dirname;', false],
    ["export const load = () => import('./late.js');", true],
    ['await import (\n  specifier);', true],
    ["/** @type {import('./types').T} */\nexport const t = 1;", false],
  ]) assert.strictEqual(mayImportLater(source), later, source);
});

// On Node 22.15+ a CommonJS app gets the in-thread hooks only while ES modules load, not from its
// start (every require() pays for hooks while they are registered): what is recorded must be what
// hooks registered from the start record.
test('a CommonJS app on ES modules (require(esm) of "type": "module", .mjs and a package without a type; import()): the same records with the hooks in only while ES modules load as with them from its start', async (t) => {
  if (typeof require('module').registerHooks !== 'function') return t.skip('in-thread hooks need Node 22.15 or later');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-first-esm-'));
  try {
    writeFiles(dir, {
      'package.json': JSON.stringify({ name: 'first-esm', version: '1.0.0' }),
      'node_modules/typed/package.json': JSON.stringify({ name: 'typed', type: 'module', exports: './index.js' }),
      'node_modules/typed/index.js': "import { helper } from './helper.js';\nexport const value = helper() + 1;\n",
      'node_modules/typed/helper.js': 'export function helper() { let x = 0; for (let i = 0; i < 1e5; i++) x += i; return x; }\n',
      'node_modules/mjs/package.json': JSON.stringify({ name: 'mjs', main: 'index.mjs' }),
      'node_modules/mjs/index.mjs': "import path from 'node:path';\nimport { other } from './other.mjs';\nexport default path.join('a', other);\n",
      'node_modules/mjs/other.mjs': "export const other = 'b';\n",
      'node_modules/typeless/package.json': JSON.stringify({ name: 'typeless' }),
      'node_modules/typeless/index.js': "import { x } from './x.js';\nexport const y = x;\n",
      'node_modules/typeless/x.js': 'export const x = 7;\n',
      'node_modules/dynamic/package.json': JSON.stringify({ name: 'dynamic', type: 'module', exports: './index.js' }),
      'node_modules/dynamic/index.js': "import { value } from './dep.js';\nexport default value;\n",
      'node_modules/dynamic/dep.js': 'export const value = 42;\n',
      'node_modules/cjs/package.json': JSON.stringify({ name: 'cjs' }),
      'node_modules/cjs/index.js': "/** @type {import('./types').X} */\nmodule.exports = { c: 1 };\n",
      'node_modules/imports-cjs/package.json': JSON.stringify({ name: 'imports-cjs', type: 'module', exports: './index.js' }),
      'node_modules/imports-cjs/index.js': "import c from './c.cjs';\nexport default c;\n",
      'node_modules/imports-cjs/c.cjs': "module.exports = require('cjs');\n",
      'node_modules/later/package.json': JSON.stringify({ name: 'later', type: 'module', exports: './index.js' }),
      'node_modules/later/index.js': "import './kick.js';\nexport const y = 2;\n",
      'node_modules/later/kick.js': "setTimeout(() => import('./late.js'), 1);\n",
      'node_modules/later/late.js': 'export const x = 1;\n',
      'node_modules/again/package.json': JSON.stringify({ name: 'again' }),
      'node_modules/again/index.js': "module.exports = require('mjs');\n",
      // No `import` in it: the hooks go in at the first require() of an ES module.
      'required.js': "'use strict';\nrequire('cjs');\nrequire('typed');\nrequire('mjs');\nrequire('typeless');\nrequire('http').createServer((q, s) => s.end()).listen(0);\n",
      // An import(): in at this file's compilation.
      'imported.js': "'use strict';\nrequire('cjs');\nimport('dynamic').then(() => { require('typed'); require('http').createServer((q, s) => s.end()).listen(0); });\n",
      // The hooks go in for each require() of an ES module and out when it returns, CommonJS
      // loaded between them without; an import() in an ES module (later) keeps them in.
      'windows.js': "'use strict';\nrequire('typed');\nrequire('cjs');\nrequire('again');\nrequire('imports-cjs');\nrequire('later');\nsetTimeout(() => require('http').createServer((q, s) => s.end()).listen(0), 20);\n",
    });
    for (const entry of ['required.js', 'imported.js', 'windows.js']) {
      const seen = {};
      for (const esm of ['auto', 'always']) {
        const { code, stdout, stderr } = await runCli(['profile', '--json', '--esm', esm, '--', 'node', entry], { cwd: dir });
        assert.strictEqual(code, 0, stderr);
        const report = JSON.parse(stdout);
        seen[esm] = { modules: report.modules.map((m) => `${m.file} ${m.kind} from ${m.parent}`).sort(), files: report.files };
      }
      assert.deepStrictEqual(seen.auto, seen.always, entry);
      assert.ok(seen.auto.modules.includes('node_modules/typed/helper.js esm from node_modules/typed/index.js'), seen.auto.modules.join('\n'));
      if (entry === 'windows.js') assert.ok(seen.auto.modules.includes('node_modules/later/late.js esm from node_modules/later/kick.js'), seen.auto.modules.join('\n'));
    }
  } finally {
    rm(dir);
  }
});
