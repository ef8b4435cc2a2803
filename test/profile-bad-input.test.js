'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const net = require('net');
const path = require('path');
const { copyFixture, runCli, spawnCli, rm, waitFor } = require('./helpers/app.js');

/** The last stderr line is coldstart's one clear line; nothing was written. */
function assertFailure(result, code, pattern, dir) {
  assert.strictEqual(result.code, code, result.stderr);
  const lines = result.stderr.trim().split('\n');
  const ours = lines.filter((l) => l.startsWith('coldstart:'));
  assert.strictEqual(ours.length, 1, `exactly one coldstart line: ${result.stderr}`);
  assert.strictEqual(lines[lines.length - 1], ours[0], 'it is the last line');
  assert.match(ours[0], pattern);
  assert.strictEqual(result.stdout.includes('{'), false, 'no JSON document on failure');
  if (dir) {
    const out = path.join(dir, '.coldstart');
    const left = fs.existsSync(out) ? fs.readdirSync(out) : [];
    assert.deepStrictEqual(left, [], 'no artifact, not even a temp file');
  }
}

test('missing command', async () => {
  assertFailure(await runCli(['profile']), 2, /missing app command/);
  assertFailure(await runCli(['profile', '--']), 2, /missing app command/);
});

test('entry file not found', async () => {
  const dir = copyFixture('plain-http');
  try {
    assertFailure(await runCli(['profile', '--', 'node', 'nope.js'], { cwd: dir }), 2, /entry file not found: nope\.js/, dir);
  } finally { rm(dir); }
});

