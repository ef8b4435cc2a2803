#!/usr/bin/env node
'use strict';
// Time to listen of an app in a container, under runc and gVisor (runsc): the seed's generated
// 1000-module fixture (default), fixtures/otel-express (--app otel-express: express traced by
// OpenTelemetry from a --require preload) or a heavy real app (--app heavy: express, googleapis and
// firebase-admin installed from the npm registry, about 1,200 modules at startup). Variants: plain
// node, the seed's shell recipe (tar xf the startup archive, then node), `coldstart start` (in
// place, --into a tmpfs, from memory), Node's own compile cache (NODE_COMPILE_CACHE, regular and
// portable, built at image build) and the app's ncc bundle (`coldstart bundle`, run from /bundle),
// alone and with a compile cache. Each sample is a fresh `docker run`, timed
// from the moment the client is started to the app's listening line (end to end) and, for every
// variant that starts node itself, in-process too: from that Node process's start to its first
// server listening, by its own clock (bench/in-process-clock.js, preloaded from the image's
// /opt/coldstart-bench); a warm-up round is run first and left out. Rounds interleave the
// variants, so drift on a shared machine spreads over all of them instead of landing on one.
// Needs the engine and base image from .ci/docker-up.sh (and the npm registry for --app heavy).
// Prints a markdown table on stdout, progress on stderr when it is a terminal or with --verbose
// (usage below).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { performance } = require('node:perf_hooks');
const {
  requireDocker, checkRuntimes, buildImage, runContainer, stopAllContainers, assembleContext, dockerBinary, removeImages, runscVersion,
} = require('../lib/docker.js');
const { summarize } = require('../lib/stats.js');
const { describeMachine: describeBenchMachine } = require('../lib/bench/runner.js');
const { generateFixture, LISTENING_PATTERN } = require('../lib/fixtures/generate.js');
const { readTarEntries } = require('../lib/start/tar-reader.js');
const { INDEX_PATH } = require('../lib/archive-format.js');
const { CommandError, UsageError } = require('../lib/errors.js');
const { parseCount, parseLimits } = require('../lib/options.js');
const { writeFileAtomic } = require('../lib/write-atomic.js');
const { size } = require('../lib/report/terminal-format.js');
const { treeSize } = require('../lib/tree-size.js');
const { isGvisor } = require('../lib/gvisor.js');
const { LISTEN_UPTIME_FILE, LISTEN_LINE, withListenProbe, listenUptime } = require('./in-process-clock.js');

const USAGE = `usage: node bench/docker-startup.js [--runs 10] [--warmup 1] [--runtimes runc,runsc]
  [--app fixture|otel-express|heavy] [--variants NAME,...] [--modules 1000] [--seed 42] [--cpus 0.5]
  (--cpus: each container's CPU share, docker run --cpus; this script's table takes one, runBenchmark several)
  [--base-image coldstart-node:local] [--tag IMAGE:TAG] [--json FILE] [--keep-image] [--verbose]

Apps: fixture (the seed's generated fixture, --modules and --seed apply; default),
otel-express (fixtures/otel-express with its packages from coldstart's own node_modules) and
heavy (express, googleapis and firebase-admin installed with npm from the registry into a scratch
directory: a Drive client and a Firebase app made at startup, about 1,200 modules).
Variants: floor-container, floor-node, plain, seed-tmpfs, seed-inplace, start-inplace,
start-into, start-memory, start-memory-noverify, start-memory-cache-compiled, start-memory-cache,
start-memory-cache-verify, snapshot, snapshot-noverify, compile-cache, compile-cache-portable, bundle, bundle-compile-cache.
All by default for the fixture; for otel-express and heavy the floors, plain, start-into,
start-memory, start-memory-noverify, start-memory-cache-compiled, start-memory-cache,
start-memory-cache-verify, snapshot, snapshot-noverify, compile-cache, compile-cache-portable,
bundle and bundle-compile-cache. The
compile-cache variants need Node 22.1+ in the base image (left out otherwise).
`;
const DOCKERFILE = path.join(__dirname, 'docker', 'Dockerfile.startup');
const BASE_IMAGE = 'coldstart-node:local';
const RUNTIMES = ['runc', 'runsc'];
const TMPFS_DIR = '/mnt/tmpfs';
// Cloud Run keeps the container's writable layer in memory; a tmpfs is the local stand-in.
const TMPFS = `${TMPFS_DIR}:rw,exec,size=256m`;
const COLDSTART = 'node_modules/coldstart/bin/coldstart.js';
const BUNDLE_DIR = '/bundle';
const SNAPSHOT = '/snapshot/startup.blob';
const REPO = path.resolve(__dirname, '..');
// `coldstart start` reports once the files are in place: extracted, or indexed in memory.
// The parenthesis may hold one of its own (Node 20: "no in-thread loader hooks (22.15 and later do)").
const START_REPORT = /coldstart: (extracted|serving) (\d+) files, ([\d.]+ [kM]?B)(?: from memory \((?:[^()]|\([^()]*\))*\))? in ([\d.]+) ms/;
const SHELL_BEGIN = /bench: begin (\d+)/;
const SHELL_EXTRACTED = /bench: extracted (\d+)/;
// Where the image keeps the bench's preloads (copied in with tools/).
const PROBE_DIR = '/opt/coldstart-bench';
const LISTEN_PROBE = `${PROBE_DIR}/${path.basename(LISTEN_UPTIME_FILE)}`;

