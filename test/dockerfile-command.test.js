'use strict';
// coldstart dockerfile: what it detects in small projects (entry and node flags, package manager,
// Node major, TypeScript), how it fails, and one generated Dockerfile built and run for real.
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { needDocker, testedRuntimes, BASE_IMAGE } = require('./helpers/docker.js');

const dirs = [];
after(() => { for (const dir of dirs) rm(dir); });

/** A throwaway project: files given as { 'rel/path': 'content' }; objects are written as JSON. */
function project(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-dockerfile-'));
  dirs.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

async function describe(dir, ...flags) {
  const r = await runCli(['dockerfile', '--json', '--quiet', ...flags], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function dockerfileText(dir, ...flags) {
  const r = await runCli(['dockerfile', ...flags], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

/** The exec-form CMD of a Dockerfile, as an array. */
function cmdOf(text) {
  const line = text.split('\n').find((l) => l.startsWith('CMD '));
  return JSON.parse(line.slice(4));
}

test('npm start with a --require preload: the flags go into the pack command and the CMD', async () => {
  const dir = project({
    'package.json': { name: 'api', scripts: { start: 'node --require ./tracing.js server.js' }, dependencies: { coldstart: '*' } },
    'package-lock.json': '{}', 'server.js': '', 'tracing.js': '',
  });
  const d = await describe(dir);
  assert.equal(d.entry, 'server.js');
  assert.equal(d.entryFrom, 'scripts.start');
  assert.deepEqual(d.nodeFlags, ['--require', './tracing.js']);
  assert.deepEqual(d.packageManager, { name: 'npm', lockfile: 'package-lock.json' });
  assert.deepEqual(d.warnings, []);

  const { stdout, stderr } = await dockerfileText(dir);
  assert.equal(stderr, '');
  assert.match(stdout, /^RUN node node_modules\/coldstart\/bin\/coldstart\.js pack --code-cache --out \/startup\.tar -- node --require \.\/tracing\.js server\.js$/m);
  // The default check: an edit after the pack stage is caught, at the cost of a stat for node_modules.
  assert.deepEqual(cmdOf(stdout), ['node', 'node_modules/coldstart/bin/coldstart.js', 'start',
    '--archive', '/startup.tar', '--', 'node', '--require', './tracing.js', 'server.js']);
  assert.match(stdout, /npm ci --omit=dev/);
  const major = process.versions.node.split('.')[0];
  assert.match(stdout, new RegExp(`^ARG NODE_IMAGE=node:${major}-slim$`, 'm'));
  assert.match(stdout, new RegExp(`docker build --build-arg NODE_IMAGE=node:${major}-slim -t api \\.`));
  assert.doesNotMatch(stdout, /AS build|DISTROLESS/);
});

test('--snapshot: pack makes the snapshot in the run image and node starts from it; what pack would refuse is said first', async () => {
  const dir = project({
    'package.json': { name: 'api', scripts: { start: 'node --enable-source-maps server.js --port 1' }, dependencies: { coldstart: '*' } },
    'package-lock.json': '{}', 'server.js': '',
  });
  const { stdout, stderr } = await dockerfileText(dir, '--snapshot');
  assert.equal(stderr, '');
  assert.match(stdout, /^RUN node node_modules\/coldstart\/bin\/coldstart\.js pack --code-cache --snapshot-blob \/startup\.blob --out \/startup\.tar -- node --enable-source-maps server\.js --port 1 && test -f \/startup\.blob$/m);
  assert.deepEqual(cmdOf(stdout), ['node', '--snapshot-blob', '/startup.blob', '--enable-source-maps', 'server.js', '--port', '1']);
  assert.equal(stdout.match(/^FROM /gm).length, 1, 'one stage: the snapshot is made by the Node that runs it');
  assert.doesNotMatch(stdout, /COLDSTART_VERIFY/, 'the snapshot is checked against the files at start');

  const preloaded = project({
    'package.json': { name: 'api', scripts: { start: 'node --require ./tracing.js server.js' }, dependencies: { coldstart: '*' } },
    'server.js': '', 'tracing.js': '',
  });
  const esm = project({
    'package.json': { name: 'api', type: 'module', scripts: { start: 'node server.js' }, dependencies: { coldstart: '*' } },
    'server.js': '',
  });
  for (const [cwd, flags, pattern] of [
    [esm, ['--snapshot'], /^coldstart: --snapshot: the entry server\.js is an ES module: the snapshot holds CommonJS modules .*; leave out --snapshot$/],
    [dir, ['--snapshot', '--bundle'], /^coldstart: --snapshot with --bundle: each is a way to start the app; leave out one of them$/],
    [dir, ['--snapshot', '--distroless'], /^coldstart: --snapshot with --distroless: the snapshot must be made by the Node of the run image/],
    [preloaded, ['--snapshot'], /^coldstart: --snapshot: the app starts with --require \.\/tracing\.js: a preload \(an APM agent\) must see the modules load, .*; leave out --snapshot$/],
  ]) {
    const r = await runCli(['dockerfile', ...flags], { cwd });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr.trim().split('\n').pop(), pattern);
  }
});

test('--bundle: the pack stage bundles (the proof runs in the build) and packs the bundle where it runs; the run stage holds the bundle, coldstart and the archive', async () => {
  const dir = project({
    'package.json': { name: 'api', scripts: { start: 'node --require ./tracing.js server.js' }, dependencies: { coldstart: '*' } },
    'package-lock.json': '{}', 'server.js': '', 'tracing.js': '',
  });
  const { stdout, stderr } = await dockerfileText(dir, '--bundle');
  assert.equal(stderr, '');
  const runs = stdout.split('\n').filter((l) => l.startsWith('RUN '));
  assert.deepEqual(runs, [
    'RUN node node_modules/coldstart/bin/coldstart.js bundle --runs 3 --out /bundle -- node --require ./tracing.js server.js',
    'RUN node /app/node_modules/coldstart/bin/coldstart.js pack --code-cache --out /startup.tar -- node --require ./tracing.js server.js',
  ]);
  assert.match(stdout, /^WORKDIR \/bundle\nRUN node \/app\//m, 'pack runs where the bundle runs');
  const final = stdout.slice(stdout.lastIndexOf('FROM '));
  assert.deepEqual(final.split('\n').filter((l) => l.startsWith('COPY ')), [
    'COPY --from=pack /bundle /bundle', 'COPY --from=pack /app/node_modules/coldstart /coldstart', 'COPY --from=pack /startup.tar /startup.tar',
  ], 'no node_modules of the app in the run stage');
  assert.deepEqual(cmdOf(stdout), ['node', '/coldstart/bin/coldstart.js', 'start', '--archive', '/startup.tar', '--', 'node', '--require', './tracing.js', 'server.js']);
  const distroless = await dockerfileText(dir, '--bundle', '--distroless');
  assert.deepEqual(cmdOf(distroless.stdout), ['/coldstart/bin/coldstart.js', 'start', '--archive', '/startup.tar', '--', 'node', '--require', './tracing.js', 'server.js']);
  const lambda = await runCli(['dockerfile', '--bundle', '--lambda', 'server.js:handler'], { cwd: dir });
  assert.equal(lambda.code, 2);
  assert.match(lambda.stderr, /^coldstart: --bundle with --lambda: /m);
});

test('main only, and the index.js fallback', async () => {
  const withMain = project({ 'package.json': { main: 'lib/app', scripts: { start: 'nodemon lib/app.js' } }, 'lib/app.js': '' });
  const d = await describe(withMain);
  assert.equal(d.entry, 'lib/app.js', 'main resolved as node would');
  assert.equal(d.entryFrom, 'main');
  assert.deepEqual(d.nodeFlags, []);
  assert.deepEqual(d.packageManager, { name: 'npm', lockfile: null });

  const bare = project({ 'index.js': '' });
  const b = await describe(bare);
  assert.equal(b.entry, 'index.js');
  assert.equal(b.entryFrom, 'index.js');
  assert.equal(b.name, 'my-app');

  const chosen = await describe(withMain, '--entry', './lib/app.js');
  assert.equal(chosen.entry, 'lib/app.js');
  assert.equal(chosen.entryFrom, '--entry');
});

test('yarn and pnpm lockfiles; pnpm says node_modules goes in as installed', async () => {
  const yarn = project({ 'package.json': { main: 'server.js' }, 'yarn.lock': '', 'server.js': '' });
  assert.deepEqual((await describe(yarn)).packageManager, { name: 'yarn', lockfile: 'yarn.lock' });
  assert.match((await dockerfileText(yarn)).stdout, /yarn install --frozen-lockfile --production/);

  const pnpm = project({ 'package.json': { main: 'server.js' }, 'pnpm-lock.yaml': '', 'server.js': '' });
  assert.deepEqual((await describe(pnpm)).packageManager, { name: 'pnpm', lockfile: 'pnpm-lock.yaml' });
  const text = (await dockerfileText(pnpm)).stdout;
  assert.match(text, /symlinks/);
  assert.match(text, /build context must contain\n# node_modules as pnpm installed it/);
});

test('.node-version or .nvmrc pins the Node major of the base images, ahead of engines.node', async () => {
  const dir = project({ 'package.json': { main: 'server.js', engines: { node: '>=20' } }, 'server.js': '', '.nvmrc': 'v24.11.1\n' });
  assert.deepEqual((await describe(dir)).node, { major: 24, from: '.nvmrc', range: 'v24.11.1' });
  const text = (await dockerfileText(dir)).stdout;
  assert.match(text, /^ARG NODE_IMAGE=node:24-slim$/m);
  assert.match(text, /^# Node 24 comes from \.nvmrc \("v24\.11\.1"\)\.$/m);
  fs.writeFileSync(path.join(dir, '.node-version'), '26\n');
  assert.deepEqual((await describe(dir)).node, { major: 26, from: '.node-version', range: '26' });
  // A name instead of a number (lts/iron) is not guessed at: one warning, engines.node decides.
  fs.rmSync(path.join(dir, '.node-version'));
  fs.writeFileSync(path.join(dir, '.nvmrc'), 'lts/iron\n');
  const d = await describe(dir);
  assert.deepEqual(d.node.from, 'engines.node');
  assert.ok(d.warnings.some((w) => w.code === 'NODE_VERSION_FILE_UNREADABLE'), JSON.stringify(d.warnings));
});

test('engines.node picks the Node major of the base images', async () => {
  const dir = project({ 'package.json': { main: 'server.js', engines: { node: '^18.17 || >=20 <23' } }, 'server.js': '' });
  const d = await describe(dir);
  assert.deepEqual(d.node, { major: 22, from: 'engines.node', range: '^18.17 || >=20 <23' });
  const text = (await dockerfileText(dir, '--distroless')).stdout;
  assert.match(text, /^ARG NODE_IMAGE=node:22-slim$/m);
  assert.match(text, /^ARG DISTROLESS_IMAGE=gcr\.io\/distroless\/nodejs22-debian12$/m);
  assert.match(text, /^FROM \$\{DISTROLESS_IMAGE\}$/m);
  assert.equal(cmdOf(text)[0], 'node_modules/coldstart/bin/coldstart.js', 'distroless: node is the entrypoint');
  assert.deepEqual(cmdOf(text).slice(-2), ['node', 'server.js']);
});

test('the dependencies\' engines.node raise the Node major where nothing pins it; a pin below them is kept and said', async () => {
  // npm's lockfile records each package's engines; devDependencies are not in the image.
  const lock = { lockfileVersion: 3, packages: {
    '': { name: 'app' },
    'node_modules/needs-30': { version: '1.0.0', engines: { node: '>=18 || >=30' } },
    'node_modules/a/node_modules/@scope/needs-30': { version: '1.0.0', engines: { node: '^30.1.0' } },
    'node_modules/old': { version: '1.0.0', engines: { node: '>=0.10' } },
    'node_modules/dev-only': { version: '1.0.0', dev: true, engines: { node: '>=40' } },
  } };
  const dir = project({ 'package.json': { main: 'server.js' }, 'server.js': '', 'package-lock.json': lock });
  const d = await describe(dir);
  assert.equal(d.node.major, 30);
  assert.equal(d.node.from, 'dependencies');
  assert.ok(d.warnings.some((w) => w.code === 'NODE_BELOW_DEPENDENCIES' && w.message.includes('@scope/needs-30 "^30.1.0"')), JSON.stringify(d.warnings));
  const text = (await dockerfileText(dir)).stdout;
  assert.match(text, /^ARG NODE_IMAGE=node:30-slim$/m);
  assert.match(text, /^# Node 30 comes from the dependencies' engines\.node \(@scope\/needs-30 "\^30\.1\.0"\)\.$/m);

  // engines.node open above (>=20) lets the dependencies decide; what it holds stays in one comment line.
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ main: 'server.js', engines: { node: '>=20\nRUN echo injected' } }));
  assert.deepEqual((await describe(dir)).node.major, 30);
  lock.packages['node_modules/needs-30'].engines.node = '>=18';
  lock.packages['node_modules/a/node_modules/@scope/needs-30'].engines.node = '>=19';
  fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
  const own = await dockerfileText(dir);
  assert.match(own.stdout, /^# Node 20 comes from engines\.node ">=20\\nRUN echo injected" in package\.json\.$/m);
  assert.doesNotMatch(own.stdout, /^RUN echo/m);

  // A version file pins: kept below what the dependencies need, with a warning. Without a lockfile, node_modules says.
  fs.rmSync(path.join(dir, 'package-lock.json'));
  fs.writeFileSync(path.join(dir, '.nvmrc'), '24\n');
  fs.mkdirSync(path.join(dir, 'node_modules', '@s', 'x'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'node_modules', '@s', 'x', 'package.json'), JSON.stringify({ name: '@s/x', engines: { node: '>= 31' } }));
  const pinned = await describe(dir);
  assert.deepEqual(pinned.node, { major: 24, from: '.nvmrc', range: '24' });
  assert.ok(pinned.warnings.some((w) => w.code === 'NODE_PIN_BELOW_DEPENDENCIES' && w.message.includes('@s/x ">= 31"')), JSON.stringify(pinned.warnings));
});

test('Next.js standalone: built, then the standalone tree alone (static and public beside it) packed at /app to its first answer and started there', async () => {
  const dir = project({
    'package.json': { name: 'site', scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '16.0.0', coldstart: '*' } },
    'next.config.mjs': "export default { output: 'standalone' };\n",
    'public/robots.txt': '', 'app/page.js': '', 'package-lock.json': '{}',
  });
  const d = await describe(dir);
  assert.equal(d.entry, 'server.js');
  assert.deepEqual(d.next, { config: 'next.config.mjs', buildScript: 'next build', command: ['node', 'node_modules/next/dist/bin/next', 'build'], public: true });
  const { stdout } = await dockerfileText(dir);
  const steps = stdout.split('\n').filter((l) => /^(FROM|RUN|COPY|ENV|WORKDIR|CMD) /.test(l));
  assert.deepEqual(steps, [
    'FROM ${NODE_IMAGE} AS build', 'ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1', 'WORKDIR /build', 'COPY . .',
    'RUN node node_modules/next/dist/bin/next build',
    'FROM build AS pack', 'ENV HOSTNAME=0.0.0.0', 'WORKDIR /app',
    'COPY --from=build /build/.next/standalone /app', 'COPY --from=build /build/.next/static /app/.next/static', 'COPY --from=build /build/public /app/public',
    'RUN node /build/node_modules/coldstart/bin/coldstart.js pack --code-cache --out /startup.tar -- node server.js',
    'FROM ${NODE_IMAGE}', 'ENV NODE_ENV=production HOSTNAME=0.0.0.0 PORT=3000 NEXT_TELEMETRY_DISABLED=1', 'WORKDIR /app',
    'COPY --from=build /build/.next/standalone /app', 'COPY --from=build /build/.next/static /app/.next/static', 'COPY --from=build /build/public /app/public',
    'COPY --from=build /build/node_modules/coldstart /coldstart', 'COPY --from=pack /startup.tar /startup.tar',
    'CMD ["node","/coldstart/bin/coldstart.js","start","--archive","/startup.tar","--","node","server.js"]',
  ]);
  assert.match(stdout, /npm ci \(package-lock\.json\)/, 'next build may need devDependencies');
  // Not standalone: next start, as before. Another way to start is refused in one line.
  for (const flag of ['--bundle', '--choose']) {
    const r = await runCli(['dockerfile', flag, '--out', path.join(dir, 'D')], { cwd: dir });
    assert.equal(r.code, 2, flag);
    assert.match(r.stderr, /^coldstart: --(bundle|choose): not for a Next\.js standalone server/);
  }
  fs.writeFileSync(path.join(dir, 'next.config.mjs'), 'export default {};\n');
  assert.equal((await describe(dir, '--entry', 'app/page.js')).next, null);
  const plain = await runCli(['dockerfile', '--json'], { cwd: dir });
  assert.match(plain.stderr, /scripts\.start "next start" is not "node <file>"/, 'not standalone: next start is the command');
});

test('repository content and flags never become Dockerfile instructions: a line break in what reaches a line is refused, or quoted in a comment', async () => {
  const lines = (text) => text.split('\n').filter((l) => /^RUN echo injected/.test(l));
  // A line break inside a quoted word of scripts.start (the entry file's name): refused in one line.
  const dir = project({ 'package.json': { name: 'x', scripts: { start: 'node "server\nRUN echo injected #.js"' } }, 'server\nRUN echo injected #.js': '' });
  let r = await runCli(['dockerfile'], { cwd: dir });
  assert.equal(r.code, 2, r.stdout);
  assert.match(r.stderr, /^coldstart: the app command holds a line break, which would end a Dockerfile line: "server\\nRUN echo injected #\.js"\n$/);
  // The build script is quoted into its comment; its words reach RUN on one line.
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', main: 's.js', scripts: { build: 'tsc -p x\nRUN echo injected' } }));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), '{}');
  fs.writeFileSync(path.join(dir, 's.js'), '');
  r = await runCli(['dockerfile'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(r.stdout), []);
  r = await runCli(['dockerfile', '--out', 'a\nRUN echo injected'], { cwd: dir });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^coldstart: --out "a\\nRUN echo injected": a line break in the path/);
});

test('TypeScript: a build stage runs the build script, the entry is the compiled file', async () => {
  const dir = project({
    'package.json': { main: 'dist/server.js', scripts: { build: 'tsc -p tsconfig.json', start: 'ts-node src/server.ts' } },
    'tsconfig.json': '{}', 'src/server.ts': '', 'package-lock.json': '{}',
  });
  const d = await describe(dir);
  assert.equal(d.entry, 'dist/server.js', 'taken from main although dist/ does not exist yet');
  assert.deepEqual(d.typescript.command, ['node', 'node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
  const text = (await dockerfileText(dir)).stdout;
  const stages = text.split('\n').filter((l) => l.startsWith('FROM ') || l.startsWith('RUN ') || l.startsWith('COPY '));
  assert.deepEqual(stages, [
    'FROM ${NODE_IMAGE} AS build', 'COPY . .', 'RUN node node_modules/typescript/bin/tsc -p tsconfig.json',
    'FROM ${NODE_IMAGE} AS pack', 'COPY --from=build /app /app',
    'RUN node node_modules/coldstart/bin/coldstart.js pack --code-cache --out /startup.tar -- node dist/server.js',
    'FROM ${NODE_IMAGE}', 'COPY --from=build /app /app', 'COPY --from=pack /startup.tar /startup.tar',
  ]);
  assert.match(text, /npm ci \(package-lock\.json\)/, 'the build needs devDependencies');

  const other = project({
    'package.json': { main: 'src/index.ts', scripts: { build: 'rimraf dist && tsc' } }, 'tsconfig.json': '{}',
  });
  const r = await runCli(['dockerfile'], { cwd: other });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^coldstart: entry src\/index\.ts \(main\) is TypeScript source: give the compiled file/);
  const fixed = await describe(other, '--entry', 'build/index.js');
  assert.deepEqual(fixed.typescript.command, ['npm', 'run', 'build']);
});

test('in coldstart\'s own repository: no warning that coldstart is not its own dependency; the image runs its bin/', async () => {
  const repo = path.join(__dirname, '..');
  const r = await dockerfileText(repo, '--entry', 'fixtures/express-app/server.js');
  assert.doesNotMatch(r.stderr, /not in dependencies|COLDSTART_NOT_A_DEPENDENCY/, r.stderr);
  assert.deepEqual(cmdOf(r.stdout).slice(0, 2), ['node', 'bin/coldstart.js']);
  assert.match(r.stdout, /^RUN node bin\/coldstart\.js pack /m);
  // Anywhere else, coldstart comes from node_modules, and its absence is said.
  const other = project({ 'package.json': { name: 'app' }, 'index.js': '' });
  const elsewhere = await dockerfileText(other);
  assert.match(elsewhere.stderr, /coldstart is not in dependencies/);
  assert.deepEqual(cmdOf(elsewhere.stdout).slice(0, 2), ['node', 'node_modules/coldstart/bin/coldstart.js']);
});

test('bad input: no entry, a missing entry, a stray app command: one coldstart line, exit 2', async () => {
  const cases = [
    [project({ 'package.json': { scripts: { start: 'node -e 1' } } }), [], /^coldstart: no entry file found in .*scripts\.start "node -e 1" is not "node <file>".*--entry FILE/],
    [project({ 'package.json': { main: 'gone.js' } }), [], /^coldstart: entry file not found: gone\.js \(main\)/],
    [project({ 'index.js': '' }), ['--entry', '../outside.js'], /is outside the project/],
    [project({ 'package.json': '{ nope' }), [], /^coldstart: cannot read package\.json: not valid JSON$/],
    [project({ 'index.js': '' }), ['--', 'node', 'index.js'], /takes no app command/],
  ];
  for (const [dir, flags, pattern] of cases) {
    const r = await runCli(['dockerfile', ...flags], { cwd: dir });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], pattern);
  }
});

test('--out writes the file atomically and names it in the build command; warnings on stderr, --strict fails', async () => {
  const dir = project({ 'package.json': { name: 'svc', main: 'server.js', devDependencies: { coldstart: '*' } }, 'server.js': '' });
  const r = await runCli(['dockerfile', '--out', 'docker/Dockerfile.coldstart'], { cwd: dir });
  assert.equal(r.code, 2, 'the directory does not exist');
  fs.mkdirSync(path.join(dir, 'docker'));
  const ok = await runCli(['dockerfile', '--out', 'docker/Dockerfile.coldstart'], { cwd: dir });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stderr, /^coldstart: warning: coldstart is a devDependency/);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'docker')), ['Dockerfile.coldstart'], 'no temp file left');
  const text = fs.readFileSync(path.join(dir, 'docker', 'Dockerfile.coldstart'), 'utf8');
  assert.match(text, /docker build -f docker\/Dockerfile\.coldstart --build-arg NODE_IMAGE=node:\d+-slim -t svc \./);

  const strict = await runCli(['dockerfile', '--strict'], { cwd: dir });
  assert.equal(strict.code, 1);
  assert.match(strict.stderr, /^coldstart: --strict: coldstart is a devDependency/);
});

