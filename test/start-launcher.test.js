'use strict';
// `coldstart start` as the container runs it: a real bin/coldstart.js process that extracts the
// archive, then becomes the app (same argv, same exit code, same signals), and never stops the
// app because of an archive problem.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { spawn } = require('node:child_process');
const { Header } = require('tar');

const { writeArchive } = require('../lib/pack/archive.js');

const BIN = path.join(__dirname, '..', 'bin', 'coldstart.js');
const APP_FIXTURE = path.join(__dirname, '..', 'fixtures', 'start-app');
const ESM_FIXTURE = path.join(__dirname, '..', 'fixtures', 'start-esm');
const APP_FILES = ['app.js', 'config.json', 'lib/greet.js', 'preload.js'];
const TIMEOUT_MS = 15000;

// A private copy of a fixture (extraction writes over it) with its archive beside it.
function appCopy(t, fixture = APP_FIXTURE, files = APP_FILES) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-start-')));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const cwd = path.join(base, 'app');
  fs.cpSync(fixture, cwd, { recursive: true });
  const archive = path.join(base, 'startup.tar');
  writeArchive({ root: cwd, files, out: archive });
  return { base, cwd, archive };
}

// Runs `coldstart start ...`; resolves when it exits. `onStdout` sees the output as it comes.
function start(t, args, { cwd, onStdout } = {}) {
  const child = spawn(process.execPath, [BIN, 'start', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
    if (onStdout) onStdout(stdout, child);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr += chunk; });
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`coldstart start timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return Object.assign(done, { child });
}

function runDirect(t, args, cwd) {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => { stdout += chunk; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

function firstJson(stdout) {
  return JSON.parse(stdout.split('\n').find((line) => line.startsWith('{')));
}

test('the app sees the argv and require.main it would see when started directly', async (t) => {
  const { cwd, archive } = appCopy(t);
  const direct = firstJson((await runDirect(t, ['app.js', 'report', 'a b', '--flag'], cwd)).stdout);
  const started = await start(t, ['--archive', archive, '--mode', 'extract', '--', 'node', 'app.js', 'report', 'a b', '--flag'], { cwd });
  assert.strictEqual(started.code, 0, started.stderr);
  const seen = firstJson(started.stdout);
  assert.deepStrictEqual(seen, direct);
  assert.strictEqual(seen.isMain, true);
  assert.deepStrictEqual(seen.argv, [process.execPath, path.join(cwd, 'app.js'), 'report', 'a b', '--flag']);
  assert.match(started.stderr, /^coldstart: extracted 4 files, [\d.]+ (B|kB) in [\d.]+ ms\n$/);
});

test('an app packed and extracted into an empty directory with --into reaches listen', async (t) => {
  const { base, cwd, archive } = appCopy(t);
  // Only the archive is left: the app can only run from what was extracted.
  for (const file of APP_FILES) fs.rmSync(path.join(cwd, file));
  const into = path.join(base, 'tmpfs', 'app');
  let ready;
  const listening = new Promise((resolve) => { ready = resolve; });
  const run = start(t, ['--archive=' + archive, '--into', into, '--', 'node', 'app.js', 'listen'], {
    cwd,
    onStdout: (stdout) => { if (stdout.includes('\n')) ready(firstJson(stdout)); },
  });
  const report = await Promise.race([listening, run.then((r) => { throw new Error(`exited early: ${r.stderr}`); })]);
  assert.strictEqual(report.filename, path.join(into, 'app.js'));
  assert.strictEqual(report.cwd, into);
  assert.strictEqual(report.isMain, true);
  const body = await new Promise((resolve, reject) => {
    http.get(`http://127.0.0.1:${report.port}/`, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve(text));
    }).on('error', reject);
  });
  assert.strictEqual(body, 'hello from coldstart');
  run.child.kill('SIGTERM'); // the app closes its server and exits by itself
  const result = await run;
  assert.strictEqual(result.code, 0, result.stderr);
  assert.match(result.stderr, /coldstart: extracted \d+ files/);
  assert.ok(!fs.existsSync(path.join(into, '.coldstart')), 'pack\'s own index is not written into the app directory');
});

test('a missing archive gives one warning line and the app still starts', async (t) => {
  const { base, cwd } = appCopy(t);
  const result = await start(t, ['--archive', path.join(base, 'nope.tar'), '--', 'node', 'app.js', 'report'], { cwd });
  assert.strictEqual(result.code, 0);
  assert.strictEqual(firstJson(result.stdout).isMain, true);
  assert.match(result.stderr, /^coldstart: warning: archive not found: .*nope\.tar; starting the app without it\n$/);
});