// The seed's recipe with timestamps around tar: `date` is the only clock dash can read.
// The `echo` lines also give the host the moment each step is reached.
function seedScript(dir, command) {
  const into = dir ? ` -C ${dir}` : '';
  const cd = dir ? `cd ${dir} && ` : '';
  return `echo "bench: begin $(date +%s%N)" && tar xf /startup.tar${into} && `
    + `echo "bench: extracted $(date +%s%N)" && ${cd}exec ${command.join(' ')}`;
}

// The heavy app: express with the Google API client and the Firebase Admin SDK, made at startup
// but never called: no credentials and no network, in the build or in the container.
const HEAVY_SERVER = `'use strict';
const express = require('express');
const { google } = require('googleapis');
const admin = require('firebase-admin');

admin.initializeApp({ projectId: 'coldstart-bench' });
const drive = google.drive({ version: 'v3' });

const app = express();
app.get('/', (req, res) => res.json({ drive: typeof drive.files.list, firebase: admin.getApp().name }));
const server = app.listen(Number(process.env.PORT || 8080), () => {
  console.log(\`heavy listening on \${server.address().port}\`);
});
`;

// The ES module app: a fastify server with an S3 client and a zod schema made at startup, never
// calling AWS (no credentials, no network).
const AWS_ESM_SERVER = `import Fastify from 'fastify';
import { S3Client, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { z } from 'zod';

const s3 = new S3Client({ region: process.env.AWS_REGION || 'us-east-1' });
const Query = z.object({ prefix: z.string().default('') });
const app = Fastify();
app.get('/', async (req) => ({ s3: typeof s3.send, command: typeof ListObjectsV2Command, query: Query.parse(req.query) }));
const address = await app.listen({ port: Number(process.env.PORT || 8080), host: '0.0.0.0' });
console.log(\`aws-esm listening on \${new URL(address).port}\`);
`;

// The variants timed by default on a real app; the seed's recipe and in-place extraction, the
// fixture's comparisons, are left to --variants.
const REAL_APP_VARIANTS = ['floor-container', 'floor-node', 'plain', 'start-into', 'start-memory', 'start-memory-noverify',
  'start-memory-cache-compiled', 'start-memory-cache', 'start-memory-cache-verify', 'snapshot', 'snapshot-noverify', 'compile-cache', 'compile-cache-portable', 'bundle', 'bundle-compile-cache',
  'bundle-start'];

/**
 * The apps the image can hold. `command` starts the app from its directory (words without
 * quoting: the Dockerfile's shell splits them); `ready` is its listening line; `env` is set in
 * every container; `variants` are the ones run unless --variants says otherwise (undefined: all);
 * `install`, when present, are the packages npm installs from the registry beside `source`
 * (the app's server.js) instead of taking a directory of fixtures/.
 */
const APPS = {
  fixture: {
    command: ['node', 'index.js'],
    ready: LISTENING_PATTERN,
    env: {},
  },
  'otel-express': {
    command: ['node', '--require', './tracing.js', 'server.js'],
    ready: /^otel-express listening on \d+$/m,
    // A fixed port: the app would take any free one with 0, but a fixed one is what a platform gives.
    env: { PORT: '8080' },
    variants: REAL_APP_VARIANTS,
  },
  // fixtures/nest-app: NestJS 12 compiled to CommonJS, loading Nest's ES-module-only packages
  // through require(esm) (Node 22.12+).
  nest: {
    fixture: 'nest-app',
    command: ['node', 'dist/main.js'],
    ready: /^nest listening on /m,
    env: { PORT: '8080' },
    variants: REAL_APP_VARIANTS,
  },
  // An ES module app: fastify with the AWS SDK v3 S3 client and zod, from the npm registry.
  'aws-esm': {
    command: ['node', 'server.mjs'],
    ready: /^aws-esm listening on \d+$/m,
    env: { PORT: '8080', AWS_REGION: 'us-east-1' },
    install: ['fastify', '@aws-sdk/client-s3', 'zod'],
    entry: 'server.mjs',
    source: AWS_ESM_SERVER,
    variants: REAL_APP_VARIANTS,
  },
  heavy: {
    command: ['node', 'server.js'],
    ready: /^heavy listening on \d+$/m,
    env: { PORT: '8080' },
    install: ['express', 'googleapis', 'firebase-admin'],
    source: HEAVY_SERVER,
    variants: REAL_APP_VARIANTS,
  },
};

/**
 * What is timed, for an app. `phases` reads the moments found in a sample's output into named
 * durations; each variant runs in /app (the image's WORKDIR), the bundle in /bundle.
 * @param {{command: string[], ready: RegExp}} app
 */
