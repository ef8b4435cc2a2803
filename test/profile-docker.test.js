'use strict';
// profile --docker: the capture runs inside a container of the app's image, under runc and gVisor
// (runsc), with coldstart mounted from this checkout; the artifacts land in --out here. Without a
// Docker engine these tests skip with a loud line, except in CI where that is a failure.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { isGvisor } = require('../lib/gvisor.js');
const { docker } = require('../lib/docker.js');
const { RUNTIMES, needDocker, testedRuntimes, scratch, imageOnce, cleanup } = require('./helpers/docker.js');
const { runCli, spawnCli } = require('./helpers/app.js');

after(cleanup);
const readyAt = {}; // runtime -> readyAt inside the container

/** fixtures/docker-app with express in its node_modules, started by the image's CMD. */
async function appImage() {
  const dockerfile = path.join(scratch(), 'Dockerfile.profile');
  fs.writeFileSync(dockerfile, 'ARG NODE_IMAGE=node:20-slim\nFROM ${NODE_IMAGE}\nWORKDIR /app\nCOPY . .\nCMD ["node","server.js"]\n');
  return (await imageOnce('profile', { dockerfile })).tag;
}

/** Containers of this test process's CLI runs still there (running or not). */
async function leftoverContainers() {
  const r = await docker(['ps', '-a', '--filter', `name=coldstart-run-${process.pid}-`, '--format', '{{.Names}}']);
  return r.stdout.trim().split('\n').filter(Boolean);
}

for (const runtime of RUNTIMES) {
  test(`profile --docker under ${runtime}: the image's own start, profiled inside; the report here, with container paths`, { timeout: 240_000 }, async (t) => {
    if (!(await needDocker(t))) return;
    if (!(await testedRuntimes(t)).includes(runtime)) return;
    const image = await appImage();
    const out = path.join(scratch(), `out-${runtime}`);
    const r = await runCli(['profile', '--docker', image, '--runtime', runtime, '--out', out], { cwd: scratch() });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    assert.deepEqual(report.container, { image, runtime, command: ['node', 'server.js'] });
    assert.deepEqual(report.command, ['node', 'server.js']);
    assert.equal(report.root, '/app', 'paths are the container\'s');
    // gVisor's own load average is 0 whatever the host runs: the report gives the host's.
    if (isGvisor(runtime)) assert.strictEqual(report.machine.loadAverageOf, 'the host');
    else assert.strictEqual(report.machine.loadAverageOf, undefined);
    assert.ok(report.modules.some((m) => m.file === 'node_modules/express/index.js'), 'express loaded from the image');
    assert.ok(report.readyAt > 0 && report.categories.totalMs > 0);
    // Not started through coldstart start: the advice says what serving from memory would save.
    const fromDisk = Math.round((report.categories.resolve + report.categories.read) * 100) / 100;
    assert.strictEqual(report.advice.some((a) => a.kind === 'container-start'), fromDisk >= 10, `resolve + read ${fromDisk} ms`);
    for (const name of ['report.json', 'report.html', 'startup.cpuprofile', 'startup-files.txt']) {
      const st = fs.statSync(path.join(out, name));
      assert.equal(st.uid, process.getuid(), `${name} belongs to the user running coldstart`);
    }
    assert.ok(fs.readFileSync(path.join(out, 'startup-files.txt'), 'utf8').split('\n').includes('node_modules/express/package.json'));
    // coldstart's own code in the container (its agent, from the mount) is folded out of the profile to open.
    const { target } = require('../lib/capture/in-container.js').coldstartMount();
    const urls = (name) => JSON.parse(fs.readFileSync(path.join(out, name), 'utf8')).nodes.map((n) => n.callFrame.url);
    assert.ok(urls('startup.raw.cpuprofile').some((u) => u.includes(target)) && !urls('startup.cpuprofile').some((u) => u.includes(target)));
    assert.ok(!report.packages.some((p) => p.name === 'coldstart') && !report.modules.some((m) => m.file.includes(target)));
    assert.match(r.stdout, new RegExp(`in a container of ${image.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} under ${runtime}`));
    assert.match(r.stdout, new RegExp(`Written\\n  ${path.relative(scratch(), path.join(out, 'startup.cpuprofile')).replace(/[.]/g, '\\.')}`));
    assert.match(r.stderr, /docker-app listening on port 8080/, "the app's own output passes through");
    assert.match(fs.readFileSync(path.join(out, 'report.html'), 'utf8'), /node_modules\/express\/index\.js/);
    assert.deepEqual(await leftoverContainers(), [], 'no container outlives the command');
    t.diagnostic(`${runtime}: ready after ${report.readyAt} ms inside the container`);
    readyAt[runtime] = report.readyAt;
  });
}