/**
 * The image of a fixture built from the Dockerfile `coldstart dockerfile [flags]` writes for it,
 * in a build context as a user's would be (the app, its packages, coldstart in node_modules).
 * Every step runs (no layer cache): the pack in the build is under test.
 */
async function imageFromDockerfile(fixture, flags, tag, { start, prepare } = {}) {
  const { assembleContext, buildImage } = require('../lib/docker.js');
  const app = copyFixture(fixture);
  dirs.push(app);
  if (prepare) prepare(app);
  if (start) {
    // A start only --choose writes, rendered as it renders it.
    const { detectProject } = require('../lib/dockerfile/detect-project.js');
    const { renderDockerfile } = require('../lib/dockerfile/render-dockerfile.js');
    fs.writeFileSync(path.join(app, 'Dockerfile'), renderDockerfile(detectProject({ root: app }), { start }));
  } else {
    const r = await runCli(['dockerfile', ...flags, '--root', app, '--out', path.join(app, 'Dockerfile')]);
    assert.equal(r.code, 0, r.stderr);
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-dockerfile-context-'));
  dirs.push(work);
  const context = assembleContext({ app, into: path.join(work, 'context') });
  assert.ok(fs.existsSync(path.join(context.dir, 'node_modules', 'coldstart', 'bin', 'coldstart.js')));
  const built = await buildImage({
    context: context.dir, dockerfile: path.join(context.dir, 'Dockerfile'), tag,
    buildArgs: { NODE_IMAGE: BASE_IMAGE }, timeoutMs: 240_000, noCache: true,
  });
  return { built, work };
}

async function removeImage(tag) {
  await promisify(execFile)(process.env.COLDSTART_DOCKER || '/usr/bin/docker', ['image', 'rm', '--force', tag]).catch(() => {});
}

test('the Dockerfile printed for fixtures/express-app builds and starts from its archive under runc', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const { runContainer, stopAllContainers } = require('../lib/docker.js');
  const tag = `coldstart-test-dockerfile-command:${process.pid}`;
  try {
    const { built } = await imageFromDockerfile('express-app', [], tag);
    t.diagnostic(`built in ${Math.round(built.ms)} ms`);
    const run = await runContainer({ image: tag, runtime: 'runc', until: /express-app listening/, timeoutMs: 60_000 });
    assert.ok(run.matched, `never listened: exit ${run.code}\n${run.stdout}\n${run.stderr}`);
    const report = /coldstart: serving (\d+) files/.exec(run.stderr);
    assert.ok(report, `no "coldstart: serving N files" line: ${run.stderr}`);
    assert.ok(Number(report[1]) > 10, `express and the app come from the archive: ${report[0]}`);
    t.diagnostic(report[0]);
  } finally {
    await stopAllContainers();
    await removeImage(tag);
  }
});