function variantsFor(app) {
  const { command, ready } = app;
  const shown = command.join(' ');
  const startVariant = (name, label, archive, options) => ({
    name,
    label,
    args: ['node', COLDSTART, 'start', '--archive', archive, ...options, '--', ...command],
    ready,
    marks: { filesReady: START_REPORT },
    phases: startPhases,
  });
  return [
    {
      name: 'floor-container',
      label: 'floor: container only (`sh -c echo`)',
      args: ['sh', '-c', 'echo bench: ready'],
      ready: /bench: ready/,
    },
    {
      name: 'floor-node',
      label: 'floor: bare node listening, no app',
      args: ['node', '-e', "const s = require('http').createServer().listen(0, () => console.log('bench: bare node listening'))"],
      ready: /bench: bare node listening/,
    },
    {
      name: 'plain',
      label: `plain \`${shown}\``,
      args: command,
      ready,
    },
    {
      name: 'seed-tmpfs',
      label: `seed recipe: \`tar xf -C ${TMPFS_DIR}\` (tmpfs), then node`,
      args: ['sh', '-c', seedScript(TMPFS_DIR, command)],
      tmpfs: [TMPFS],
      ready,
      marks: { begin: SHELL_BEGIN, filesReady: SHELL_EXTRACTED },
      phases: shellPhases,
    },
    {
      name: 'seed-inplace',
      label: 'seed recipe: `tar xf` over /app (in place), then node',
      args: ['sh', '-c', seedScript(null, command)],
      ready,
      marks: { begin: SHELL_BEGIN, filesReady: SHELL_EXTRACTED },
      phases: shellPhases,
    },
    startVariant('start-inplace', '`coldstart start --mode extract` (in place)', '/startup.tar', ['--mode', 'extract']),
    {
      ...startVariant('start-into', `\`coldstart start --into ${TMPFS_DIR}\` (tmpfs)`, '/startup.tar', ['--into', TMPFS_DIR]),
      tmpfs: [TMPFS],
    },
    // No extraction: recorded resolutions and sources served from the archive in memory.
    startVariant('start-memory', '`coldstart start --mode memory`', '/startup.tar', ['--mode', 'memory']),
    // The same without the size check of each served file against the disk.
    startVariant('start-memory-noverify', '`coldstart start --mode memory --trust-archive`', '/startup.tar',
      ['--mode', 'memory', '--trust-archive']),
    // The same with V8 code cache of each module's top-level code, compiled without running it.
    startVariant('start-memory-cache-compiled', '`coldstart start --trust-archive`, archive made with `pack --code-cache compile`',
      '/startup-cache-compiled.tar', ['--trust-archive']),
    // The same with V8 code cache recorded from a run up to listen (`pack --code-cache`), trusting the archive.
    startVariant('start-memory-cache', '`coldstart start --trust-archive`, archive made with `pack --code-cache`',
      '/startup-cache.tar', ['--trust-archive']),
    // The same with start's default check of the files against the disk: what the snippets and
    // `coldstart dockerfile` write.
    startVariant('start-memory-cache-verify', '`coldstart start`, archive made with `pack --code-cache`', '/startup-cache.tar', []),
    // pack --code-cache --snapshot-blob: the modules evaluated at image build, started from the
    // snapshot, the rest of the archive from memory; with start's default check and without
    // (COLDSTART_VERIFY=none, what --trust-archive is to start). Left out when pack refused one.
    {
      name: 'snapshot',
      label: `\`pack --snapshot-blob\`: \`node --snapshot-blob ${SNAPSHOT} ${command.slice(1).join(' ')}\``,
      args: ['node', '--snapshot-blob', SNAPSHOT, ...command.slice(1)],
      needs: path.posix.dirname(SNAPSHOT),
      ready,
    },
    {
      name: 'snapshot-noverify',
      label: 'the same with `COLDSTART_VERIFY=none`',
      args: ['node', '--snapshot-blob', SNAPSHOT, ...command.slice(1)],
      env: { COLDSTART_VERIFY: 'none' },
      needs: path.posix.dirname(SNAPSHOT),
      ready,
    },
    // Node's own compile cache (22.1+), built at image build by one run up to listen, same uid and path.
    {
      name: 'compile-cache',
      label: `\`NODE_COMPILE_CACHE\` built at image build, \`${shown}\``,
      args: command,
      env: { NODE_COMPILE_CACHE: '/compile-cache' },
      needs: '/compile-cache',
      ready,
    },
    {
      name: 'compile-cache-portable',
      label: 'the same with `NODE_COMPILE_CACHE_PORTABLE=1`',
      args: command,
      env: { NODE_COMPILE_CACHE: '/compile-cache-portable', NODE_COMPILE_CACHE_PORTABLE: '1' },
      needs: '/compile-cache-portable',
      ready,
    },
    {
      // `coldstart bundle` at build time: the entry at its own path in /bundle, externals (and the
      // preload's packages) in /bundle/node_modules.
      name: 'bundle',
      label: `ncc bundle (\`coldstart bundle\`), \`${shown}\` in ${BUNDLE_DIR}`,
      args: command,
      dockerArgs: ['--workdir', BUNDLE_DIR],
      ready,
    },
    {
      // The bundle packed by `pack --code-cache` in /bundle and started by `coldstart start`: the
      // bundle's files from memory with their code cache recorded at the ready moment.
      name: 'bundle-start',
      label: 'ncc bundle + `coldstart start` (`pack --code-cache` of the bundle)',
      args: ['node', `/app/${COLDSTART}`, 'start', '--archive', '/startup-bundle.tar', '--', ...command],
      dockerArgs: ['--workdir', BUNDLE_DIR],
      ready,
    },
    {
      name: 'bundle-compile-cache',
      label: 'ncc bundle + `NODE_COMPILE_CACHE` built at image build',
      args: command,
      dockerArgs: ['--workdir', BUNDLE_DIR],
      env: { NODE_COMPILE_CACHE: '/compile-cache-bundle' },
      needs: '/compile-cache-bundle',
      ready,
    },
  ];
}

