'use strict';
// What the Docker tests share: skip loudly (or fail, in CI) without an engine, one build context
// for fixtures/docker-app, each image built once per test process, and cleanup afterwards.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { requireDocker, buildImage, assembleContext, stopAllContainers, removeImages } = require('../../lib/bench/docker.js');
const { CommandError } = require('../../lib/errors.js');

const REPO = path.resolve(__dirname, '..', '..');
const SKIP_LINE = 'SKIPPED: Docker tests need a Docker engine: run .ci/docker-up.sh';
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

/**
 * Resolves true when Docker can be used. Without it the test is skipped with a loud line on
 * stderr, except in CI (CI set), where a missing engine fails the test.
 */
async function needDocker(t) {
  status = status || requireDocker().then(
    (info) => ({ ok: true, info }),
    (err) => {
      if (err instanceof CommandError) return { ok: false, reason: err.message };
      throw err;
    });
  const s = await status;
  if (s.ok) return true;
  if (inCI()) assert.fail(`Docker tests must run in CI (CI=${process.env.CI}): ${s.reason}`);
  if (!skipPrinted) {
    process.stderr.write(`\n${SKIP_LINE}\n  (${s.reason})\n\n`);
    skipPrinted = true;
  }
  t.skip(SKIP_LINE);
  return false;
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
  needDocker, scratch, fixtureContext, imageOnce, cleanup,
};
