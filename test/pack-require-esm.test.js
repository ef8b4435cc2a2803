'use strict';
// An app in CommonJS that loads an ES-module-only package through require(esm), as a NestJS 12 app
// compiled to CommonJS does: the archive alone starts it. Node's ES module resolver reads each
// package's package.json ("exports", "type", "main") without fs, so the archive must hold those of
// every package the graph read, not only of the modules the agent saw as modules.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { runCli, rm, writeFiles } = require('./helpers/app.js');

test('pack of a CommonJS app on an ES-module-only package (require(esm)): the tar alone starts it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-require-esm-'));
  const alone = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-require-esm-alone-'));
  try {
    writeFiles(dir, {
      'package.json': '{ "name": "app", "private": true }\n',
      'app.js': "'use strict';\nconst { greet } = require('framework');\nconsole.log(greet('archive'));\n",
      // ESM-only, resolved through "exports", importing a package found by its "main".
      'node_modules/framework/package.json': '{ "name": "framework", "type": "module", "exports": { ".": "./lib/index.js" } }\n',
      'node_modules/framework/lib/index.js': "import { uid } from 'uid';\nexport function greet(who) { return `hello ${who} ${uid().length}`; }\n",
      'node_modules/uid/package.json': '{ "name": "uid", "type": "module", "main": "dist/index.js" }\n',
      'node_modules/uid/dist/index.js': "export function uid() { return 'abcdef'; }\n",
      'node_modules/unused/package.json': '{ "name": "unused" }\n',
    });
    const packed = await runCli(['pack', '--until', 'exit', '--out', path.join(dir, 'app.tar'), '--', 'node', 'app.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const listed = spawnSync('tar', ['-tf', path.join(dir, 'app.tar')], { encoding: 'utf8' }).stdout.split('\n');
    for (const file of ['node_modules/framework/package.json', 'node_modules/uid/package.json', 'node_modules/uid/dist/index.js']) {
      assert.ok(listed.includes(file), `${file} is in the archive: ${listed.join(' ')}`);
    }
    assert.ok(!listed.includes('node_modules/unused/package.json'), 'a package startup did not read stays out');
    assert.strictEqual(spawnSync('tar', ['-xf', path.join(dir, 'app.tar'), '-C', alone]).status, 0);
    const run = spawnSync(process.execPath, ['app.js'], { cwd: alone, encoding: 'utf8' });
    assert.strictEqual(run.status, 0, run.stderr);
    assert.strictEqual(run.stdout, 'hello archive 6\n');
  } finally {
    rm(dir);
    rm(alone);
  }
});
