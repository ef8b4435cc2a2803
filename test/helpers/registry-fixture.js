'use strict';
// A fixture whose dependencies come from the npm registry by its own lockfile, for packages that
// build native code at install (aws-lambda-ric builds curl and the Lambda C++ runtime client):
// installed once per machine and lockfile (npm ci, a few minutes), then copied into a temporary
// directory per test. Under CI an install that fails is a failure; elsewhere the test says loudly
// why it is skipped (cmake, make and a C++ compiler are what a build needs).
const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const { spawnSync } = require('child_process');

const REPO = path.join(__dirname, '..', '..');
const CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'coldstart-test-fixtures');
const INSTALL_MS = 15 * 60 * 1000;

/** The fixture's node_modules, installed by npm ci once per lockfile; throws with the reason. */
function installedModules(name) {
  const source = path.join(REPO, 'fixtures', name);
  const lock = fs.readFileSync(path.join(source, 'package-lock.json'));
  const key = crypto.createHash('sha256').update(lock).digest('hex').slice(0, 16);
  const done = path.join(CACHE, `${name}-${key}`);
  if (fs.existsSync(path.join(done, 'node_modules'))) return path.join(done, 'node_modules');
  fs.mkdirSync(CACHE, { recursive: true });
  const work = fs.mkdtempSync(path.join(CACHE, `${name}-${key}.partial-`));
  try {
    for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(source, f), path.join(work, f));
    const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel', 'error'], { cwd: work, encoding: 'utf8', timeout: INSTALL_MS });
    if (npm.error || npm.status !== 0) {
      const why = npm.error ? npm.error.message : (npm.stderr || npm.stdout).trim().split('\n').filter(Boolean).slice(-3).join(' / ');
      throw new Error(`npm ci of fixtures/${name} failed: ${why}`);
    }
    try {
      fs.renameSync(work, done);
    } catch (err) {
      if (!fs.existsSync(path.join(done, 'node_modules'))) throw err; // else another test process won
    }
    return path.join(done, 'node_modules');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A copy of fixtures/<name> with its registry dependencies, in a new temporary directory; null
 * (the test skipped, saying why) when they cannot be installed outside CI.
 * @param {import('node:test').TestContext} t
 * @param {string} name
 * @returns {?string}
 */
function registryFixture(t, name) {
  let modules;
  try {
    modules = installedModules(name);
  } catch (err) {
    if (process.env.CI) throw err;
    t.diagnostic(`SKIPPED LOCALLY (a failure under CI): ${err.message}`);
    t.skip(err.message);
    return null;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cs-${name}-`));
  fs.cpSync(path.join(REPO, 'fixtures', name), dir, { recursive: true });
  fs.cpSync(modules, path.join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  return dir;
}

module.exports = { registryFixture };
