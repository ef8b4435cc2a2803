'use strict';
// What the Docker tests share: the engine and base images set up by the one setup step CI uses
// (.ci/docker-up.sh, run here when the engine or the base image is missing), a loud skip (or a
// failure, in CI) when no engine can be started, one build context for fixtures/docker-app, each
// image built once per test process, and cleanup afterwards.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { requireDocker, docker, buildImage, assembleContext, stopAllContainers, removeImages } = require('../../lib/docker.js');
const { CommandError } = require('../../lib/errors.js');
const { unlessFast } = require('./suite.js');

const REPO = path.resolve(__dirname, '..', '..');
const SETUP = path.join(REPO, '.ci', 'docker-up.sh');
const SKIP_LINE = 'SKIPPED: Docker tests need a Docker engine, and .ci/docker-up.sh could not start one';
const BASE_IMAGE = 'coldstart-node:local';
const DISTROLESS_BASE_IMAGE = 'coldstart-node-distroless:local';

let status = null;
let skipPrinted = false;
let workDir = null;
let context = null;
const images = new Map(); // key -> Promise<tag>

function inCI() {
  const value = process.env.CI;
  return value !== undefined && !['', '0', 'false'].includes(value.toLowerCase());
}

/** The engine answers with gVisor, and the base images are there: null, else why not. */
async function engineProblem() {
  try {
    await requireDocker();
  } catch (err) {
    if (err instanceof CommandError) return err.message;
    throw err;
  }
  for (const image of [BASE_IMAGE, DISTROLESS_BASE_IMAGE]) {
    const r = await docker(['image', 'inspect', '--format', '{{.Id}}', image], { timeoutMs: 10_000 });
    if (r.code !== 0) return `the base image ${image} is not in the engine`;
  }
  return null;
}

/**
 * Runs the setup step (.ci/docker-up.sh: engine, gVisor, base images made from this test's Node)
 * once, as root only; its output goes to a log whose end is kept for the skip line.
 */
function runSetup() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return Promise.resolve('the setup needs root');
  return new Promise((resolve) => {
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH || ''}` };
    const child = spawn('bash', [SETUP], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk) => { output = (output + chunk).slice(-4000); };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => resolve(err.message));
    child.on('close', (code) => resolve(code === 0 ? null : `.ci/docker-up.sh exited with ${code}: ${output.trim().split('\n').pop()}`));
  });
}

async function setUp() {
  const before = await engineProblem();
  if (!before) return { ok: true };
  process.stderr.write(`\n${before}: running .ci/docker-up.sh to set it up…\n`);
  const failed = await runSetup();
  const after = failed || await engineProblem();
  return after ? { ok: false, reason: after } : { ok: true };
}

/**
 * Resolves true when Docker can be used, after setting it up once per test process when it is
 * not. Without an engine the test is skipped with one loud line on stderr, except in CI (CI set),
 * where a missing engine fails the test. The fast part of the suite runs no containers.
 */
async function needDocker(t) {
  if (!unlessFast(t, 'containers')) return false;
  status = status || setUp();
  const s = await status;
  if (s.ok) return true;
  if (inCI()) assert.fail(`Docker tests must run in CI (CI=${process.env.CI}): ${s.reason}`);
  if (!skipPrinted) {
    process.stderr.write(`\n${SKIP_LINE} (${s.reason})\n\n`);
    skipPrinted = true;
  }
  t.skip(`${SKIP_LINE} (${s.reason})`);
  return false;
}

// The runtimes every container test runs under: runc, Debian's gVisor of 2022 (ptrace) and the
// gVisor of 2024 (systrap, directfs) that .ci/docker-up.sh registers beside it as runsc-2024.
const RUNTIMES = ['runc', 'runsc', 'runsc-2024'];
let engineRuntimes = null;

/**
 * The runtimes of RUNTIMES the engine has (after needDocker). A missing one fails the test in CI
 * and is named in a loud diagnostic elsewhere.
 * @param {import('node:test').TestContext} t
 * @returns {Promise<string[]>}
 */
async function testedRuntimes(t) {
  engineRuntimes = engineRuntimes || (await requireDocker()).runtimes;
  const missing = RUNTIMES.filter((r) => !engineRuntimes.includes(r));
  if (missing.length && inCI()) assert.fail(`the Docker engine lacks ${missing.join(', ')} (.ci/docker-up.sh registers it): container tests run under ${RUNTIMES.join(', ')} in CI`);
  if (missing.length) t.diagnostic(`SKIPPED LOCALLY (a failure under CI): no ${missing.join(', ')} runtime in this engine`);
  return RUNTIMES.filter((r) => engineRuntimes.includes(r));
}

/** A scratch directory for this test process, removed by cleanup(). */
function scratch() {
  workDir = workDir || fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-docker-test-'));
  return workDir;
}

/**
 * The build context for fixtures/docker-app: the app, express and its dependencies from the
 * repository's node_modules, and this checkout of coldstart as node_modules/coldstart.
 */
function fixtureContext() {
  context = context || assembleContext({
    app: path.join(REPO, 'fixtures', 'docker-app'),
    into: path.join(scratch(), 'context'),
    nodeModules: path.join(REPO, 'node_modules'),
  });
  return context;
}

/**
 * Builds an image once per test process; later calls with the same key reuse it (or its failure).
 * @param {string} key short name, part of the tag
 * @param {{dockerfile: string, buildArgs?: Record<string,string>}} options
 * @returns {Promise<{tag: string, ms: number}>}
 */
function imageOnce(key, { dockerfile, buildArgs = {} }) {
  if (!images.has(key)) {
    const tag = `coldstart-test-${key}:${process.pid}`;
    images.set(key, buildImage({
      context: fixtureContext().dir,
      dockerfile,
      tag,
      buildArgs: { NODE_IMAGE: BASE_IMAGE, ...buildArgs },
      timeoutMs: 240_000,
    }).then((r) => ({ tag, ms: r.ms })));
  }
  return images.get(key);
}

/** Stops leftover containers, removes the images built here and the scratch directory. */
async function cleanup() {
  await stopAllContainers();
  const tags = [];
  for (const pending of images.values()) {
    const built = await pending.catch(() => null);
    if (built) tags.push(built.tag);
  }
  await removeImages(tags);
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  workDir = null;
  context = null;
  images.clear();
}

module.exports = {
  REPO, BASE_IMAGE, DISTROLESS_BASE_IMAGE, SKIP_LINE,
  RUNTIMES, needDocker, testedRuntimes, scratch, fixtureContext, imageOnce, cleanup,
};
