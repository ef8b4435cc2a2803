'use strict';
// The one Docker client, for bench, profile --docker and the tests: build an image from a prepared
// context, run it under runc or gVisor (runsc, and any runtime the engine registers) until the app
// says it is ready, and assemble build contexts from a node_modules tree.
// Every build and container runs with --network none: no registry can be reached from these
// machines, and gVisor refuses to start with networking enabled.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { CommandError, UsageError } = require('./errors.js');
const { findPackageDir, readManifest } = require('./package-tree.js');
const { INSTALL_DIR } = require('./paths.js');

const SETUP_HINT = 'run .ci/docker-up.sh';
// A runtime's name as the engine registers it (runc, runsc, runsc-2024, ...): a word, never an option.
const RUNTIME_NAME = /^[A-Za-z0-9][\w.-]*$/;
// Options that would give a container a network or take the container's name from us.
const FORBIDDEN_RUN_OPTIONS = /^--(net|network|name|rm)(=|$)/;

const running = new Set(); // names of containers this process started and has not seen end
let sequence = 0;

/** /usr/bin/docker matches the engine Debian installs; /usr/local/bin/docker may be newer. */
function dockerBinary() {
  if (process.env.COLDSTART_DOCKER) return process.env.COLDSTART_DOCKER;
  return fs.existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
}

/**
 * Runs one docker CLI command to its end. Rejects only when the CLI itself cannot be started.
 * @returns {Promise<{code: number|null, stdout: string, stderr: string, timedOut: boolean}>}
 */
function docker(args, { timeoutMs = 60_000, env, onOutput } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(dockerBinary(), args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (s) => { stdout += s; if (onOutput) onOutput(s); });
    child.stderr.setEncoding('utf8').on('data', (s) => { stderr += s; if (onOutput) onOutput(s); });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGTERM'); }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(spawnFailure(err));
    });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr, timedOut }); });
  });
}

// What the CLI prints when no engine answers on its socket.
const DAEMON_DOWN = /Cannot connect to the Docker daemon|Is the docker daemon running/i;

function engineDown() {
  return new CommandError(`the Docker engine is not running: ${SETUP_HINT}`, { code: 'DOCKER_DOWN' });
}

// A docker CLI that could not be started: missing is the case worth its own message.
function spawnFailure(err) {
  return err.code === 'ENOENT'
    ? new CommandError(`Docker is not installed (no ${dockerBinary()}): ${SETUP_HINT}`, { code: 'DOCKER_MISSING' })
    : err;
}

function lastLines(text, n) {
  return text.trim().split('\n').slice(-n).join('\n');
}

/**
 * Checks that a Docker engine answers and can run containers under gVisor.
 * @returns {Promise<{version: string, runtimes: string[]}>}
 * @throws {CommandError} naming the setup step when Docker is missing, down or lacks runsc
 */
async function requireDocker() {
  // `docker version` says why it cannot reach the engine; `docker info --format` hides that
  // behind a template error.
  const v = await docker(['version', '--format', '{{.Server.Version}}'], { timeoutMs: 10_000 });
  if (v.code !== 0 || v.timedOut) {
    const lines = (v.stderr || v.stdout).trim().split('\n');
    const why = v.timedOut ? 'docker version did not answer in 10 s'
      : lines.find((l) => /cannot connect|permission denied|error/i.test(l)) || lines.pop();
    throw new CommandError(`the Docker engine is not running (${why}): ${SETUP_HINT}`, { code: 'DOCKER_DOWN' });
  }
  const r = await docker(['info', '--format', '{{range $k, $v := .Runtimes}}{{$k}} {{end}}'], { timeoutMs: 10_000 });
  const runtimes = r.code === 0 ? r.stdout.trim().split(/\s+/).filter(Boolean) : [];
  if (!runtimes.includes('runsc')) {
    throw new CommandError(`the Docker engine has no runsc (gVisor) runtime: ${SETUP_HINT}`, { code: 'DOCKER_NO_RUNSC' });
  }
  return { version: v.stdout.trim(), runtimes };
}

/**
 * Builds an image with the engine's BuildKit and no network. The context must already hold
 * node_modules (see assembleContext): nothing is installed during the build.
 * @param {{context: string, dockerfile?: string, tag: string, buildArgs?: Record<string,string>,
 *          target?: string, timeoutMs?: number, noCache?: boolean, onOutput?: (chunk: string) => void}} options
 *   noCache: run every step again (a step whose output is under test)
 * @returns {Promise<{tag: string, ms: number, output: string}>}
 * @throws {CommandError} when the build fails, with the end of the build log as the message
 */