test('an app command start cannot run in-process (npm start) is one clear line and exit 2', async (t) => {
  const { cwd, archive } = appCopy(t);
  const result = await start(t, ['--archive', archive, '--', 'npm', 'start'], { cwd });
  assert.strictEqual(result.code, 2);
  assert.match(result.stderr, /^coldstart: the app's entry npm is not a file here; .*give -- node <script>.*\n$/);
  assert.strictEqual(result.stdout, '');
});

test('a corrupt archive gives one warning line and the app starts from the working directory', async (t) => {
  const { base, cwd, archive } = appCopy(t);
  const bytes = fs.readFileSync(archive);
  bytes[0] ^= 0x01;
  fs.writeFileSync(archive, bytes);
  const into = path.join(base, 'into');
  const result = await start(t, ['--archive', archive, '--into', into, '--', 'node', 'app.js', 'report'], { cwd });
  assert.strictEqual(result.code, 0);
  assert.strictEqual(firstJson(result.stdout).filename, path.join(cwd, 'app.js'));
  assert.match(result.stderr, /^coldstart: warning: could not extract .* corrupt archive: bad header checksum at offset 0; starting the app from the working directory\n$/);
  assert.strictEqual(fs.existsSync(into), false);
});

test('a target that cannot be written gives one warning line and the app starts from the working directory', async (t) => {
  const { cwd, archive } = appCopy(t);
  const into = path.join(archive, 'below-a-file'); // mkdir fails, as on a read-only or full disk
  const result = await start(t, ['--archive', archive, '--into', into, '--', 'node', 'app.js', 'report'], { cwd });
  assert.strictEqual(result.code, 0);
  assert.strictEqual(firstJson(result.stdout).filename, path.join(cwd, 'app.js'));
  assert.match(result.stderr, /^coldstart: warning: could not extract .* ENOTDIR.*; starting the app from the working directory\n$/);
});

test('unsafe archive entries are refused with a warning and the app still starts', async (t) => {
  const { base, cwd } = appCopy(t);
  const archive = path.join(base, 'evil.tar');
  const blocks = [];
  for (const [name, type, linkpath] of [['../escaped.txt', 'File'], ['/tmp/coldstart-evil-abs', 'File'], ['out', 'SymbolicLink', '../..']]) {
    const data = type === 'File' ? Buffer.from('evil\n') : Buffer.alloc(0);
    const header = new Header({ path: name, mode: 0o644, size: data.length, mtime: new Date(0), type, linkpath });
    header.encode();
    blocks.push(header.block, data, Buffer.alloc(data.length ? 512 - data.length : 0));
  }
  fs.writeFileSync(archive, Buffer.concat([...blocks, Buffer.alloc(1024)]));
  const result = await start(t, ['--archive', archive, '--mode', 'extract', '--', 'node', 'app.js', 'report'], { cwd });
  assert.strictEqual(result.code, 0);
  assert.strictEqual(firstJson(result.stdout).isMain, true);
  assert.match(result.stderr, /coldstart: warning: refused 3 unsafe archive entries: \.\.\/escaped\.txt, \/tmp\/coldstart-evil-abs, out\n$/);
  assert.strictEqual(fs.existsSync(path.join(base, 'escaped.txt')), false);
  assert.strictEqual(fs.existsSync('/tmp/coldstart-evil-abs'), false);
  // Memory mode never writes; it refuses the same entries (links are never served).
  const memory = await start(t, ['--archive', archive, '--', 'node', 'app.js', 'report'], { cwd });
  assert.strictEqual(memory.code, 0);
  assert.match(memory.stderr, /coldstart: warning: refused 2 unsafe archive entries: \.\.\/escaped\.txt, \/tmp\/coldstart-evil-abs\n/);
  assert.strictEqual(fs.existsSync(path.join(base, 'escaped.txt')), false);
});

test('the app exit code passes through', async (t) => {
  const { cwd, archive } = appCopy(t);
  const result = await start(t, ['--archive', archive, '--quiet', '--', 'node', 'app.js', 'exit', '3'], { cwd });
  assert.strictEqual(result.code, 3);
  assert.strictEqual(result.stderr, '', '--quiet prints nothing when all goes well');
});

test('SIGTERM reaches the app handler, and without a handler the process dies by SIGTERM', async (t) => {
  const { cwd, archive } = appCopy(t);
  for (const [mode, expected] of [['wait-signal', { code: 0, signal: null }], ['wait', { code: null, signal: 'SIGTERM' }]]) {
    let signalled = false;
    const result = await start(t, ['--archive', archive, '--', 'node', 'app.js', mode], {
      cwd,
      onStdout: (stdout, child) => {
        if (!signalled && stdout.includes('ready\n')) {
          signalled = true;
          child.kill('SIGTERM');
        }
      },
    });
    assert.deepStrictEqual({ code: result.code, signal: result.signal }, expected, `${mode}: ${result.stderr}`);
    if (mode === 'wait-signal') assert.match(result.stdout, /app got SIGTERM/);
  }
});

test('node flags: -r preloads run first, others are ignored with one warning; no node word needed', async (t) => {
  const { cwd, archive } = appCopy(t);
  const result = await start(t, ['--archive', archive, '-q', '--', 'node', '-r', './preload.js',
    '--max-old-space-size=64', '--enable-source-maps', 'app.js', 'report'], { cwd });
  assert.strictEqual(result.code, 0, result.stderr);
  const report = firstJson(result.stdout);
  const direct = firstJson((await runDirect(t, ['-r', './preload.js', 'app.js', 'report'], cwd)).stdout);
  assert.deepStrictEqual(direct.preloaded, ['require (parent internal/preload)']);
  assert.deepStrictEqual(report.preloaded, direct.preloaded);
  assert.deepStrictEqual(report.execArgv, ['-r', './preload.js', '--max-old-space-size=64', '--enable-source-maps']);
  assert.strictEqual(result.stderr,
    'coldstart: warning: node flags ignored when the app runs in-process: --max-old-space-size=64 (put them in NODE_OPTIONS)\n');

  const bare = await start(t, ['--archive', archive, '-q', 'app.js', 'report', 'x'], { cwd });
  assert.strictEqual(bare.code, 0, bare.stderr);
  assert.deepStrictEqual(firstJson(bare.stdout).argv.slice(1), [path.join(cwd, 'app.js'), 'report', 'x']);
});

test('an ES module entry runs as the main module after its --import preloads', async (t) => {
  const { cwd, archive } = appCopy(t, ESM_FIXTURE, ['app.js', 'package.json', 'preload.mjs']);
  // A bare --import resolves from the working directory with ESM conditions, as Node's does.
  const pkg = path.join(cwd, 'node_modules', 'dual-preload');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({
    name: 'dual-preload', exports: { import: './esm.mjs', require: './cjs.cjs' },
  }));
  fs.writeFileSync(path.join(pkg, 'esm.mjs'), "globalThis.startFixturePreloads = (globalThis.startFixturePreloads || []).concat('bare-esm');\n");
  fs.writeFileSync(path.join(pkg, 'cjs.cjs'), "globalThis.startFixturePreloads = (globalThis.startFixturePreloads || []).concat('bare-cjs');\n");

  const result = await start(t, ['--archive', archive, '-q', '--', 'node', '--import', './preload.mjs',
    '--import=dual-preload', 'app.js', 'one'], { cwd });
  assert.strictEqual(result.code, 0, result.stderr);
  assert.strictEqual(result.stderr, '', 'no warning of ours reaches the app stderr');
  const report = firstJson(result.stdout);
  assert.strictEqual(report.urlMatchesArgv, true);
  assert.deepStrictEqual(report.argv, [process.execPath, path.join(cwd, 'app.js'), 'one']);
  assert.deepStrictEqual(report.preloaded, ['import', 'bare-esm']);
});

test('no app command is a usage error (exit 2)', async (t) => {
  const result = await start(t, ['--archive', 'x.tar'], { cwd: os.tmpdir() });
  assert.strictEqual(result.code, 2);
  assert.match(result.stderr, /^coldstart: name the app to run after --/);
});

test('one table of node flags: a flag value given as a separate word is never taken for the entry', () => {
  const { parseStartArgs } = require('../lib/start/launcher.js');
  const { checkCommand } = require('../lib/capture/command-check.js');
  const command = ['node', '--max-old-space-size', '100', '--report-dir', os.tmpdir(), 'app.js'];
  assert.strictEqual(parseStartArgs(['--', ...command]).app.entry, 'app.js');
  assert.doesNotThrow(() => checkCommand(command, APP_FIXTURE), 'the value of --report-dir is not the entry');
});