test('the same start takes longer under gVisor than under runc', (t) => {
  if (!readyAt.runc || !readyAt.runsc) return t.skip('needs both runs above');
  assert.ok(readyAt.runsc > readyAt.runc, `runsc ${readyAt.runsc} ms, runc ${readyAt.runc} ms`);
});

test('profile --docker: a missing entry (exit 2) or an app that crashes (exit 1) is one line, and no container is left', { timeout: 120_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const image = await appImage();
  const out = path.join(scratch(), 'out-failing');
  const cases = [
    [['node', 'missing.js'], 2, /^coldstart: in the container: entry file not found: missing\.js \(looked in \/app\)$/m],
    [['node', '-e', "throw new Error('boom at startup')"], 1, /^coldstart: in the container: the app failed before listening \(exit code 1\): Error: boom at startup$/m],
  ];
  for (const [command, exitCode, line] of cases) {
    const r = await runCli(['profile', '--docker', image, '--out', out, '--', ...command], { cwd: scratch() });
    assert.equal(r.code, exitCode, r.stderr);
    assert.match(r.stderr, line);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(!fs.existsSync(out), 'nothing written');
  }
  assert.deepEqual(await leftoverContainers(), []);
});

test('profile --docker: Ctrl-C stops the container', { timeout: 120_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const image = await appImage();
  // An app that never listens: the capture would wait for --timeout.
  const run = spawnCli(['profile', '--docker', image, '--out', path.join(scratch(), 'out-interrupted'), '--', 'node', '-e', 'setInterval(() => {}, 1000)'], { cwd: scratch() });
  let name = '';
  for (const end = Date.now() + 60_000; !name && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    name = (await docker(['ps', '--filter', `name=coldstart-run-${run.child.pid}-`, '--format', '{{.Names}}'])).stdout.trim();
  }
  assert.ok(name, 'the container started');
  await new Promise((r) => setTimeout(r, 1000)); // the capture inside is under way
  run.child.kill('SIGINT');
  const { code } = await run.done;
  assert.equal(code, 130);
  const left = await docker(['ps', '-a', '--filter', `name=${name}`, '--format', '{{.Names}}']);
  assert.equal(left.stdout.trim(), '', 'the container is gone');
});

test('profile --docker bad input: an image the engine does not have, a runtime it does not have, --runtime alone: one line, exit 2', { timeout: 60_000 }, async (t) => {
  const alone = await runCli(['profile', '--runtime', 'runsc', '--', 'node', 'server.js'], { cwd: scratch() });
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--runtime is the container runtime of --docker/);
  if (!(await needDocker(t))) return;
  const out = path.join(scratch(), 'out-missing');
  const missing = await runCli(['profile', '--docker', 'coldstart-no-such-image:none', '--out', out], { cwd: scratch() });
  assert.equal(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, /no image "coldstart-no-such-image:none" in the Docker engine/);
  assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);
  assert.ok(!fs.existsSync(out), 'nothing written');
  // Any runtime the engine has is accepted; another is named with the engine's own list.
  const { runtimes } = await require('../lib/docker.js').requireDocker();
  for (const [flag, args] of [['--runtime', ['profile', '--docker', 'x', '--runtime', 'notaruntime', '--out', out]], ['--containers', ['bench', '--containers', 'runc,notaruntime', '--', 'node', 'server.js']]]) {
    const r = await runCli(args, { cwd: path.join(require('./helpers/app.js').REPO, 'fixtures', 'docker-app') });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim(), `coldstart: unknown ${flag} "notaruntime": this Docker engine has ${runtimes.join(', ')}`);
    assert.ok(!fs.existsSync(out), 'nothing written');
  }
});