test('app crashes before listening: exit code and its error shown', async () => {
  const dir = copyFixture('crash-before-listen');
  try {
    const r = await runCli(['profile', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assertFailure(r, 1, /failed before listening \(exit code 1\): Error: DATABASE_URL is not set/, dir);
    assert.match(r.stderr, /crash-before-listen: loading configuration/, 'the app stderr passed through');
    const nested = await runCli(['profile', '--out', 'reports/today', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(nested.code, 1);
    assert.ok(!fs.existsSync(path.join(dir, 'reports')), 'a failed profile leaves no output directory behind');
  } finally { rm(dir); }
});

test('app exits 0 without listening under --until listen', async () => {
  const dir = copyFixture('exit-without-listen');
  try {
    assertFailure(await runCli(['profile', '--', 'node', 'build.js'], { cwd: dir }), 1, /exited \(code 0\) without listening; use --until exit/, dir);
  } finally { rm(dir); }
});

test('never listens: the timeout ends it with a clear message', async () => {
  const dir = copyFixture('never-listens');
  try {
    const t = Date.now();
    assertFailure(await runCli(['profile', '--timeout', '1500ms', '--', 'node', 'server.js'], { cwd: dir }), 1, /did not listen within 1.5s \(--timeout\)/, dir);
    assert.ok(Date.now() - t < 10000);
  } finally { rm(dir); }
});

test('port already in use', async () => {
  const dir = copyFixture('plain-http');
  const blocker = net.createServer();
  await new Promise((r) => blocker.listen(0, '0.0.0.0', r));
  try {
    const port = blocker.address().port;
    assertFailure(await runCli(['profile', '--', 'node', 'server.js'], { cwd: dir, env: { PORT: String(port) } }), 1, /port already in use/, dir);
  } finally {
    blocker.close();
    rm(dir);
  }
});

test('unwritable --out', async () => {
  const dir = copyFixture('plain-http');
  try {
    fs.writeFileSync(path.join(dir, 'a-file'), '');
    assertFailure(await runCli(['profile', '--out', 'a-file/sub', '--', 'node', 'server.js'], { cwd: dir }), 2, /cannot write to --out/);
  } finally { rm(dir); }
});

test('invalid --interval and --until', async () => {
  assertFailure(await runCli(['profile', '--interval', 'fast', '--', 'node', 'x.js']), 2, /invalid --interval "fast"/);
  assertFailure(await runCli(['profile', '--interval', '0', '--', 'node', 'x.js']), 2, /invalid --interval/);
  assertFailure(await runCli(['profile', '--until', 'forever', '--', 'node', 'x.js']), 2, /invalid --until "forever"/);
});

test('Ctrl-C during capture writes what was gathered, marked partial, exit 130', async () => {
  const dir = copyFixture('never-listens');
  try {
    const run = spawnCli(['profile', '--', 'node', 'server.js'], { cwd: dir });
    await waitFor(() => /never-listens: waiting/.test(run.output().stdout), 15000, 'the app to start');
    await new Promise((r) => setTimeout(r, 200));
    run.child.kill('SIGINT');
    const r = await run.done;
    assert.strictEqual(r.code, 130, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    assert.strictEqual(report.partial, true);
    assert.ok(report.modules.some((m) => m.file === 'server.js'));
    assert.ok(fs.statSync(path.join(dir, '.coldstart', 'startup.cpuprofile')).size > 0);
    assert.match(r.stdout, /partial/);
  } finally { rm(dir); }
});

test('profile: an --out that cannot be made (/proc/foo) gives one line and exit 2, before the app runs', async () => {
  const dir = copyFixture('plain-http');
  try {
    const marker = path.join(dir, 'ran');
    fs.writeFileSync(path.join(dir, 'app.js'), `require('fs').writeFileSync(${JSON.stringify(marker)}, '1');\n`);
    for (const out of ['/proc/coldstart-no-such/x', '/proc/coldstart-no-such']) {
      assertFailure(await runCli(['profile', '--out', out, '--', 'node', 'app.js'], { cwd: dir }), 2, /cannot write to --out .*ENOENT/);
    }
    assert.strictEqual(fs.existsSync(marker), false, 'the app was not started');
  } finally {
    rm(dir);
  }
});

test('profile: a failed run leaves no --out directory behind', async () => {
  const dir = copyFixture('crash-before-listen');
  try {
    const r = await runCli(['profile', '--out', 'reports/today', '--', 'node', 'server.js'], { cwd: dir });
    assertFailure(r, 1, /the app failed before listening/);
    assert.strictEqual(fs.existsSync(path.join(dir, 'reports')), false, 'the directories made for --out are gone again');
  } finally {
    rm(dir);
  }
});

test('messages read right: no Node process, the port in use, durations over 24 days, --esm, a diff of non-JSON', async () => {
  assertFailure(await runCli(['profile', '--', 'true']), 1, /^coldstart: no Node process of the app started: "true" ended \(exit code 0\)$/);
  const dir = copyFixture('plain-http');
  const taken = net.createServer();
  await new Promise((r) => taken.listen(0, r));
  try {
    const port = taken.address().port;
    assertFailure(await runCli(['profile', '--', 'node', 'server.js'], { cwd: dir, env: { PORT: String(port) } }), 1,
      new RegExp(`port already in use \\((port ${port}|\\S*:${port})\\)$`));
    assertFailure(await runCli(['profile', '--timeout', '40000m', '--', 'node', 'server.js'], { cwd: dir }), 2, /invalid --timeout "40000m": at most 24 days/);
    assertFailure(await runCli(['profile', '--until', '30d', '--', 'node', 'server.js'], { cwd: dir }), 2, /invalid --until/);
    assertFailure(await runCli(['profile', '--esm', 'weird', '--', 'node', 'server.js'], { cwd: dir }), 2, /^coldstart: invalid --esm "weird": use auto, always or never$/);
    fs.writeFileSync(path.join(dir, 'bad.json'), 'not json\n{\n');
    assertFailure(await runCli(['diff', 'bad.json', 'bad.json'], { cwd: dir }), 2, /bad\.json is not JSON/);
  } finally {
    taken.close();
    rm(dir);
  }
});

test('view --no-open on a file that is not a profile: exit 2, nothing written', async () => {
  const dir = copyFixture('plain-http');
  try {
    fs.writeFileSync(path.join(dir, 'bad.json'), 'not json');
    fs.writeFileSync(path.join(dir, 'other.cpuprofile'), '{"name": "not a profile"}');
    for (const file of ['bad.json', 'other.cpuprofile']) {
      assertFailure(await runCli(['view', '--no-open', file], { cwd: dir }), 2, /is not a CPU profile or trace/);
      assert.strictEqual(fs.existsSync(path.join(dir, `${file}.speedscope.js`)), false);
    }
  } finally {
    rm(dir);
  }
});

test('a duration without its unit is refused, never read as milliseconds', async () => {
  const dir = copyFixture('plain-http');
  try {
    assertFailure(await runCli(['profile', '--timeout', '5', '--', 'node', 'server.js'], { cwd: dir }), 2, /invalid --timeout "5": give a unit, e\.g\. 5s or 5ms/, dir);
    assertFailure(await runCli(['profile', '--after', '10', '--', 'node', 'server.js'], { cwd: dir }), 2, /invalid --after "10": give a unit/, dir);
  } finally { rm(dir); }
});

test('--runs: a whole number of at least 1', async () => {
  const dir = copyFixture('plain-http');
  try {
    assertFailure(await runCli(['profile', '--runs', '0', '--', 'node', 'server.js'], { cwd: dir }), 2, /invalid --runs "0"/, dir);
  } finally { rm(dir); }
});

test('one line, exit 2, for what used to end in a stack or a wrong message: an option given twice, an app with its own --inspect (command or NODE_OPTIONS)', async () => {
  const dir = copyFixture('plain-http');
  try {
    assertFailure(await runCli(['profile', '--out', 'a', '--out', 'b', '--', 'node', 'server.js'], { cwd: dir }), 2, /^coldstart: --out is given more than once: give it once$/, dir);
    assertFailure(await runCli(['pack', '--timeout', '5s', '--timeout', '9s', '--', 'node', 'server.js'], { cwd: dir }), 2, /--timeout is given more than once/, dir);
    // Options made to repeat still do.
    assertFailure(await runCli(['bundle', '--external', 'http', '--external', 'left-pad', '--', 'node', 'server.js'], { cwd: dir }), 2, /a Node built-in is never bundled/, dir);
    assertFailure(await runCli(['profile', '--', 'node', '--inspect=0', 'server.js'], { cwd: dir }), 2, /the app opens its own inspector \(--inspect\): coldstart profiles through it, so remove the flag/, dir);
    assertFailure(await runCli(['profile', '--', 'node', 'server.js'], { cwd: dir, env: { NODE_OPTIONS: '--inspect-brk=0' } }), 2, /its own inspector \(--inspect-brk \(in NODE_OPTIONS\)\)/, dir);
  } finally { rm(dir); }
});

test('--request with a path outside printable ASCII is sent percent-encoded, as a browser sends it', () => {
  const { afterWindowFromArgv } = require('../lib/options.js');
  const window = afterWindowFromArgv({ request: ['GET /č?q=ü'], after: '1s' });
  assert.deepStrictEqual(window.requests, [{ method: 'GET', path: '/%C4%8D?q=%C3%BC' }]);
});

test('two profiles into one --out: the second is refused in one line while the first writes (no mixed set); a lock left by a killed run is taken over', async () => {
  const dir = copyFixture('plain-http');
  try {
    fs.writeFileSync(path.join(dir, 'slow.js'), "setTimeout(() => require('./server.js'), 1500);\n");
    const out = path.join(dir, 'shared-out');
    const first = spawnCli(['profile', '-q', '--out', out, '--', 'node', 'slow.js'], { cwd: dir });
    await waitFor(() => fs.existsSync(path.join(out, '.coldstart-writing')), 20000, 'the first run to take --out');
    const second = await runCli(['profile', '--out', out, '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(second.code, 2, second.stderr);
    assert.match(second.stderr, /^coldstart: --out .*shared-out is being written by another coldstart run \(pid \d+\): give another --out, or wait for it\n$/);
    const done = await first.done;
    assert.strictEqual(done.code, 0, done.stderr);
    assert.ok(!fs.existsSync(path.join(out, '.coldstart-writing')), 'the lock goes with its run');

    fs.writeFileSync(path.join(out, '.coldstart-writing'), '999999999'); // a run killed before it could release it
    const again = await runCli(['profile', '-q', '--out', out, '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(again.code, 0, again.stderr);
  } finally { rm(dir); }
});

test('the app\'s last words when it threw nothing: a value printed over several lines is given whole on one line, stack frames passed over', () => {
  const { errorLine } = require('../lib/capture/capture-failure.js');
  assert.strictEqual(errorLine(['{', "  missing: [ 'DATABASE_URL' ],", "  hint: 'set it'", '}', 'Node.js v20.20.2']), "{ missing: [ 'DATABASE_URL' ], hint: 'set it' }");
  assert.strictEqual(errorLine(['config invalid', '    at load (config.js:3:9)', '    at main.js:1:1']), 'config invalid');
  assert.strictEqual(errorLine(['starting', 'TypeError: x is not a function', '    at a.js:1:1']), 'TypeError: x is not a function');
});

test('a package binary owned by another user (a node_modules above the app, in a shared directory) is not run: one line, exit 2, nothing left', async (t) => {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    t.diagnostic('SKIPPED: files of another user are made as root only (CI runs as root)');
    t.skip('not root');
    return;
  }
  const base = fs.mkdtempSync(path.join(require('os').tmpdir(), 'cs-foreign-bin-'));
  try {
    const pkg = path.join(base, 'node_modules', 'ffx');
    fs.mkdirSync(pkg, { recursive: true });
    fs.mkdirSync(path.join(base, 'node_modules', '.bin'));
    fs.writeFileSync(path.join(pkg, 'cli.js'), "#!/usr/bin/env node\nrequire('fs').writeFileSync(process.env.RAN, 'ran');\n", { mode: 0o755 });
    fs.symlinkSync('../ffx/cli.js', path.join(base, 'node_modules', '.bin', 'ffx'));
    for (const p of [pkg, path.join(pkg, 'cli.js'), path.join(base, 'node_modules', '.bin')]) fs.chownSync(p, 65534, 65534);
    const app = path.join(base, 'app');
    fs.mkdirSync(app);
    const ran = path.join(base, 'ran.txt');
    const r = await runCli(['profile', '--until', 'exit', '--out', 'out', '--', 'ffx'], { cwd: app, env: { RAN: ran } });
    assert.strictEqual(r.code, 2, r.stderr);
    assert.strictEqual(r.stderr, `coldstart: ffx is ${fs.realpathSync(path.join(pkg, 'cli.js'))}, owned by another user (uid 65534): not run; give its path to run it all the same\n`);
    assert.ok(!fs.existsSync(ran), 'it did not run');
    assert.ok(!fs.existsSync(path.join(app, 'out')), 'nothing written');
    // start never keeps an app from starting: it names the binary's owner in a warning, and runs it.
    const { BIN } = require('./helpers/app.js');
    const started = require('child_process').spawnSync(process.execPath, [BIN, 'start', '--archive', 'none.tar', '--', 'ffx'], { cwd: app, encoding: 'utf8', env: { ...process.env, RAN: ran }, timeout: 30_000 });
    assert.strictEqual(started.status, 0, started.stderr);
    assert.match(started.stderr, /^coldstart: warning: ffx is .*cli\.js, owned by another user \(uid 65534\); it runs as you$/m);
    assert.ok(fs.existsSync(ran), 'start ran it');
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