/** The generated fixture's variants (every one there is). */
const VARIANTS = variantsFor(APPS.fixture);

const PHASE_LABELS = {
  toFilesReady: '↳ run → files ready',
  archiveWork: '↳ of which extraction / loading',
  afterFilesReady: '↳ files ready → listening',
};

// Host moments: when the line reached the client. `date` stamps: the container's own clock.
function shellPhases(sample) {
  const begin = SHELL_BEGIN.exec(sample.stdout);
  const extracted = SHELL_EXTRACTED.exec(sample.stdout);
  return {
    toFilesReady: sample.marks.filesReady,
    archiveWork: (Number(extracted[1]) - Number(begin[1])) / 1e6,
    afterFilesReady: sample.ms - sample.marks.filesReady,
  };
}

// The launcher's own figure runs from its main() to the files being extracted or indexed.
function startPhases(sample) {
  const line = START_REPORT.exec(sample.stderr);
  return {
    toFilesReady: sample.marks.filesReady,
    archiveWork: Number(line[4]),
    afterFilesReady: sample.ms - sample.marks.filesReady,
  };
}

/**
 * One `docker run` of a variant, until its ready line (and, when it starts node itself, the
 * in-process probe's line).
 * @returns {Promise<{ms: number, inProcessMs: ?number, marks: Record<string, number>, phases: Record<string, number>,
 *   stdout: string, stderr: string}>}
 * @throws {CommandError} when the container never becomes ready or something reports a problem
 */
