'use strict';
// An app whose entry sits in a folder of its own below the working directory, with its own
// package.json (Next.js's .next/standalone, a build folder): pack's paths are under that folder,
// and start, run with the same command from the same place, serves them from there.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCli, spawnCli, writeFiles, rm } = require('./helpers/app.js');

const EXIT_ON_LISTEN = path.join(__dirname, 'helpers', 'exit-on-listen.js');
const APP = 'build/standalone';
const FILES = {
  'package.json': '{ "name": "project", "private": true }\n',
  [`${APP}/package.json`]: '{ "name": "standalone", "private": true }\n',
  // As Next.js's standalone server, it moves into its own folder first.
  [`${APP}/server.js`]: "process.chdir(__dirname);\nconst greet = require('./lib/greet.js');\nconst dep = require('dep');\n" +
    "require('node:http').createServer((req, res) => res.end(greet(dep.name))).listen(0, () => console.log('listening'));\n",
  [`${APP}/lib/greet.js`]: 'module.exports = (name) => `hello from ${name}`;\n',
  [`${APP}/node_modules/dep/package.json`]: '{ "name": "dep", "version": "1.0.0" }\n',
  [`${APP}/node_modules/dep/index.js`]: "exports.name = 'dep';\n",
};
const SERVED = ['server.js', 'lib/greet.js', 'node_modules/dep/index.js'];

function project(t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-app-root-')));
  t.after(() => rm(dir));
  writeFiles(dir, FILES);
  return dir;
}

/** `coldstart start ARGS -- node -r exit-on-listen build/standalone/server.js` from dir, to its exit. */
async function startFrom(dir, args) {
  const run = spawnCli(['start', ...args, '--', 'node', '-r', EXIT_ON_LISTEN, `${APP}/server.js`], { cwd: dir });
  const result = await run.done;
  assert.strictEqual(result.code, 0, result.stderr);
  assert.match(result.stdout, /listening/);
  return result;
}

test('start from the project folder serves the archive pack made there of an app in its own folder below', async (t) => {
  const dir = project(t);
  const packed = await runCli(['pack', '-q', '--code-cache', '--until', 'listen', '--out', 'startup.tar', '--', 'node', `${APP}/server.js`], { cwd: dir });
  assert.strictEqual(packed.code, 0, packed.stderr);
  // The recording run of the code cache started the app from the same root: nothing compiled instead.
  assert.doesNotMatch(packed.stderr, /compiled no module|compiled without running/, packed.stderr);

  const memory = await startFrom(dir, ['--archive', 'startup.tar', '--report-file', 'report.json']);
  assert.doesNotMatch(memory.stderr, /came from disk/, memory.stderr);
  // --report-file names a file from where start ran, though the app changed its directory.
  const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
  assert.deepStrictEqual(report.fromDisk.filter((f) => f.beforeReady).map((f) => f.file), [], 'every file of the app came from the archive');
  assert.ok(report.codeCache && report.codeCache.hits >= SERVED.length, `code cache used: ${JSON.stringify(report.codeCache)}`);

  // Extract mode writes over the app's own folder, not beside the project's package.json.
  fs.rmSync(path.join(dir, APP, 'lib'), { recursive: true });
  const extracted = await startFrom(dir, ['--archive', 'startup.tar', '--mode', 'extract']);
  assert.match(extracted.stderr, /extracted \d+ files/);
  assert.ok(fs.existsSync(path.join(dir, APP, 'lib', 'greet.js')), 'written into the app folder');
  assert.ok(!fs.existsSync(path.join(dir, 'server.js')) && !fs.existsSync(path.join(dir, 'lib')), 'nothing written into the project folder');

  // --into: the app runs from DIR, where its files landed.
  const into = path.join(dir, 'into');
  const moved = await startFrom(dir, ['--archive', 'startup.tar', '--into', into]);
  assert.doesNotMatch(moved.stderr, /not in startup\.tar/, moved.stderr);
  for (const rel of SERVED) assert.ok(fs.existsSync(path.join(into, rel)), rel);
});

test('start --root names the folder the archive is under, as pack --root did', async (t) => {
  const dir = project(t);
  const packed = await runCli(['pack', '-q', '--root', '.', '--until', 'listen', '--out', 'startup.tar', '--', 'node', `${APP}/server.js`], { cwd: dir });
  assert.strictEqual(packed.code, 0, packed.stderr);
  const fromRoot = await startFrom(dir, ['--archive', 'startup.tar', '--root', '.', '--report-file', 'report.json']);
  assert.doesNotMatch(fromRoot.stderr, /came from disk/, fromRoot.stderr);
  const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
  assert.deepStrictEqual(report.fromDisk.filter((f) => f.beforeReady).map((f) => f.file), []);
  // Without it, start takes the app's folder as the root: the archive's paths (build/standalone/...)
  // are not there, and the files come from disk, said in one line.
  const without = await startFrom(dir, ['--archive', 'startup.tar']);
  assert.match(without.stderr, /came from disk/, without.stderr);
});