async function buildImage({ context, dockerfile, tag, buildArgs = {}, target, timeoutMs = 600_000, noCache = false, onOutput }) {
  if (!context || !tag) throw new UsageError('buildImage needs a context directory and a tag');
  const args = ['build', '--progress', 'plain', '--network', 'none', '--tag', tag];
  if (dockerfile) args.push('--file', path.resolve(dockerfile));
  if (target) args.push('--target', target);
  if (noCache) args.push('--no-cache');
  for (const [key, value] of Object.entries(buildArgs)) args.push('--build-arg', `${key}=${value}`);
  args.push(path.resolve(context));
  const started = performance.now();
  // BuildKit: FROM a local image and RUN with --network none work without any pull, as long as
  // the Dockerfile has no `# syntax=` line (checked by .ci/docker-up.sh).
  const r = await docker(args, { timeoutMs, env: { DOCKER_BUILDKIT: '1' }, onOutput });
  const ms = performance.now() - started;
  const output = r.stdout + r.stderr;
  if (r.code !== 0 || r.timedOut) {
    if (DAEMON_DOWN.test(output)) throw engineDown();
    const why = r.timedOut ? `timed out after ${Math.round(timeoutMs / 1000)} s` : `exit ${r.code}`;
    throw new CommandError(`docker build of ${tag} failed (${why}):\n${lastLines(output, 25)}`,
      { code: 'DOCKER_BUILD_FAILED', details: output });
  }
  return { tag, ms, output };
}

/**
 * Runs a container with --rm and --network none. With `until`, the container is killed as soon as
 * its output matches (a server never exits by itself) and `ms` is the time to that match; else it
 * runs to its end. On timeout it is killed (docker kill by the name chosen here).
 * @param {{image: string, runtime?: string, args?: string[], tmpfs?: string[],
 *          env?: Record<string,string>, until?: RegExp | ((stdout: string, stderr: string) => boolean),
 *          timeoutMs?: number, dockerArgs?: string[]}} options
 *   tmpfs entries are `path` or `path:options`, e.g. '/tmp:rw,exec,size=256m' (Cloud Run keeps
 *   its writable layer in memory); dockerArgs are extra `docker run` options such as --cpus.
 * @returns {Promise<{code: number|null, stdout: string, stderr: string, ms: number,
 *          matched: boolean, timedOut: boolean, name: string}>}
 */
