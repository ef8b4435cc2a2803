'use strict';
// A package loaded at startup from two copies (two versions) is named, with each copy's version,
// own time and who required it first, in report.json, the summary and report.html.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm, writeFiles } = require('./helpers/app.js');
const { cpuWorkModule } = require('./helpers/cpu-work.js');
const { copyDir } = require('../lib/analyze/duplicate-packages.js');

test('two copies of one package at startup: advice names both versions, their times and who pulls each', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-dup-'));
  try {
    const work = cpuWorkModule(8);
    writeFiles(dir, {
      'package.json': '{ "name": "dup-app", "private": true }',
      'server.js': "require('dup'); require('a');\nrequire('http').createServer().listen(0);\n",
      'node_modules/dup/package.json': '{ "name": "dup", "version": "1.0.0" }',
      'node_modules/dup/index.js': work,
      'node_modules/a/package.json': '{ "name": "a", "version": "1.0.0" }',
      'node_modules/a/index.js': "module.exports = require('dup');\n",
      'node_modules/a/node_modules/dup/package.json': '{ "name": "dup", "version": "2.0.0" }',
      'node_modules/a/node_modules/dup/index.js': work,
    });
    const r = await runCli(['profile', '--out', 'out', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'report.json'), 'utf8'));
    const dup = report.advice.find((a) => a.kind === 'duplicate-package');
    assert.ok(dup, JSON.stringify(report.advice));
    assert.strictEqual(dup.subject, 'dup');
    assert.deepStrictEqual(dup.copies.map((c) => [c.dir, c.version, c.modules, c.pulledBy]).sort(), [
      ['node_modules/a/node_modules/dup', '2.0.0', 1, 'node_modules/a/index.js'],
      ['node_modules/dup', '1.0.0', 1, 'server.js'],
    ]);
    // The saving is the copies beyond the first: one 8 ms module here.
    assert.strictEqual(dup.estimatedMs, Math.min(...dup.copies.map((c) => c.ms)));
    assert.ok(dup.estimatedMs > 2, JSON.stringify(dup));
    // 1.x and 2.x: no range takes both, so dedupe is not the fix; the one asking for 1.x is named.
    assert.match(dup.fix, /^versions (1\.x and 2\.x|2\.x and 1\.x), which no dedupe merges: update what asks for the older \(first required by server\.js\) to a release that takes 2\.x, or an "overrides" entry to 2\.x if it works with it \(npm ls dup shows who asks for each\)$/);
    assert.match(r.stdout, /\nAdvice .*\n(?: +[\d.]+ ms .*\n)* +[\d.]+ ms +dup is loaded from 2 copies \((1\.0\.0, 2\.0\.0|2\.0\.0, 1\.0\.0)\): versions/);
    assert.match(fs.readFileSync(path.join(dir, 'out', 'report.html'), 'utf8'), /id="advice"[\s\S]*dup: 2 copies/);
    assert.strictEqual(report.packages.filter((p) => p.name === 'dup').length, 1, 'the package table still has one row per name');
  } finally { rm(dir); }
});

test('copyDir: the package copy a file lies in, scoped or not', () => {
  assert.strictEqual(copyDir('/app/node_modules/a/node_modules/dup/lib/x.js'), '/app/node_modules/a/node_modules/dup');
  assert.strictEqual(copyDir('/app/node_modules/@otel/core/build/index.js'), '/app/node_modules/@otel/core');
  assert.strictEqual(copyDir('/app/server.js'), null);
});

