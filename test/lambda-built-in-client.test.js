'use strict';
// --lambda where aws-lambda-ric is not installed (it needs a compiler at install): coldstart's own
// runtime client starts the handler against the Runtime API coldstart serves, and says so. The
// same outcomes as with aws-lambda-ric: init and the first invocation apart, a failed invocation
// exit 1, a handler not exported one line and exit 2, and pack archives what init and the event read.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');

const NOTE = /^coldstart: aws-lambda-ric is not installed beside the handler: coldstart's own runtime client starts it/m;

function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-lambda-built-in-'));
  const files = {
    'package.json': '{ "name": "fn", "private": true }',
    // ES module handler, its own module, and a timing of its init on its own clock.
    'handler.mjs': "import { greet } from './lib/greet.mjs';\nconst end = performance.now() + 40; while (performance.now() < end);\nexport const handler = async (event, context) => ({ statusCode: 200, body: greet(event.name), id: context.awsRequestId });\n",
    'lib/greet.mjs': 'export const greet = (name) => `hello ${name}`;\n',
    'callback.cjs': "exports.handler = (event, context, callback) => callback(null, { ok: true });\n",
    'throws.cjs': "exports.handler = async () => { throw new TypeError('no such table'); };\n",
    'event.json': '{ "name": "ada" }',
  };
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

