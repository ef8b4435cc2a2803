'use strict';
// The Dockerfile snippets, built and run for real: a build context with node_modules and no
// network, base images made from the host's Node by .ci/docker-up.sh, containers under runc and
// gVisor (runsc). Without a Docker engine these tests skip with a loud line, except in CI where
// that is a failure. The first two tests need no snippet: they tell an infrastructure failure
// apart from a snippet failure.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { assembleContext, runContainer } = require('../lib/docker.js');
const { CommandError } = require('../lib/errors.js');
const {
  REPO, DISTROLESS_BASE_IMAGE, needDocker, testedRuntimes, scratch, fixtureContext, imageOnce, cleanup,
} = require('./helpers/docker.js');

const SNIPPETS = path.join(REPO, 'dockerfile-snippets');
const LISTENING = /docker-app listening on port \d+/;
const EXTRACTED = /coldstart: (?:extracted|serving) (\d+) files/;
// Cloud Run keeps a container's writable layer in memory; a tmpfs is the local stand-in.
const IN_MEMORY_TMP = '/tmp:rw,exec,size=256m';

after(cleanup);

function describeRun(r) {
  return `exit ${r.code}, ${r.timedOut ? 'timed out' : `${Math.round(r.ms)} ms`}\n`
    + `--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

/** Runs the image until the app listens, then checks that `coldstart start` reported its archive. */
async function assertStartsFromArchive(t, image, runtime, options = {}) {
  const r = await runContainer({ image, runtime, until: LISTENING, timeoutMs: 60_000, ...options });
  assert.ok(r.matched, `the app never said it listens under ${runtime}: ${describeRun(r)}`);
  const report = EXTRACTED.exec(r.stderr);
  assert.ok(report, `no "coldstart: extracted|serving N files" line on stderr under ${runtime}: ${describeRun(r)}`);
  assert.ok(Number(report[1]) > 0, `start extracted no files: ${report[0]}`);
  t.diagnostic(`${runtime}: listening after ${Math.round(r.ms)} ms (docker run to listen line); ${report[0]}`);
}

test('assembleContext: the app, its dependency closure, and coldstart with its own dependencies', () => {
  const ctx = fixtureContext();
  const names = ctx.packages.map((p) => p.name);
  assert.ok(names.includes('express') && names.includes('router'), `express and its dependencies: ${names}`);
  assert.ok(!names.includes('yargs'), 'only what the app needs lands in node_modules');
  assert.ok(ctx.coldstartPackages.some((p) => p.name === 'yargs'), 'coldstart brings its own dependencies');
  assert.ok(!fs.existsSync(path.join(ctx.dir, 'node_modules', 'yargs')));

  // Resolution from inside the context, as it will happen in the image.
  const resolved = execFileSync(process.execPath, ['-p', "require.resolve('express')"], { cwd: ctx.dir, encoding: 'utf8' });
  assert.ok(resolved.trim().startsWith(fs.realpathSync(ctx.dir)), `express resolves inside the context: ${resolved}`);
  const version = execFileSync(process.execPath, ['node_modules/coldstart/bin/coldstart.js', '--version'],
    { cwd: ctx.dir, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });
  assert.equal(version.trim(), require('../package.json').version);

  assert.throws(
    () => assembleContext({ app: path.join(REPO, 'fixtures', 'docker-app'), into: path.join(scratch(), 'missing'),
      nodeModules: path.join(REPO, 'node_modules'), packages: ['no-such-package-coldstart-test'], coldstart: false }),
    (err) => err instanceof CommandError && err.code === 'PACKAGE_MISSING' && /no-such-package/.test(err.message));
});

test('assembleContext: an app of no dependency whose node_modules holds only npm\'s install record keeps the record', () => {
  const app = path.join(scratch(), 'no-deps');
  fs.mkdirSync(path.join(app, 'node_modules'), { recursive: true });
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'no-deps', private: true }));
  fs.writeFileSync(path.join(app, 'server.js'), "require('http').createServer((q, s) => s.end()).listen(0);\n");
  fs.writeFileSync(path.join(app, 'node_modules', '.package-lock.json'), JSON.stringify({ name: 'no-deps', lockfileVersion: 3, packages: {} }));
  const ctx = assembleContext({ app, into: path.join(scratch(), 'no-deps-context'), coldstart: false });
  assert.deepEqual(ctx.packages, []);
  assert.ok(fs.existsSync(path.join(ctx.dir, 'node_modules', '.package-lock.json')));
});

test('every snippet packs with NODE_ENV as its run stage has it: the app reads the same files in both', () => {
  for (const name of fs.readdirSync(path.join(REPO, 'dockerfile-snippets')).filter((f) => f.startsWith('Dockerfile.'))) {
    const text = fs.readFileSync(path.join(REPO, 'dockerfile-snippets', name), 'utf8');
    const stages = text.split(/^FROM /m).slice(1);
    const env = (stage) => (/^ENV NODE_ENV=(\S+)$/m.exec(stage) || [])[1];
    const pack = stages.find((s) => /^\S+ AS pack$/m.test(s.split('\n')[0]));
    assert.ok(pack, `${name} has a pack stage`);
    assert.equal(env(pack), env(stages[stages.length - 1]), `${name}: NODE_ENV in the pack stage and the run stage`);
    assert.ok(env(pack), `${name} sets NODE_ENV`);
  }
});

test('base image: a plain node server reaches listen under runc and both gVisors', { timeout: 180_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const dockerfile = path.join(scratch(), 'Dockerfile.plain');
  fs.writeFileSync(dockerfile,
    'ARG NODE_IMAGE=node:20-slim\nFROM ${NODE_IMAGE}\nWORKDIR /app\nCOPY . .\nCMD ["node","server.js"]\n');
  const image = await imageOnce('plain', { dockerfile });
  t.diagnostic(`plain image built in ${Math.round(image.ms)} ms`);
  for (const runtime of await testedRuntimes(t)) {
    const r = await runContainer({ image: image.tag, runtime, until: LISTENING, timeoutMs: 60_000 });
    assert.ok(r.matched, `plain node under ${runtime}: ${describeRun(r)}`);
    t.diagnostic(`${runtime}: listening after ${Math.round(r.ms)} ms`);
  }
});

test('Dockerfile.npm under runc: start extracts the archive, then the app listens', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const image = await imageOnce('npm', { dockerfile: path.join(SNIPPETS, 'Dockerfile.npm') });
  t.diagnostic(`Dockerfile.npm built in ${Math.round(image.ms)} ms`);
  await assertStartsFromArchive(t, image.tag, 'runc');
});

test('Dockerfile.npm under both gVisors with an in-memory /tmp; start\'s default check reads the tree\'s install record there', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const image = await imageOnce('npm', { dockerfile: path.join(SNIPPETS, 'Dockerfile.npm') });
  for (const runtime of (await testedRuntimes(t)).filter((r) => r !== 'runc')) {
    await assertStartsFromArchive(t, image.tag, runtime, { tmpfs: [IN_MEMORY_TMP] });
    // Without --trust-archive: npm's record, copied into the image in both stages, still holds
    // in the container, so node_modules costs one stat; the app's own files one each.
    const r = await runContainer({
      image: image.tag, runtime, until: LISTENING, timeoutMs: 60_000, env: { COLDSTART_REPORT: 'stderr' },
      args: ['node', 'node_modules/coldstart/bin/coldstart.js', 'start', '--archive', '/startup.tar', '--', 'node', 'server.js'],
    });
    assert.ok(r.matched, describeRun(r));
    const line = r.stderr.split('\n').find((l) => l.startsWith('{"coldstart":"startup-report"'));
    assert.ok(line, `no startup report: ${describeRun(r)}`);
    const { checked } = JSON.parse(line);
    assert.deepEqual(checked.trees, [{ tree: 'node_modules', record: 'node_modules/.package-lock.json', held: true }], `${runtime}: ${line}`);
    assert.ok(checked.files <= 3, `${runtime}: ${checked.files} files checked one by one`);
    assert.doesNotMatch(r.stderr, /warning/, describeRun(r));
  }
});

test('Dockerfile.distroless: the final image runs with node as entrypoint and no shell', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const image = await imageOnce('distroless', {
    dockerfile: path.join(SNIPPETS, 'Dockerfile.distroless'),
    buildArgs: { DISTROLESS_IMAGE: DISTROLESS_BASE_IMAGE },
  });
  t.diagnostic(`Dockerfile.distroless built in ${Math.round(image.ms)} ms`);
  // The base has no /bin/sh: a snippet that needed one at run time could not start at all.
  const shell = await runContainer({ image: image.tag, dockerArgs: ['--entrypoint', '/bin/sh'], args: ['-c', 'true'] });
  assert.notEqual(shell.code, 0, 'the distroless stand-in must have no shell');
  await assertStartsFromArchive(t, image.tag, 'runc');
});