test('copies whose versions cannot be read are never called the same version; one version read twice is', () => {
  const { duplicatePackages } = require('../lib/analyze/duplicate-packages.js');
  const modules = [
    { file: '/app/node_modules/lodash/a.js', package: 'lodash', parent: '/app/server.js', selfMs: 20 },
    { file: '/app/node_modules/x/node_modules/lodash/a.js', package: 'lodash', parent: '/app/node_modules/x/index.js', selfMs: 20 },
  ];
  const unread = duplicatePackages({ root: '/app', modules }, { readSource: () => null });
  assert.strictEqual(unread.length, 1);
  assert.doesNotMatch(unread[0].fix, /same version/);
  assert.match(unread[0].fix, /^npm ls lodash shows the 2 copies and who asks for each/);
  const same = duplicatePackages({ root: '/app', modules }, { readSource: () => '{"version":"4.17.21"}' });
  assert.match(same[0].fix, /^the same version installed 2 times: npm dedupe/);
  const two = duplicatePackages({ root: '/app', modules }, { readSource: (f) => (f.includes('/x/') ? '{"version":"3.10.1"}' : '{"version":"4.17.21"}') });
  assert.match(two[0].fix, /^versions 4\.x and 3\.x, which no dedupe merges: update what asks for the older \(first required by \/app\/node_modules\/x\/index\.js, in the app's dependency x\) to a release that takes 4\.x/);
  // Within one line (4.17.21 and 4.0.0, or 0.3.1 and 0.3.0) a shared version exists: align, then dedupe.
  const oneLine = duplicatePackages({ root: '/app', modules }, { readSource: (f) => (f.includes('/x/') ? '{"version":"4.0.0"}' : '{"version":"4.17.21"}') });
  assert.match(oneLine[0].fix, /^align the versions .*then npm dedupe/);
  const zero = duplicatePackages({ root: '/app', modules }, { readSource: (f) => (f.includes('/x/') ? '{"version":"0.3.0"}' : '{"version":"0.4.1"}') });
  assert.match(zero[0].fix, /^versions 0\.4\.x and 0\.3\.x, which no dedupe merges/);
});

test('a duplicate whose other copies come with another duplicate\'s copies says so, and that merging those removes them', () => {
  const { duplicatePackages } = require('../lib/analyze/duplicate-packages.js');
  // express asks mime-types 3 (mime-db 1.54); multer's type-is asks mime-types 2.1 (which pins mime-db 1.52.0).
  const modules = [
    { file: '/app/node_modules/mime-types/index.js', package: 'mime-types', parent: '/app/node_modules/express/lib/utils.js', selfMs: 3 },
    { file: '/app/node_modules/mime-db/index.js', package: 'mime-db', parent: '/app/node_modules/mime-types/index.js', selfMs: 3 },
    { file: '/app/node_modules/multer/node_modules/mime-types/index.js', package: 'mime-types', parent: '/app/node_modules/multer/node_modules/type-is/index.js', selfMs: 2 },
    { file: '/app/node_modules/multer/node_modules/mime-db/index.js', package: 'mime-db', parent: '/app/node_modules/multer/node_modules/mime-types/index.js', selfMs: 2 },
  ];
  const versions = { '/app/node_modules/mime-types': '3.0.2', '/app/node_modules/mime-db': '1.54.0', '/app/node_modules/multer/node_modules/mime-types': '2.1.35', '/app/node_modules/multer/node_modules/mime-db': '1.52.0' };
  const advice = duplicatePackages({ root: '/app', modules }, { readSource: (f) => JSON.stringify({ version: versions[path.dirname(f)] }) });
  const db = advice.find((a) => a.subject === 'mime-db');
  const types = advice.find((a) => a.subject === 'mime-types');
  assert.match(db.fix, /^its other copies are required by the copies of mime-types: they go when those are merged \(the mime-types line\); else align the versions/);
  assert.match(types.fix, /^versions 3\.x and 2\.x, which no dedupe merges: update what asks for the older \(first required by \/app\/node_modules\/multer\/node_modules\/type-is\/index\.js, in the app's dependency multer\)/);
  // A copy required by the app's own file, or through a package inside that copy, follows nothing.
  const own = duplicatePackages({ root: '/app', modules: modules.map((m) => (m.package === 'mime-db' && m.file.includes('multer') ? { ...m, parent: '/app/server.js' } : m)) },
    { readSource: (f) => JSON.stringify({ version: versions[path.dirname(f)] }) });
  assert.match(own.find((a) => a.subject === 'mime-db').fix, /^align the versions/);
});