test('profile --docker: what the container leaves in the exchange is data: a planted link or FIFO is refused (nothing written, no hang), files profile does not write never reach --out', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const image = await appImage();
  const secret = path.join(scratch(), 'host-secret.txt');
  fs.writeFileSync(secret, 'host secret\n', { mode: 0o600 });
  const plant = (js) => ['node', '-e', `const fs = require('fs');\n${js}\nrequire('http').createServer().listen(0);`];
  const cases = [
    [plant(`fs.symlinkSync(${JSON.stringify(secret)}, '/coldstart-out/after-ready.cpuprofile'); fs.writeFileSync('/coldstart-out/package.json', '{}');`), 1, /after-ready\.cpuprofile as something other than a file \(ELOOP\)/],
    // The image has no mkfifo: the FIFO is made from this side, in the folder the container writes to.
    [['node', '-e', "setTimeout(() => require('http').createServer().listen(0), 3000);"], 1, /after-ready\.cpuprofile as something other than a regular file/, 'fifo'],
    [plant("fs.writeFileSync('/coldstart-out/package.json', '{\"name\":\"planted\"}');"), 0, null],
  ];
  const tmp = require('node:os').tmpdir();
  for (const [i, [command, exitCode, line, fifo]] of cases.entries()) {
    const out = path.join(scratch(), `out-exchange-${i}`);
    const before = new Set(fs.readdirSync(tmp));
    const running = runCli(['profile', '--docker', image, '--out', out, '--', ...command], { cwd: scratch() });
    if (fifo) {
      let exchange;
      for (const end = Date.now() + 60_000; !exchange && Date.now() < end; await new Promise((res) => setTimeout(res, 100))) {
        exchange = fs.readdirSync(tmp).find((n) => n.startsWith('coldstart-container-out-') && !before.has(n));
      }
      require('node:child_process').execFileSync('mkfifo', [path.join(tmp, exchange, 'after-ready.cpuprofile')]);
    }
    const r = await running;
    assert.equal(r.code, exitCode, r.stderr);
    if (line) {
      assert.match(r.stderr, line);
      assert.ok(!fs.existsSync(out) || fs.readdirSync(out).length === 0, 'nothing written');
    } else {
      assert.ok(fs.existsSync(path.join(out, 'report.json')));
      assert.ok(!fs.existsSync(path.join(out, 'package.json')), 'a file profile does not write is not taken');
    }
    for (const name of fs.existsSync(out) ? fs.readdirSync(out) : []) {
      assert.doesNotMatch(fs.readFileSync(path.join(out, name), 'utf8'), /host secret/);
    }
  }
  assert.deepEqual(await leftoverContainers(), []);
});

test('profile --docker: the container and the exchange folder do not outlive a CLI killed with SIGKILL', { timeout: 180_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const image = await appImage();
  const before = new Set(fs.readdirSync(require('node:os').tmpdir()).filter((n) => n.startsWith('coldstart-container-out-')));
  // An app that never listens: the CLI waits, and is killed meanwhile.
  const cli = spawnCli(['profile', '--docker', image, '--out', path.join(scratch(), 'out-killed'), '--', 'node', '-e', 'setInterval(() => {}, 1000)']);
  const name = `coldstart-run-${cli.child.pid}-`;
  const listed = async () => (await docker(['ps', '-a', '--filter', `name=${name}`, '--format', '{{.Names}}'])).stdout.trim().split('\n').filter(Boolean);
  for (const end = Date.now() + 60_000; !(await listed()).length && Date.now() < end;) await new Promise((r) => setTimeout(r, 250));
  assert.ok((await listed()).length, 'the container ran');
  cli.child.kill('SIGKILL');
  await cli.done;
  let left = await listed();
  for (const end = Date.now() + 20_000; left.length && Date.now() < end; left = await listed()) await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(left, [], 'the container is removed');
  const exchanges = fs.readdirSync(require('node:os').tmpdir()).filter((n) => n.startsWith('coldstart-container-out-') && !before.has(n));
  assert.deepEqual(exchanges, [], 'the exchange folder is removed');
});