async function sampleOnce(image, runtime, variant, timeoutMs, env, cpus = null) {
  const marks = {};
  let readyMs;
  const wanted = Object.entries(variant.marks || {});
  const probed = withListenProbe(variant.args, LISTEN_PROBE);
  // runContainer starts its clock synchronously after this call begins: the offset is microseconds.
  const t0 = performance.now();
  const r = await runContainer({
    image,
    runtime,
    args: probed || variant.args,
    tmpfs: variant.tmpfs || [],
    env: { ...env, ...variant.env },
    // --cpus: the container's CPU share, as Cloud Run's or Lambda's fraction of a vCPU.
    dockerArgs: [...(variant.dockerArgs || []), ...(cpus ? ['--cpus', String(cpus)] : [])],
    timeoutMs,
    until: (out, err) => {
      const now = performance.now() - t0;
      for (const [key, pattern] of wanted) {
        if (marks[key] === undefined && (pattern.test(out) || pattern.test(err))) marks[key] = now;
      }
      if (readyMs === undefined && (variant.ready.test(out) || variant.ready.test(err))) readyMs = now;
      // stdout and stderr are two pipes: on a busy machine a mark written before the ready line
      // can arrive after it. Stop once both are in; the ready time is when its line came.
      return readyMs !== undefined && wanted.every(([key]) => marks[key] !== undefined) && (!probed || LISTEN_LINE.test(err));
    },
  });
  const describe = () => `${variant.name} under ${runtime}: exit ${r.code}, `
    + `${r.timedOut ? 'timed out' : `${Math.round(r.ms)} ms`}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
  if (readyMs === undefined) throw new CommandError(`never ready: ${describe()}`, { code: 'BENCH_NOT_READY' });
  if (/coldstart: warning/.test(r.stderr)) throw new CommandError(`coldstart warned: ${describe()}`, { code: 'BENCH_WARNING' });
  const missing = wanted.map(([key]) => key).filter((key) => marks[key] === undefined);
  if (missing.length) throw new CommandError(`no ${missing.join(', ')} line: ${describe()}`, { code: 'BENCH_NO_MARK' });
  const inProcessMs = probed ? listenUptime(r.stderr) : null;
  if (probed && inProcessMs === null) throw new CommandError(`no coldstart-listen line: ${describe()}`, { code: 'BENCH_NO_MARK' });
  // A mark that came in after the ready line was written before it: it is at most the ready time.
  for (const key of Object.keys(marks)) marks[key] = Math.min(marks[key], readyMs);
  const sample = { ms: readyMs, inProcessMs, marks, stdout: r.stdout, stderr: r.stderr };
  sample.phases = variant.phases ? variant.phases(sample) : {};
  return sample;
}

// ---------------------------------------------------------------------------------------------
// The image

function libraries(programs) {
  const out = execFileSync('ldd', programs, { encoding: 'utf8' });
  const found = new Set();
  for (const line of out.split('\n')) {
    const linked = /=>\s+(\/\S+)/.exec(line);
    const loader = /^\s*(\/\S+)\s+\(/.exec(line);
    if (linked) found.add(linked[1]);
    else if (loader) found.add(loader[1]);
  }
  return [...found].sort();
}

/**
 * GNU tar and date from the host, with their libraries, as a root tree to COPY over the base
 * image (node and dash only): the seed's recipe needs tar, and date stamps the extraction.
 */
function copyTools(into) {
  const programs = ['tar', 'date'].map((name) => {
    for (const dir of ['/usr/bin', '/bin']) {
      if (fs.existsSync(path.join(dir, name))) return fs.realpathSync(path.join(dir, name));
    }
    throw new CommandError(`${name} is not installed on this machine: the seed recipe needs it`, { code: 'BENCH_NO_TOOL' });
  });
  // The base image keeps dash in /bin and PATH=/usr/local/bin:/bin.
  for (const program of programs) {
    fs.mkdirSync(path.join(into, 'bin'), { recursive: true });
    fs.copyFileSync(program, path.join(into, 'bin', path.basename(program)));
    fs.chmodSync(path.join(into, 'bin', path.basename(program)), 0o755);
  }
  for (const lib of libraries(programs)) {
    const target = path.join(into, lib);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(fs.realpathSync(lib), target);
  }
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * Writes an app's server.js into `dir` and installs its packages there from the npm registry
 * (`npm install --prefix`, which also writes the package.json the build context is assembled
 * from). Returns the installed versions and the size of the node_modules npm made.
 * @returns {{versions: Record<string, string>, files: number, bytes: number}}
 */
function installApp(dir, { install, source, entry = 'server.js' }) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, entry), source);
  try {
    execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefix', dir, ...install], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const said = String(err.stderr || err.message).trim().split('\n').slice(-5).join('\n');
    throw new CommandError(`npm install ${install.join(' ')} failed (the app needs the npm registry):\n${said}`, { code: 'BENCH_NPM_INSTALL' });
  }
  const versions = {};
  for (const name of install) {
    versions[name] = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version;
  }
  return { versions, ...treeSize(path.join(dir, 'node_modules')) };
}

/**
 * Assembles the build context (the app with its packages and coldstart in its node_modules,
 * tools) and builds the image, whose first stage runs `coldstart pack` and `coldstart bundle`.
 * The generated fixture is generated first; an app with packages to install is installed into a
 * scratch directory; otel-express takes its packages from coldstart's own node_modules.
 * @returns {Promise<{tag: string, buildMs: number, fixture: ?object, installed: ?object, packages: number,
 *   archive: {files: number, modules: number, bytes: number, archiveBytes: number}, bundle: object}>}
 */
async function prepareImage({ workDir, appName, modules, seed, baseImage, tag, onProgress }) {
  const context = path.join(workDir, 'context');
  const app = APPS[appName];
  let fixture = null;
  let installed = null;
  let assembled;
  if (appName === 'fixture') {
    const fixtureDir = path.join(workDir, 'fixture');
    fixture = await generateFixture({ dir: fixtureDir, modules, seed });
    assembled = assembleContext({ app: fixtureDir, into: path.join(context, 'app'), nodeModules: path.join(fixtureDir, 'node_modules') });
    onProgress(`building ${tag} (fixture: ${fixture.modules} modules, ${fixture.files} files)`);
  } else if (app.install) {
    const appDir = path.join(workDir, appName);
    onProgress(`npm install ${app.install.join(' ')}`);
    installed = installApp(appDir, app);
    onProgress(`installed ${describeVersions(installed.versions)}: ${installed.files} files, ${size(installed.bytes)} in node_modules`);
    assembled = assembleContext({ app: appDir, into: path.join(context, 'app') });
    onProgress(`building ${tag} (${appName}: ${assembled.packages.length} packages)`);
  } else {
    assembled = assembleContext({
      app: path.join(REPO, 'fixtures', app.fixture || appName), into: path.join(context, 'app'), nodeModules: path.join(REPO, 'node_modules'),
    });
    onProgress(`building ${tag} (${appName}: ${assembled.packages.length} packages)`);
  }
  if (!assembled.coldstartPackages.some((p) => p.name === '@vercel/ncc')) {
    throw new CommandError('the build context lacks @vercel/ncc: coldstart bundle cannot run in the image', { code: 'BENCH_NO_NCC' });
  }
  copyTools(path.join(context, 'tools'));
  const preload = path.join(context, 'tools', ...PROBE_DIR.split('/').filter(Boolean));
  fs.mkdirSync(preload, { recursive: true });
  fs.copyFileSync(LISTEN_UPTIME_FILE, path.join(preload, path.basename(LISTEN_UPTIME_FILE)));
  const built = await buildImage({
    context, dockerfile: DOCKERFILE, tag, timeoutMs: 900_000,
    buildArgs: { NODE_IMAGE: baseImage, APP_COMMAND: app.command.join(' ') },
  });
  const fromImage = copyFromImage(tag, workDir, ['/startup.tar', BUNDLE_DIR, '/startup-snapshot.json']);
  const { snapshot } = JSON.parse(fs.readFileSync(path.join(fromImage, 'startup-snapshot.json'), 'utf8'));
  return {
    tag, buildMs: built.ms, fixture, installed, packages: assembled.packages.length,
    archive: describeArchive(path.join(fromImage, 'startup.tar')),
    bundle: describeBundle(path.join(fromImage, path.basename(BUNDLE_DIR))),
    // pack --snapshot-blob's summary: the modules it holds and those left to load at start.
    snapshot: snapshot && snapshot.modules !== undefined ? { modules: snapshot.modules, leftOut: snapshot.leftOut.length } : null,
  };
}

// What the pack and bundle steps made, read from the image itself: a cached build prints nothing.
function copyFromImage(tag, workDir, paths) {
  const docker = dockerBinary();
  const into = path.join(workDir, 'from-image');
  fs.mkdirSync(into);
  const id = execFileSync(docker, ['create', '--network', 'none', tag], { encoding: 'utf8' }).trim();
  try {
    for (const p of paths) execFileSync(docker, ['cp', `${id}:${p}`, path.join(into, path.basename(p))], { stdio: 'ignore' });
  } finally {
    execFileSync(docker, ['rm', id], { stdio: 'ignore' });
  }
  return into;
}

/** How many files each directory holds in the image (0: absent), read by the image's own node. */
function countFilesInImage(tag, dirs) {
  if (!dirs.length) return {};
  const script = `const fs = require('fs'); const count = (d) => { try { return fs.readdirSync(d, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length; } catch { return 0; } };`
    + ` console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(dirs)}.map((d) => [d, count(d)]))))`;
  const out = execFileSync(dockerBinary(), ['run', '--rm', '--network', 'none', tag, 'node', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

/** Files and bytes of the bundle directory, the size of the bundled entry, what it keeps external. */
function describeBundle(dir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart-bundle.json'), 'utf8'));
  const { files, bytes } = treeSize(dir);
  return {
    files,
    bytes,
    entryBytes: fs.statSync(path.join(dir, manifest.entry)).size,
    externals: manifest.externals.map((e) => e.name),
    packages: manifest.nodeModules.length,
  };
}

// modules: the startup modules pack saw load (the index's format of each), JSON included.
function describeArchive(file) {
  const buffer = fs.readFileSync(file);
  let files = 0;
  let bytes = 0;
  let modules = 0;
  for (const entry of readTarEntries(buffer)) {
    if (entry.type === 'dir') continue;
    files += 1;
    bytes += entry.data.length;
    if (entry.path === INDEX_PATH) modules = Object.keys(JSON.parse(entry.data.toString('utf8')).formats || {}).length;
  }
  return { files, modules, bytes, archiveBytes: buffer.length };
}

// ---------------------------------------------------------------------------------------------
// The run

/**
 * Builds the image and times every variant under every runtime.
 * @param {{app?: 'fixture'|'otel-express'|'heavy', runs?: number, warmup?: number, runtimes?: string[],
 *   variants?: string[], modules?: number, seed?: number, baseImage?: string, tag?: string,
 *   keepImage?: boolean, timeoutMs?: number, onProgress?: (line: string) => void}} [options]
 *   modules and seed shape the generated fixture only.
 * @returns {Promise<{app: string, machine: object, image: object, runs: number, warmup: number, runtimes: string[],
 *   results: {variant: string, label: string, runtime: string, total: object, inProcess: ?object, phases: Record<string, object>,
 *   samples: number[], inProcessSamples: (number|null)[], startReport: ?string}[]}>} total, inProcess and phases
 *   are summarize() outputs (ms); inProcess is from the node process's start to listening, by its own clock;
 *   startReport is what `coldstart start` said it did, e.g. 'extracted 2003 files, 1.7 MB'
 */
async function runBenchmark(options = {}) {
  const {
    app: appName = 'fixture', runs = 10, warmup = 1, runtimes = RUNTIMES, modules = 1000, seed = 42,
    baseImage = BASE_IMAGE, tag = `coldstart-bench-startup:${process.pid}`, keepImage = false, timeoutMs = 120_000,
    onProgress = () => {},
  } = options;
  if (!Object.hasOwn(APPS, appName)) throw new UsageError(`unknown app ${appName}: use ${Object.keys(APPS).join(', ')}`);
  const app = APPS[appName];
  let variants = selectVariants(variantsFor(app), options.variants || app.variants);
  const docker = await requireDocker();
  await checkRuntimes(runtimes, '--runtimes');
  const machine = describeMachine(docker.version, runtimes);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-docker-'));
  let image = null;
  try {
    image = await prepareImage({ workDir, appName, modules, seed, baseImage, tag, onProgress });
    onProgress(`built in ${Math.round(image.buildMs / 1000)} s; archive: ${describeSize(image.archive)}; `
      + `bundle: ${describeBundleSize(image.bundle)}`);
    // Node's compile cache exists from Node 22.1 on: an older Node in the image leaves no directory.
    image.compileCaches = countFilesInImage(tag, variants.filter((v) => v.needs).map((v) => v.needs));
    const missing = variants.filter((v) => v.needs && !image.compileCaches[v.needs]);
    // Empty: Node before 22.1 (compile caches), or pack refused a snapshot for this app.
    if (missing.length) onProgress(`left out (nothing in ${[...new Set(missing.map((v) => v.needs))].join(', ')} in the image): ${missing.map((v) => v.name).join(', ')}`);
    variants = variants.filter((v) => !missing.includes(v));
    // --cpus: one share, or several interleaved like the runtimes (null: the machine's).
    const shares = options.cpus ? [].concat(options.cpus) : [null];
    const collected = new Map(); // `${runtime} ${share} ${variant}` -> samples
    for (let round = 0; round < warmup + runs; round++) {
      const kept = round >= warmup;
      for (const runtime of runtimes) {
        for (const share of shares) {
          for (const variant of variants) {
            const sample = await sampleOnce(tag, runtime, variant, timeoutMs, app.env, share);
            const key = `${runtime} ${share} ${variant.name}`;
            if (kept) {
              if (!collected.has(key)) collected.set(key, []);
              collected.get(key).push(sample);
            }
            onProgress(`${kept ? `run ${round - warmup + 1}/${runs}` : 'warm-up'} ${runtime}${share ? ` at ${share} CPU` : ''} ${variant.name}: `
              + `${Math.round(sample.ms)} ms${sample.inProcessMs === null ? '' : ` (in-process ${Math.round(sample.inProcessMs)})`}`
              + `${describePhases(sample.phases)}`);
          }
        }
      }
    }
    const results = [];
    for (const variant of variants) {
      for (const [runtime, share] of runtimes.flatMap((r) => shares.map((c) => [r, c]))) {
        const samples = collected.get(`${runtime} ${share} ${variant.name}`) || [];
        const phases = {};
        for (const key of Object.keys(samples[0] ? samples[0].phases : {})) {
          phases[key] = summarize(samples.map((s) => s.phases[key]));
        }
        const line = samples.length ? START_REPORT.exec(samples[0].stderr) : null;
        results.push({
          variant: variant.name,
          label: variant.label,
          runtime,
          cpus: share,
          total: summarize(samples.map((s) => s.ms)),
          // From the node process's start to listening, by its own clock (null: a shell's variant).
          inProcess: samples.length && samples.every((s) => s.inProcessMs !== null) ? summarize(samples.map((s) => s.inProcessMs)) : null,
          phases,
          samples: samples.map((s) => Math.round(s.ms * 10) / 10),
          inProcessSamples: samples.map((s) => s.inProcessMs),
          startReport: line ? `${line[1]} ${line[2]} files, ${line[3]}` : null,
        });
      }
    }
    const { fixture } = image;
    return {
      app: appName,
      machine,
      image: {
        fixture: fixture ? { modules: fixture.modules, files: fixture.files, bytes: fixture.bytes } : null,
        installed: image.installed,
        packages: image.packages,
        archive: image.archive,
        bundle: image.bundle,
        compileCaches: image.compileCaches,
        snapshot: image.snapshot,
        buildMs: Math.round(image.buildMs),
      },
      runs, warmup, runtimes, cpus: options.cpus || null, results,
    };
  } finally {
    await stopAllContainers();
    if (image && !keepImage) await removeImages([tag]);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function selectVariants(all, names) {
  if (!names) return all;
  return names.map((name) => {
    const variant = all.find((v) => v.name === name);
    if (!variant) throw new UsageError(`unknown variant ${name}: use ${all.map((v) => v.name).join(', ')}`);
    return variant;
  });
}

function describePhases(phases) {
  const parts = Object.entries(phases).map(([key, ms]) => `${key} ${Math.round(ms)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function describeCompileCaches(caches, held) {
  const snapshotDir = path.posix.dirname(SNAPSHOT);
  const present = Object.entries(caches || {}).filter(([dir, files]) => files > 0 && dir !== snapshotDir);
  const made = held ? `made, holding ${held.modules} of ${held.modules + held.leftOut} startup modules` : 'made';
  const snapshot = caches && snapshotDir in caches ? `; startup snapshot: ${caches[snapshotDir] ? made : 'none (pack said why)'}` : '';
  return (present.length ? `; Node compile cache: ${present.map(([dir, files]) => `${dir} ${files} files`).join(', ')}` : '') + snapshot;
}

function describeSize(archive) {
  const modules = archive.modules ? ` (${archive.modules} modules)` : '';
  return `${archive.files} files${modules}, ${size(archive.bytes)} (tar ${size(archive.archiveBytes)})`;
}

function describeVersions(versions) {
  return Object.entries(versions).map(([name, version]) => `${name}@${version}`).join(', ');
}

function describeBundleSize(bundle) {
  const kept = bundle.externals.length ? `, kept external: ${bundle.externals.join(', ')}` : ', nothing kept external';
  return `${bundle.files} files, ${size(bundle.bytes)} (entry ${size(bundle.entryBytes)}; ${bundle.packages} packages`
    + ` in node_modules${kept})`;
}

// The shared machine description, plus the engine, gVisor and kernel this benchmark depends on.
function describeMachine(dockerVersion, runtimes = RUNTIMES) {
  const gvisors = runtimes.filter(isGvisor).map((runtime) => `${runtime}: ${runscVersion(runtime)}`);
  return { ...describeBenchMachine(), docker: dockerVersion, runsc: gvisors.join('; '), kernel: os.release() };
}

// ---------------------------------------------------------------------------------------------
// The report

function cell(stats, key) {
  return stats && stats[key] !== null && stats[key] !== undefined ? String(Math.round(stats[key])) : '–';
}

function describeApp(report) {
  const { fixture } = report.image;
  if (fixture) return `Fixture: ${fixture.modules} modules, ${fixture.files} files`;
  const app = APPS[report.app];
  const { installed } = report.image;
  const source = installed ? `${report.app}, ${describeVersions(installed.versions)} from the npm registry` : `fixtures/${app.fixture || report.app}`;
  const tree = installed ? ` (${installed.files} files, ${size(installed.bytes)})` : '';
  return `App: ${source} (\`${app.command.join(' ')}\`, PORT=${app.env.PORT}),`
    + ` ${report.image.packages} packages in node_modules${tree}`;
}

/**
 * The results as a markdown table (ms): one row per variant, indented rows for its phases.
 * @param {Awaited<ReturnType<typeof runBenchmark>>} report
 * @returns {string}
 */
function renderMarkdown(report) {
  const { machine, runtimes } = report;
  const header = ['variant', ...runtimes.flatMap((r) => [`${r} median`, `${r} stddev`])];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
  ];
  const names = [...new Set(report.results.map((r) => r.variant))];
  for (const name of names) {
    const rows = report.results.filter((r) => r.variant === name);
    const byRuntime = (runtime) => rows.find((r) => r.runtime === runtime);
    const first = rows[0];
    lines.push(`| ${first.label} | ${runtimes.flatMap((rt) => [cell(byRuntime(rt).total, 'median'), cell(byRuntime(rt).total, 'stddev')]).join(' | ')} |`);
    for (const phase of Object.keys(first.phases)) {
      lines.push(`| &nbsp;&nbsp;${PHASE_LABELS[phase]} | ${runtimes.flatMap((rt) => {
        const stats = byRuntime(rt).phases[phase];
        return [cell(stats, 'median'), cell(stats, 'stddev')];
      }).join(' | ')} |`);
    }
  }
  const n = report.results[0] ? report.results[0].total.n : 0;
  const said = [...new Set(report.results.filter((r) => r.startReport).map((r) => r.startReport.split(',')[0]))];
  return [
    `Time to listen (ms), \`docker run\` to the app's listening line; median and sample stddev of ${n} runs`
      + ` per cell, fresh container each, ${report.warmup} warm-up round left out${report.cpus ? `; every container at --cpus ${report.cpus[0]}` : ''}.`,
    '',
    ...lines,
    '',
    `${describeApp(report)}; archive: ${describeSize(report.image.archive)}`
      + `${said.length ? `; coldstart start: ${said.join(', ')}` : ''}`
      + `${report.image.bundle ? `; bundle: ${describeBundleSize(report.image.bundle)}` : ''}`
      + `${describeCompileCaches(report.image.compileCaches, report.image.snapshot)}.`,
    'Phases: "run → files ready" is when the line saying so reached the client (tar: an `echo` after it;'
      + ' start: its `extracted …` or `serving …` line); "of which extraction / loading" is measured inside'
      + ' the container (tar: two `date +%s%N` stamps, each `date` costing a fork and exec; start: its own'
      + ' figure, from its main() on); "files ready → listening" is the rest.',
    `Machine: ${machine.cpu}, ${machine.cores} cores, kernel ${machine.kernel}; node ${machine.node};`
      + ` docker ${machine.docker}; ${machine.runsc}.`,
  ].join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// The command line

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      app: { type: 'string', default: 'fixture' },
      runs: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '1' },
      runtimes: { type: 'string', default: RUNTIMES.join(',') },
      variants: { type: 'string' },
      modules: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '42' },
      cpus: { type: 'string' },
      'base-image': { type: 'string', default: BASE_IMAGE },
      tag: { type: 'string' },
      json: { type: 'string' },
      'keep-image': { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const count = (flag, min) => parseCount(values[flag], `--${flag}`, min);
  const list = (text) => text.split(',').map((s) => s.trim()).filter(Boolean);
  if (values.cpus != null && list(values.cpus).length > 1) throw new UsageError(`--cpus ${values.cpus}: one share for this table (bench/cpu-share.js compares several)`);
  return {
    help: values.help,
    app: values.app,
    runs: count('runs', 1),
    warmup: count('warmup', 0),
    modules: count('modules', 1),
    seed: count('seed', 0),
    runtimes: list(values.runtimes),
    // A share as the commands' --cpus takes it (lib/options.js), docker run --cpus here.
    cpus: values.cpus != null ? list(values.cpus).map((share) => parseLimits({ cpus: share }).cpus) : null,
    variants: values.variants ? list(values.variants) : undefined,
    baseImage: values['base-image'],
    tag: values.tag,
    json: values.json,
    keepImage: values['keep-image'],
    verbose: values.verbose,
  };
}