async function runContainer({ image, runtime = 'runc', args = [], tmpfs = [], env = {}, until,
  timeoutMs = 60_000, dockerArgs = [], leftovers = [] }) {
  if (!image) throw new UsageError('runContainer needs an image');
  if (!RUNTIME_NAME.test(runtime)) throw new UsageError(`invalid runtime "${runtime}": give a runtime of the Docker engine, e.g. runc or runsc`);
  const forbidden = dockerArgs.find((a) => FORBIDDEN_RUN_OPTIONS.test(a));
  if (forbidden) throw new UsageError(`runContainer sets ${forbidden.split('=')[0]} itself`);
  const name = `coldstart-run-${process.pid}-${++sequence}`;
  const runArgs = ['run', '--rm', '--name', name, '--network', 'none', '--runtime', runtime, '--pull', 'never'];
  for (const mount of tmpfs) runArgs.push('--tmpfs', mount);
  for (const [key, value] of Object.entries(env)) runArgs.push('--env', `${key}=${value}`);
  runArgs.push(...dockerArgs, image, ...args);
  const matches = typeof until === 'function' ? until
    : until ? (out, err) => until.test(out) || until.test(err) : null;

  running.add(name);
  const started = performance.now();
  const child = spawn(dockerBinary(), runArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Killed with SIGKILL, this process leaves neither the container nor the leftover paths.
  const watchdog = require('./death-watch.js').watchForDeath([[dockerBinary(), 'rm', '-f', name], ...(leftovers.length ? [['rm', '-rf', ...leftovers]] : [])]);
  let stdout = '';
  let stderr = '';
  let matchedAt = null;
  let timedOut = false;
  let stopping = null;

  // The container may not exist yet when we decide to stop it (slow runsc start): keep killing
  // until the client sees it end, so no container outlives its run.
  const stop = () => {
    if (stopping) return;
    stopping = (async () => {
      for (let attempt = 0; attempt < 40 && child.exitCode === null && child.signalCode === null; attempt++) {
        await docker(['kill', name], { timeoutMs: 10_000 }).catch(() => {});
        await new Promise((r) => setTimeout(r, 250));
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    })();
  };
  const check = () => {
    if (matchedAt === null && matches && matches(stdout, stderr)) {
      matchedAt = performance.now() - started;
      stop();
    }
  };
  child.stdout.setEncoding('utf8').on('data', (s) => { stdout += s; check(); });
  child.stderr.setEncoding('utf8').on('data', (s) => { stderr += s; check(); });
  const timer = setTimeout(() => { timedOut = true; stop(); }, timeoutMs);

  const code = await new Promise((resolve, reject) => {
    child.on('error', (err) => {
      reject(spawnFailure(err));
    });
    child.on('close', (exitCode) => resolve(exitCode));
  }).finally(() => { clearTimeout(timer); running.delete(name); });
  const ended = performance.now() - started;
  if (stopping) await stopping;
  watchdog.dismiss();
  if (DAEMON_DOWN.test(stderr)) throw engineDown();
  return {
    code, stdout, stderr, name,
    ms: matchedAt !== null ? matchedAt : ended,
    matched: matchedAt !== null,
    timedOut: timedOut && matchedAt === null,
  };
}

/**
 * Kills every container started by runContainer in this process that is still running
 * (for Ctrl-C during a benchmark).
 * @returns {Promise<void>}
 */
async function stopAllContainers() {
  const names = [...running];
  if (names.length) await docker(['kill', ...names], { timeoutMs: 20_000 }).catch(() => {});
}

// ---------------------------------------------------------------------------------------------
// Build contexts

/**
 * The packages `roots` need at run time, found as Node would from `fromDir`: dependencies, plus
 * optional and peer dependencies when installed. Returns the package directories to copy, each
 * with the node_modules path it takes; a package nested in another one's node_modules comes along
 * with it.
 */
function packageClosure(roots, fromDir, requiredBy) {
  const found = new Map(); // real directory -> { name, version, by }
  const queue = roots.map((name) => ({ name, from: fromDir, optional: false, by: requiredBy }));
  while (queue.length) {
    const { name, from, optional, by } = queue.shift();
    const dir = findPackageDir(name, from);
    if (!dir) {
      if (optional) continue;
      throw new CommandError(`cannot find package ${name} (needed by ${by}) from ${fromDir}: install it first`,
        { code: 'PACKAGE_MISSING' });
    }
    if (found.has(dir)) continue;
    const manifest = readManifest(dir) || {};
    found.set(dir, { name, version: manifest.version, by });
    const optionalNames = new Set([
      ...Object.keys(manifest.optionalDependencies || {}),
      ...Object.keys(manifest.peerDependencies || {}),
    ]);
    const names = new Set([...Object.keys(manifest.dependencies || {}), ...optionalNames]);
    for (const dep of [...names].sort()) {
      queue.push({ name: dep, from: dir, optional: optionalNames.has(dep), by: `${name}@${manifest.version}` });
    }
  }
  const dirs = [...found.keys()];
  const isNested = (dir) => dirs.some((other) => other !== dir && dir.startsWith(other + path.sep));
  const byDestination = new Map();
  for (const dir of dirs.filter((d) => !isNested(d)).sort()) {
    const { name, version } = found.get(dir);
    const clash = byDestination.get(name);
    if (clash) {
      throw new CommandError(`two copies of ${name} would land at node_modules/${name}: ${clash.dir} `
        + `(${clash.version}) and ${dir} (${version})`, { code: 'PACKAGE_CLASH' });
    }
    byDestination.set(name, { dir, version });
  }
  return [...byDestination.entries()]
    .map(([name, { dir, version }]) => ({ name, version, dir }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function copyPackages(packages, nodeModulesDir) {
  for (const pkg of packages) {
    fs.cpSync(pkg.dir, path.join(nodeModulesDir, pkg.name), { recursive: true, dereference: true });
  }
}

/** node_modules/.bin links for a package's binaries, as npm makes them (scripts and npx run them). */
function linkPackageBins(nodeModulesDir, name) {
  const manifest = readManifest(path.join(nodeModulesDir, name)) || {};
  const bins = typeof manifest.bin === 'string' ? { [name.split('/').pop()]: manifest.bin } : manifest.bin || {};
  const binDir = path.join(nodeModulesDir, '.bin');
  for (const [bin, target] of Object.entries(bins)) {
    fs.mkdirSync(binDir, { recursive: true });
    const link = path.join(binDir, bin);
    if (!fs.existsSync(link)) fs.symlinkSync(path.relative(binDir, path.join(nodeModulesDir, name, target)), link);
  }
}

/**
 * Assembles a Docker build context: the app (without its node_modules, .git, .coldstart), the
 * packages it needs copied from a node_modules directory, and coldstart itself as
 * node_modules/coldstart with its own dependencies in node_modules/coldstart/node_modules (so
 * they never clash with the app's versions).
 * @param {{app: string, into: string, nodeModules?: string, packages?: string[], coldstart?: boolean}} options
 *   nodeModules: where the app's packages come from (default <app>/node_modules);
 *   packages: the app's direct dependencies (default: "dependencies" of <app>/package.json).
 * @returns {{dir: string, packages: {name: string, version: string}[], coldstartPackages: {name: string, version: string}[]}}
 */
function assembleContext({ app, into, nodeModules, packages, coldstart = true }) {
  if (!app || !into) throw new UsageError('assembleContext needs an app directory and a destination');
  const appDir = path.resolve(app);
  const dir = path.resolve(into);
  const modulesDir = path.resolve(nodeModules || path.join(appDir, 'node_modules'));
  if (!fs.existsSync(path.join(appDir, 'package.json'))) {
    throw new CommandError(`no package.json in ${appDir}`, { code: 'APP_MISSING' });
  }
  const roots = (packages || Object.keys((readManifest(appDir) || {}).dependencies || {}))
    .filter((name) => !(coldstart && name === 'coldstart'));

  const skipped = new Set(['node_modules', '.git', '.coldstart']);
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(appDir, dir, {
    recursive: true,
    dereference: true,
    filter: (src) => {
      if (src === dir) return false; // the context may live inside the app
      const top = path.relative(appDir, src).split(path.sep)[0];
      return !skipped.has(top);
    },
  });

  const appPackages = packageClosure(roots, path.dirname(modulesDir), 'the app');
  copyPackages(appPackages, path.join(dir, 'node_modules'));
  // The tree keeps its package manager's record, as an install leaves it (start's check reads it).
  const { INSTALL_RECORDS } = require('./archive-format.js');
  for (const name of INSTALL_RECORDS) {
    if (!fs.existsSync(path.join(modulesDir, name))) continue;
    fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true }); // an app of no dependency has none yet
    fs.copyFileSync(path.join(modulesDir, name), path.join(dir, 'node_modules', name));
  }
  for (const name of roots) linkPackageBins(path.join(dir, 'node_modules'), name);

  let coldstartPackages = [];
  if (coldstart) {
    const own = readManifest(INSTALL_DIR) || {};
    const target = path.join(dir, 'node_modules', 'coldstart');
    const entries = ['package.json', 'README.md', 'LICENSE', ...(own.files || ['bin/', 'lib/'])];
    for (const entry of entries) {
      const src = path.join(INSTALL_DIR, entry);
      if (fs.existsSync(src)) fs.cpSync(src, path.join(target, entry), { recursive: true, dereference: true });
    }
    coldstartPackages = packageClosure(Object.keys(own.dependencies || {}), INSTALL_DIR, 'coldstart');
    copyPackages(coldstartPackages, path.join(target, 'node_modules'));
  }
  const summary = (list) => list.map(({ name, version }) => ({ name, version }));
  return { dir, packages: summary(appPackages), coldstartPackages: summary(coldstartPackages) };
}

/**
 * The runtimes given, each one the engine has; else a usage error naming the ones it has.
 * @param {string[]} names
 * @returns {Promise<string[]>}
 */
async function checkRuntimes(names, flag = '--runtime') {
  const { runtimes } = await requireDocker();
  for (const name of names) {
    if (!runtimes.includes(name)) throw new UsageError(`unknown ${flag} "${name}": this Docker engine has ${runtimes.join(', ')}`);
  }
  return names;
}

/**
 * The first line of a runtime's `--version` (gVisor's build for runsc, runsc-2024, ...), the
 * binary as the engine registered it; 'unknown' when it cannot be asked.
 * @param {string} [runtime='runsc']
 */
function runscVersion(runtime = 'runsc') {
  const { execFileSync } = require('node:child_process');
  try {
    const registered = JSON.parse(execFileSync(dockerBinary(), ['info', '--format', '{{json .Runtimes}}'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }));
    const binary = (registered[runtime] && registered[runtime].path) || runtime;
    return execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim().split('\n')[0];
  } catch {
    return 'unknown';
  }
}

/**
 * Removes images (errors ignored: nothing to clean is fine).
 * @param {string[]} tags
 */
async function removeImages(tags) {
  if (!tags.length) return;
  try {
    await docker(['image', 'rm', '--force', ...tags]);
  } catch {
    // no CLI: nothing was built either
  }
}

module.exports = {
  docker,
  dockerBinary,
  requireDocker,
  removeImages,
  runscVersion,
  checkRuntimes,
  buildImage,
  runContainer,
  stopAllContainers,
  assembleContext,
  linkPackageBins,
};
