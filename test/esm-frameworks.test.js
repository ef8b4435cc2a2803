'use strict';
// Today's ES-module-only frameworks, installed from the registry (devDependencies): a NestJS 12
// app compiled to CommonJS (Nest's ES modules loaded through require(esm)) and an ES-module app on
// ES-module-only packages (Nest, nanoid). The archive alone starts each and answers GET /; the
// profile counts Nest's ES modules as modules; package times never add up to more than the time
// to ready, on a busy machine too. And pack's check of its archive fails, naming the file, when a
// startup file was read where the run could not see it.
const test = require('./helpers/suite.js').testLeftOutOfFast('whole framework apps (NestJS, fastify) packed and bundled');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { spawn, spawnSync } = require('child_process');
const { copyFixture, runCli, rm, writeFiles } = require('./helpers/app.js');
const { startBusyLoops } = require('./helpers/busy-loops.js');

const APPS = [
  { fixture: 'nest-app', command: ['node', 'dist/main.js'] },
  { fixture: 'esm-only-app', command: ['node', 'src/main.js'] },
];

/** Starts `node entry` in dir, waits for its "listening on URL" line, GETs /, ends it. */
function startAndGet(dir, entry) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry], { cwd: dir, env: { ...process.env, PORT: '0', NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no listening line: ${out}`)); }, 60_000);
    const onData = (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out);
      if (!url || child.answered) return;
      child.answered = true;
      http.get(url[1] + '/', (res) => {
        let body = '';
        res.on('data', (c) => { body += c; });
        res.on('end', () => { clearTimeout(timer); child.kill('SIGKILL'); resolve({ status: res.statusCode, body }); });
      }).on('error', (err) => { clearTimeout(timer); child.kill('SIGKILL'); reject(err); });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { if (!child.answered) { clearTimeout(timer); reject(new Error(`exited ${code}: ${out}`)); } });
  });
}

for (const { fixture, command } of APPS) {
  test(`${fixture}: pack checks its archive, and the tar alone starts the app and answers GET /`, { timeout: 240_000 }, async () => {
    const dir = copyFixture(fixture);
    const alone = fs.mkdtempSync(path.join(os.tmpdir(), `cs-${fixture}-alone-`));
    try {
      const packed = await runCli(['pack', '--out', path.join(dir, 'app.tar'), '--', ...command], { cwd: dir });
      assert.strictEqual(packed.code, 0, packed.stderr);
      assert.match(packed.stdout, /checked: its files alone, in an empty directory, started the app/);
      assert.strictEqual(spawnSync('tar', ['-xf', path.join(dir, 'app.tar'), '-C', alone]).status, 0);
      const answer = await startAndGet(alone, command[1]);
      assert.deepStrictEqual(answer, { status: 200, body: 'ok' });
    } finally {
      rm(dir);
      rm(alone);
    }
  });

  test(`${fixture}: the profile counts Nest's ES modules as modules; package times add up to at most the time to ready, idle and under two busy loops`, { timeout: 300_000 }, async () => {
    const dir = copyFixture(fixture);
    let loops = null;
    try {
      for (const busy of [false, true]) {
        if (busy) loops = await startBusyLoops(2);
        const out = path.join(dir, busy ? 'busy' : 'idle');
        const profiled = await runCli(['profile', '--out', out, '--', ...command], { cwd: dir });
        assert.strictEqual(profiled.code, 0, profiled.stderr);
        const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
        const nestModules = report.modules.filter((m) => m.kind === 'esm' && /^@nestjs\//.test(m.package));
        assert.ok(nestModules.length >= 300, `${nestModules.length} ES modules of @nestjs/* (busy: ${busy})`);
        const packageSum = report.packages.reduce((sum, p) => sum + p.selfMs, 0);
        assert.ok(packageSum <= report.readyAt, `package self times ${packageSum.toFixed(1)} ms <= time to ready ${report.readyAt} ms (busy: ${busy})`);
        const moduleSum = report.modules.reduce((sum, m) => sum + m.selfMs, 0);
        assert.ok(moduleSum <= report.readyAt, `module self times ${moduleSum.toFixed(1)} ms <= time to ready ${report.readyAt} ms (busy: ${busy})`);
      }
    } finally {
      if (loops) await loops.stop();
      rm(dir);
    }
  });
}

test('pack fails, naming the file and keeping no archive, when startup read a file only through a child process', { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-check-unseen-'));
  try {
    writeFiles(dir, {
      'package.json': '{ "name": "unseen", "private": true }\n',
      'settings.json': '{ "greeting": "hello" }\n',
      // cat reads the file: no Node process, so no agent saw the read.
      'server.js': "'use strict';\nconst { execFileSync } = require('child_process');\n" +
        "const settings = JSON.parse(execFileSync('cat', [require('path').join(__dirname, 'settings.json')], { encoding: 'utf8' }));\n" +
        "require('http').createServer((q, s) => s.end(settings.greeting)).listen(0, '127.0.0.1');\n",
    });
    const packed = await runCli(['pack', '--out', 'app.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(packed.code, 1, packed.stdout + packed.stderr);
    assert.match(packed.stderr, new RegExp(`${path.join(dir, 'settings.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not in it`));
    assert.match(packed.stderr, /--no-verify/);
    assert.strictEqual(fs.existsSync(path.join(dir, 'app.tar')), false, 'no archive kept');

    const unchecked = await runCli(['pack', '--no-verify', '--out', 'app.tar', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(unchecked.code, 0, unchecked.stderr);
    assert.ok(fs.existsSync(path.join(dir, 'app.tar')));
    assert.doesNotMatch(unchecked.stdout, /checked:/);
  } finally {
    rm(dir);
  }
});

test('nest-app: the bundle holds Nest (ES modules, bundled by ncc), starts reading fewer than 100 files, and answers GET /', { timeout: 300_000 }, async () => {
  const dir = copyFixture('nest-app');
  try {
    const bundled = await runCli(['bundle', '--json', '--runs', '2', '--out', 'bundled', '--', 'node', 'dist/main.js'], { cwd: dir });
    assert.strictEqual(bundled.code, 0, bundled.stderr);
    const summary = JSON.parse(bundled.stdout);
    assert.deepStrictEqual(summary.externals.map((e) => e.name), [], 'nothing kept external');
    assert.deepStrictEqual(summary.preloadPackages, [], 'no preload: no package is said to be for one');
    assert.ok(summary.bundle.files < 100, `the bundle read ${summary.bundle.files} files (the app ${summary.original.files})`);
    const answer = await startAndGet(path.join(dir, 'bundled'), 'dist/main.js');
    assert.deepStrictEqual(answer, { status: 200, body: 'ok' });
  } finally {
    rm(dir);
  }
});