async function main(argv = process.argv.slice(2)) {
  let options;
  try {
    options = parseOptions(argv);
  } catch (err) {
    process.stderr.write(`docker-startup: ${err.message}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    process.stderr.write('docker-startup: interrupted, stopping containers\n');
    stopAllContainers().finally(() => process.exit(130));
  });
  try {
    // Progress on a terminal (or with --verbose); quiet in CI and when stderr is a log.
    const showProgress = options.verbose || (process.stderr.isTTY && !process.env.CI);
    const onProgress = showProgress ? (line) => process.stderr.write(`docker-startup: ${line}\n`) : undefined;
    const report = await runBenchmark({ ...options, onProgress });
    process.stdout.write(renderMarkdown(report));
    if (options.json) writeFileAtomic(path.resolve(options.json), JSON.stringify(report, null, 2) + '\n');
    return 0;
  } catch (err) {
    if (interrupted) return 130;
    if (err instanceof CommandError || err instanceof UsageError) {
      process.stderr.write(`docker-startup: ${err.message}\n`);
      return err instanceof UsageError ? 2 : 1;
    }
    throw err;
  }
}

if (require.main === module) require('./run-as-script.js').runAsScript('docker-startup', main);

module.exports = { main, runBenchmark, renderMarkdown, VARIANTS, APPS, variantsFor };