test('the --snapshot Dockerfile for fixtures/express-app builds its snapshot and starts from it under runc', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const { runContainer, stopAllContainers } = require('../lib/docker.js');
  const tag = `coldstart-test-dockerfile-snapshot:${process.pid}`;
  try {
    const { built } = await imageFromDockerfile('express-app', ['--snapshot'], tag);
    const made = /snapshot: (\d+) modules evaluated/.exec(built.output);
    assert.ok(made && Number(made[1]) > 20, `pack made no snapshot of express: ${built.output.slice(-2000)}`);
    t.diagnostic(made[0]);
    const run = await runContainer({ image: tag, runtime: 'runc', until: /express-app listening/, timeoutMs: 60_000 });
    assert.ok(run.matched, `never listened: exit ${run.code}\n${run.stdout}\n${run.stderr}`);
    assert.doesNotMatch(run.stderr, /coldstart:/, 'started from the snapshot, without a word');
  } finally {
    await stopAllContainers();
    await removeImage(tag);
  }
});

test('the --bundle Dockerfile for fixtures/express-app proves its bundle answers as the app does, and starts it from its archive under runc', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const { runContainer, stopAllContainers } = require('../lib/docker.js');
  const tag = `coldstart-test-dockerfile-bundle:${process.pid}`;
  try {
    const { built } = await imageFromDockerfile('express-app', ['--bundle'], tag);
    assert.match(built.output, /answers +as the app's: GET \/ 200 \(status and body\)/, `the build proved the answer: ${built.output.slice(-2000)}`);
    const run = await runContainer({
      image: tag, runtime: 'runc', until: /express-app listening/, timeoutMs: 60_000,
      args: ['sh', '-c', 'test -e /bundle/node_modules || echo no node_modules; exec node /coldstart/bin/coldstart.js start --archive /startup.tar -- node server.js'],
    });
    assert.ok(run.matched, `never listened: exit ${run.code}\n${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^no node_modules$/m, 'express is inside the bundle: the run stage has no node_modules');
    if (Number(process.versions.node.split('.')[0]) < 22) {
      // Node 20 loses import() with a cache, and the bundle mentions import( (in JSDoc types): pack says so.
      assert.match(built.output, /CommonJS modules mention import\( and get no code cache on Node 20/);
      assert.match(run.stderr, /coldstart: serving \d+ files/);
      t.diagnostic(`SKIPPED the code cache on ${process.version}: ${/coldstart: serving .*/.exec(run.stderr)[0]}`);
      return;
    }
    const report = /coldstart: serving (\d+) files, .* code cache for (\d+) modules/.exec(run.stderr);
    assert.ok(report, `no "coldstart: serving N files ... code cache" line: ${run.stderr}`);
    t.diagnostic(report[0]);
  } finally {
    await stopAllContainers();
    await removeImage(tag);
  }
});

test('a hostile .nvmrc and engines.node build into an image where none of their lines ran as an instruction', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const { runContainer, stopAllContainers } = require('../lib/docker.js');
  const tag = `coldstart-test-dockerfile-hostile:${process.pid}`;
  try {
    await imageFromDockerfile('plain-http', [], tag, {
      prepare(app) {
        fs.writeFileSync(path.join(app, '.nvmrc'), '20\nFROM scratch AS x\nRUN node -e "require(\'fs\').writeFileSync(\'/injected\', \'1\')" #\n');
        const manifest = { name: 'hostile', private: true, main: 'server.js' };
        manifest.engines = { node: '>=20\nRUN node -e "require(\'fs\').writeFileSync(\'/injected\', \'2\')"' };
        fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(manifest));
      },
    });
    const run = await runContainer({ image: tag, runtime: 'runc', args: ['node', '-e', "console.log(require('fs').existsSync('/injected') ? 'injected' : 'clean')"], timeoutMs: 60_000 });
    assert.strictEqual(run.stdout.trim(), 'clean', run.stderr);
  } finally {
    await stopAllContainers();
    await removeImage(tag);
  }
});

test('the Dockerfile --choose writes for an ncc bundle with Node\'s compile cache builds the cache at build and starts the bundle from it under runc', { timeout: 240_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  if (Number(process.versions.node.split('.')[0]) < 22) {
    t.skip(`SKIPPED: the base image holds this Node (${process.version}), which has no compile cache (22.1 and later); CI runs this test on Node 22, 24 and 26`);
    return;
  }
  const { runContainer, stopAllContainers } = require('../lib/docker.js');
  const tag = `coldstart-test-dockerfile-bundle-cache:${process.pid}`;
  try {
    await imageFromDockerfile('express-app', [], tag, { start: 'bundle-compile-cache' });
    // How many entries Node's cache holds in the image, then the image's own command.
    const count = "const fs=require('fs');const d='/compile-cache/'+fs.readdirSync('/compile-cache')[0];console.log('entries '+fs.readdirSync(d).length)";
    const run = await runContainer({
      image: tag, runtime: 'runc', until: /express-app listening/, timeoutMs: 60_000,
      args: ['sh', '-c', `node -e "${count}"; test -e /bundle/node_modules/express || echo no express; exec node server.js`],
    });
    assert.ok(run.matched, `never listened: exit ${run.code}\n${run.stdout}\n${run.stderr}`);
    const entries = /entries (\d+)/.exec(run.stdout);
    assert.ok(entries && Number(entries[1]) >= 1, `no compile cache in the image: ${run.stdout}`);
    assert.match(run.stdout, /^no express$/m, 'express is inside the bundle');
    assert.doesNotMatch(run.stderr, /coldstart/, 'nothing of coldstart runs');
  } finally {
    await stopAllContainers();
    await removeImage(tag);
  }
});

test('a start script that runs a package binary (the Functions Framework): pack and start run it; no --snapshot', async () => {
  const dir = copyFixture('gcf-app');
  dirs.push(dir);
  const d = await describe(dir);
  assert.equal(d.binary, 'functions-framework');
  assert.equal(d.entryFrom, 'scripts.start');
  assert.deepEqual(d.appCommand, ['functions-framework', '--target=hello']);
  const { stdout } = await dockerfileText(dir);
  assert.match(stdout, /^RUN node node_modules\/coldstart\/bin\/coldstart\.js pack --code-cache --out \/startup\.tar -- functions-framework --target=hello$/m);
  assert.deepEqual(cmdOf(stdout).slice(-3), ['--', 'functions-framework', '--target=hello']);
  const refused = await runCli(['dockerfile', '--snapshot'], { cwd: dir });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^coldstart: --snapshot: the app starts with the package binary functions-framework/);
});

test('--lambda: a function image whose run stage has the runtime client start the handler, the preload in NODE_OPTIONS', async () => {
  const dir = project({
    'package.json': { name: 'fn', dependencies: { coldstart: '*', 'aws-lambda-ric': '*' } },
    'handler.js': 'exports.handler = async () => ({ ok: true });',
    'event.json': '{"a":1}',
    'node_modules/aws-lambda-ric/package.json': { name: 'aws-lambda-ric', bin: { 'aws-lambda-ric': './index.mjs' } },
    'node_modules/aws-lambda-ric/index.mjs': '',
  });
  const d = await describe(dir, '--lambda', 'handler.handler', '--event', 'event.json');
  assert.deepEqual(d.lambda, { handler: 'handler.handler', file: 'handler.js', name: 'handler', event: 'event.json', runtimeClient: 'node_modules/aws-lambda-ric/index.mjs' });
  const { stdout } = await dockerfileText(dir, '--lambda', 'handler.js:handler', '--event', 'event.json');
  assert.match(stdout, /^WORKDIR \/var\/task$/m);
  assert.match(stdout, /^RUN node node_modules\/coldstart\/bin\/coldstart\.js pack --lambda handler\.js:handler --event event\.json --out \/var\/task\/startup\.tar$/m);
  assert.match(stdout, /^ENV NODE_OPTIONS="--require coldstart\/start" COLDSTART_ARCHIVE=\/var\/task\/startup\.tar$/m);
  assert.match(stdout, /^ENTRYPOINT \["node","node_modules\/aws-lambda-ric\/index\.mjs"\]$/m);
  assert.deepEqual(cmdOf(stdout), ['handler.handler']);
  assert.match(stdout, /npm ci --omit=dev/);
  // The runtime client as a devDependency (as some guides have it): installed all the same, and said.
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'fn', dependencies: { coldstart: '*' }, devDependencies: { 'aws-lambda-ric': '*' } }));
  const dev = await runCli(['dockerfile', '--lambda', 'handler.js:handler'], { cwd: dir });
  assert.equal(dev.code, 0, dev.stderr);
  assert.match(dev.stdout, /^# The image runs aws-lambda-ric from node_modules, a devDependency: install them all\.$/m);
  assert.match(dev.stdout, /Install first, on Linux\n# x64 with glibc as the image is: npm ci\.$/m);
  assert.match(dev.stderr, /^coldstart: warning: aws-lambda-ric is a devDependency: the image's ENTRYPOINT runs it/m);
  for (const [args, message] of [
    [['--event', 'event.json'], /^coldstart: --event is the first invocation of a --lambda function/],
    [['--lambda', 'handler.js:handler', '--snapshot'], /^coldstart: --snapshot with --lambda/],
    [['--lambda', 'nothere.js:handler'], /^coldstart: --lambda: handler file not found: nothere\.js/],
  ]) {
    const r = await runCli(['dockerfile', ...args], { cwd: dir });
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

test('the Dockerfile for a Functions Framework function (fixtures/gcf-app) builds and serves it from its archive under gVisor', { timeout: 300_000 }, async (t) => {
  if (!(await needDocker(t))) return;
  const { stopAllContainers } = require('../lib/docker.js');
  const runtime = (await testedRuntimes(t)).filter((r) => r !== 'runc').pop();
  const tag = `coldstart-test-dockerfile-gcf:${process.pid}`;
  try {
    const { built, work } = await imageFromDockerfile('gcf-app', [], tag);
    assert.match(built.output, /coldstart: packed \d+ files/);
    // The image's own CMD to the moment the function listens (the framework logs nothing in production).
    const out = path.join(work, 'profile');
    const run = await runCli(['profile', '--docker', tag, '--runtime', runtime, '--out', out], { cwd: work });
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    assert.equal(report.served && report.served.mode, 'memory', JSON.stringify(report.served));
    const served = /coldstart: serving (\d+) files/.exec(run.stderr);
    assert.ok(served && Number(served[1]) > 100, `the framework and express come from the archive: ${run.stderr}`);
    assert.doesNotMatch(run.stderr, /warning/, run.stderr);
    t.diagnostic(`${runtime}: ${served[0]}; listening at ${report.readyAt} ms`);
  } finally {
    await stopAllContainers();
    await removeImage(tag);
  }
});
