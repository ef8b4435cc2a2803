'use strict';
// The programmatic API as TypeScript and ES module users reach it: by the package name, from a
// project that has coldstart in its node_modules.
const test = require('node:test');
const { fastSkips } = require('./helpers/suite.js');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { REPO, rm } = require('./helpers/app.js');

const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

/** A project with coldstart (this checkout) and @types/node in its node_modules. */
function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-api-user-'));
  fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true });
  fs.symlinkSync(REPO, path.join(dir, 'node_modules', 'coldstart'), 'dir');
  fs.symlinkSync(path.join(REPO, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'), 'dir');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'api-user', private: true, type: 'module' }));
  return dir;
}

function tsc(dir, file) {
  const args = [TSC, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', file];
  return spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
}

test('index.d.ts: a TypeScript consumer of the API compiles; wrong uses are type errors', fastSkips('the TypeScript compiler'), () => {
  const dir = project();
  try {
    for (const name of ['consumer.ts', 'misuse.ts']) fs.copyFileSync(path.join(__dirname, 'types', name), path.join(dir, name));
    const ok = tsc(dir, 'consumer.ts');
    assert.strictEqual(ok.status, 0, ok.stdout + ok.stderr);
    const bad = tsc(dir, 'misuse.ts');
    assert.notStrictEqual(bad.status, 0, 'misuse.ts compiled');
    const errors = bad.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
    assert.strictEqual(errors.length, 4, bad.stdout);
    assert.match(bad.stdout, /misuse\.ts\(4,/, 'a command given as a string');
    assert.match(bad.stdout, /misuse\.ts\(5,/, 'a duration without ms');
    assert.match(bad.stdout, /misuse\.ts\(6,/, 'files is a number');
    assert.match(bad.stdout, /misuse\.ts\(8,/, 'a tolerance given as a number');
  } finally { rm(dir); }
});

test('import { profile } from "coldstart" works in an ES module and profiles a real app', () => {
  const dir = project();
  try {
    fs.writeFileSync(path.join(dir, 'app.cjs'), "require('http').createServer().listen(0, () => console.log('up'));\n");
    fs.writeFileSync(path.join(dir, 'use.mjs'), `import { profile, capture, pack, summarize } from 'coldstart';
import coldstart from 'coldstart';
const { report } = await profile({ command: ['node', 'app.cjs'], stdout: null, stderr: null });
console.log(JSON.stringify({ kinds: [capture, pack, summarize].map((f) => typeof f), same: coldstart.profile === profile,
  readyAt: report.readyAt, modules: report.modules.map((m) => m.file), median: summarize([3, 1, 2]).median }));
`);
    const r = spawnSync(process.execPath, ['use.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.strictEqual(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop());
    assert.deepStrictEqual(out.kinds, ['function', 'function', 'function']);
    assert.strictEqual(out.same, true, 'the default export is the CommonJS exports object');
    assert.ok(out.readyAt > 0, r.stdout);
    assert.deepStrictEqual(out.modules, ['app.cjs']);
    assert.strictEqual(out.median, 2);
  } finally { rm(dir); }
});