test('profile --lambda without aws-lambda-ric: coldstart\'s client runs init and the first invocation, the function\'s modules only', async () => {
  const dir = project();
  try {
    const r = await runCli(['profile', '--json', '--lambda', 'handler.mjs:handler', '--event', 'event.json'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, NOTE);
    const report = JSON.parse(r.stdout);
    assert.strictEqual(report.lambda.invoke.ok, true);
    assert.ok(report.lambda.initMs >= 40, `init ${report.lambda.initMs} ms holds the handler's 40 ms`);
    assert.deepStrictEqual(report.modules.map((m) => m.file).sort(), ['handler.mjs', 'lib/greet.mjs']);
    assert.deepStrictEqual(report.outsideRoot, [], 'the client is coldstart\'s, not the function\'s');

    const callback = await runCli(['profile', '--json', '--out', 'cb', '--lambda', 'callback.cjs:handler', '--event', 'event.json'], { cwd: dir });
    assert.strictEqual(callback.code, 0, callback.stderr);
    assert.strictEqual(JSON.parse(callback.stdout).lambda.invoke.ok, true, 'a callback-style handler answers');

    const failed = await runCli(['profile', '--out', 'f', '--lambda', 'throws.cjs:handler', '--event', 'event.json'], { cwd: dir });
    assert.strictEqual(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /^coldstart: the first invocation failed \(TypeError: no such table\); the profile of init and the invocation is written$/m);

    // Over Lambda's 6 MB response limit: the caller would get Lambda's error, not the body.
    fs.writeFileSync(path.join(dir, 'big.cjs'), "exports.handler = async () => 'x'.repeat(7 * 1024 * 1024);\n");
    const big = await runCli(['profile', '--out', 'big', '--lambda', 'big.cjs:handler', '--event', 'event.json'], { cwd: dir });
    assert.strictEqual(big.code, 1, big.stderr);
    assert.match(big.stderr, /^coldstart: the first invocation failed \(Function\.ResponseSizeTooLarge: Response payload size \(7340034 bytes\) exceeded maximum allowed payload size/m);
    // A promise that never settles: Node has nothing left to wait for and ends.
    fs.writeFileSync(path.join(dir, 'never.cjs'), 'exports.handler = () => new Promise(() => {});\n');
    const never = await runCli(['profile', '--out', 'never', '--lambda', 'never.cjs:handler', '--event', 'event.json'], { cwd: dir });
    assert.strictEqual(never.code, 1, never.stderr);
    assert.match(never.stderr, /^coldstart: the function's runtime ended \(exit code \d+\) before it answered its first invocation: a handler whose promise never settles/m);

    const missing = await runCli(['profile', '--quiet', '--out', 'm', '--lambda', 'handler.mjs:nope'], { cwd: dir });
    assert.strictEqual(missing.code, 2, missing.stderr);
    assert.deepStrictEqual(missing.stderr.trim().split('\n').filter((l) => l.startsWith('coldstart:')), ['coldstart: --lambda handler.nope: Runtime.HandlerNotFound: handler.nope is undefined or not exported']);
    // An event that is a FIFO or a device is never waited on: one line, exit 2.
    require('node:child_process').execFileSync('mkfifo', [path.join(dir, 'fifo.json')]);
    for (const event of ['fifo.json', '/dev/zero']) {
      const r = await runCli(['profile', '--quiet', '--out', 'o', '--lambda', 'handler.mjs:handler', '--event', event], { cwd: dir });
      assert.strictEqual(r.code, 2, `${event}: ${r.stderr}`);
      assert.strictEqual(r.stderr, `coldstart: --event: cannot read ${event}: not a regular file\n`);
    }
    // A file outside the task root, or not a JavaScript module, is never run: one line, exit 2, at once.
    for (const [spec, line] of [['/etc/passwd:fn', /^coldstart: --lambda: the handler \/etc\/passwd is outside the task root /], ['../outside/h.js:fn', /^coldstart: --lambda: the handler \.\.\/outside\/h\.js is outside the task root /]]) {
      const r = await runCli(['profile', '--quiet', '--out', 'o', '--lambda', spec], { cwd: dir });
      assert.strictEqual(r.code, 2, `${spec}: ${r.stderr}`);
      assert.match(r.stderr, line);
      assert.strictEqual(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  } finally {
    rm(dir);
  }
});

test('pack --lambda without aws-lambda-ric: the archive holds the function\'s files and none of coldstart\'s', async () => {
  const dir = project();
  try {
    const r = await runCli(['pack', '--lambda', 'handler.mjs:handler', '--event', 'event.json', '--out', 'startup.tar'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, NOTE);
    assert.doesNotMatch(r.stderr + r.stdout, /outside the root/);
    const { readTarEntries } = require('../lib/start/tar-reader.js');
    const names = [...readTarEntries(fs.readFileSync(path.join(dir, 'startup.tar')))].map((e) => e.path).filter((p) => !p.endsWith('/'));
    assert.ok(names.includes('handler.mjs') && names.includes('lib/greet.mjs'), names.join(' '));
  } finally {
    rm(dir);
  }
});

test('profile --docker --lambda in an image with no compiler and no aws-lambda-ric: coldstart\'s client runs the function inside, under gVisor', { timeout: 240_000 }, async (t) => {
  const { needDocker, BASE_IMAGE } = require('./helpers/docker.js');
  if (!(await needDocker(t))) return;
  const { buildImage, removeImages } = require('../lib/docker.js');
  const dir = project();
  const tag = `coldstart-test-lambda-no-ric:${process.pid}`;
  try {
    // The base image is Node and its libraries alone: no cmake, make, g++ or curl to build aws-lambda-ric with.
    fs.writeFileSync(path.join(dir, 'Dockerfile'), 'ARG NODE_IMAGE\nFROM ${NODE_IMAGE}\nWORKDIR /var/task\nCOPY . .\nCMD ["handler.handler"]\n');
    await buildImage({ context: dir, dockerfile: path.join(dir, 'Dockerfile'), tag, buildArgs: { NODE_IMAGE: BASE_IMAGE }, timeoutMs: 120_000, noCache: true });
    const r = await runCli(['profile', '--json', '--docker', tag, '--runtime', 'runsc-2024', '--lambda', 'handler.mjs:handler', '--event', 'event.json', '--out', path.join(dir, 'out')], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stderr, /aws-lambda-ric is not installed beside the handler: coldstart's own runtime client starts it/);
    const report = JSON.parse(r.stdout);
    assert.strictEqual(report.lambda.invoke.ok, true, JSON.stringify(report.lambda));
    assert.deepStrictEqual(report.modules.map((m) => m.file).sort(), ['handler.mjs', 'lib/greet.mjs']);
  } finally {
    await removeImages([tag]).catch(() => {});
    rm(dir);
  }
});

test('the Runtime API serves only the user coldstart runs as: another user\'s probe gets no event and ends nothing', async (t) => {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    t.diagnostic('SKIPPED: a process of another user is started as root only (CI runs as root)');
    t.skip('not root');
    return;
  }
  const dir = project();
  try {
    // Init says where the API is, then takes 2 s: another user's probe comes first.
    fs.writeFileSync(path.join(dir, 'slow.cjs'), "require('fs').writeFileSync(__dirname + '/api.txt', process.env.AWS_LAMBDA_RUNTIME_API);\nAtomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000);\nexports.handler = async (event) => ({ got: event.name });\n");
    fs.chmodSync(dir, 0o755);
    const profiled = runCli(['profile', '--json', '--lambda', 'slow.cjs:handler', '--event', 'event.json'], { cwd: dir });
    const deadline = Date.now() + 20000;
    while (!fs.existsSync(path.join(dir, 'api.txt')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const api = fs.readFileSync(path.join(dir, 'api.txt'), 'utf8');
    const probe = "const [h, p] = process.argv[1].split(':'); const http = require('http'); const ask = (method, route) => new Promise((done) => { const q = http.request({ host: h, port: p, method, path: '/2018-06-01/runtime/' + route }, (res) => { let b = ''; res.on('data', (c) => { b += c; }).on('end', () => done(res.statusCode + ' ' + b)); }); q.on('error', (e) => done('error ' + e.code)); q.end(method === 'POST' ? '{\"errorType\":\"Forged\"}' : undefined); }); Promise.all([ask('GET', 'invocation/next'), ask('POST', 'init/error')]).then((r) => console.log(JSON.stringify(r)));";
    // A node the other user can run (this one may lie under a home directory only root enters).
    const node = path.join(dir, 'node');
    fs.copyFileSync(process.execPath, node);
    fs.chmodSync(node, 0o755);
    // Not spawnSync: the Runtime API answers from this very process.
    const { promisify } = require('node:util');
    const other = await promisify(require('node:child_process').execFile)(node, ['-e', probe, api], { uid: 65534, gid: 65534, encoding: 'utf8', timeout: 10000 })
      .catch((err) => ({ stdout: '', stderr: err.message }));
    const r = await profiled;
    assert.deepStrictEqual(JSON.parse(other.stdout || 'null'), ['error ECONNRESET', 'error ECONNRESET'], other.stderr);
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.strictEqual(report.lambda.invoke.ok, true, 'the function got its event and answered');
  } finally {
    rm(dir);
  }
});
