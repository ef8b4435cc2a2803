'use strict';
// bench --node 22,24,/opt/node26/bin/node: the Node versions one app command is timed on. Each
// entry is a registry version (installed once, lib/bench/node-install.js) or a node binary; each
// is run for its exact version. The app finds its Node the way it would in production: the
// command's leading `node` is that binary, and a folder holding only `node` comes first on PATH,
// so npm scripts, package binaries (#!/usr/bin/env node) and the app's own children run it too.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { UsageError } = require('../errors.js');
const { isNode } = require('../node-command.js');

// Node releases coldstart's in-app code runs on.
const OLDEST_MAJOR = 20;
const VERSION_SPEC = /^v?(\d+)(\.\d+){0,2}$/;
// Programs that start the app's Node from PATH.
const NODE_STARTERS = new Set(['npm', 'npx', 'yarn', 'yarnpkg', 'pnpm', 'pnpx', 'corepack', 'coldstart']);

/**
 * The entries of --node, in order: a registry spec or a file. Pure: whether a file is a node
 * binary is found out later, by running it.
 * @param {string|string[]} value
 * @returns {({entry: string, spec: string}|{entry: string, file: string})[]}
 */
function parseNodeList(value, cwd) {
  const entries = [].concat(value).flatMap((v) => String(v).split(',')).map((s) => s.trim());
  if (!entries.length || entries.some((e) => !e)) {
    throw new UsageError(`--node ${[].concat(value).join(',')}: give Node versions or node binaries, comma separated, e.g. --node 22,24`);
  }
  const seen = new Set();
  return entries.map((entry) => {
    if (seen.has(entry)) throw new UsageError(`--node: ${entry} is listed twice`);
    seen.add(entry);
    const spec = VERSION_SPEC.exec(entry);
    if (spec) {
      if (Number(spec[1]) < OLDEST_MAJOR) throw new UsageError(`--node ${entry}: coldstart runs in apps on Node ${OLDEST_MAJOR} and later`);
      return { entry, spec: entry.replace(/^v/, '') };
    }
    return { entry, file: path.resolve(cwd, entry) };
  });
}

/** An executable regular file? */
function isExecutable(file) {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// A node answers --version in tens of ms; anything given as one that takes this long is not one.
const VERSION_MS = 10_000;

// Runs `argv[1] --version` in a process group of its own and ends the whole group after it (or at
// VERSION_MS): a script given as --node may leave processes behind (`sleep 600 &`). Exit 2: timed out.
const VERSION_PROBE = `const c = require('child_process').spawn(process.argv[1], ['--version'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
let out = ''; c.stdout.on('data', (d) => { out += d; });
const end = () => { try { process.kill(-c.pid, 'SIGKILL'); } catch {} };
const t = setTimeout(() => { end(); process.exit(2); }, ${VERSION_MS});
c.on('error', () => process.exit(1));
c.on('close', (code) => { clearTimeout(t); end(); process.stdout.write(code === 0 ? out : ''); });`;

/** `node --version` of a binary: {version: 'v24.21.0' or null when it is not a node binary, timedOut}. */
function versionProbe(binary) {
  const r = spawnSync(process.execPath, ['-e', VERSION_PROBE, binary], { encoding: 'utf8', timeout: 2 * VERSION_MS, env: { ...process.env, NODE_OPTIONS: '' } });
  const version = r.status === 0 && /^v\d+\.\d+\.\d+\S*$/.exec(r.stdout.trim());
  return { version: version ? version[0] : null, timedOut: r.status === 2 };
}

/** `node --version` of a binary ('v24.21.0'), or null when it is not a node binary. */
function versionOf(binary) {
  return versionProbe(binary).version;
}

/**
 * Each entry's binary and exact version, registry versions installed first (one progress phase each).
 * @param {ReturnType<typeof parseNodeList>} entries
 * @param {{cacheDir: string, env?: NodeJS.ProcessEnv, onProgress?: (text: string) => void, signal?: AbortSignal}} options
 * @returns {Promise<{entry: string, spec: ?string, binary: string, version: string, label: string}[]>}
 */
async function resolveNodes(entries, { cacheDir, env, onProgress, signal }) {
  const { installNode } = require('./node-install.js');
  const nodes = [];
  for (const e of entries) {
    const notNode = new UsageError(`--node ${e.entry}: not a Node version or a node binary`);
    if (e.file && !isExecutable(e.file)) throw notNode;
    const binary = e.spec ? await installNode({ spec: e.spec, cacheDir, env, onProgress, signal }) : e.file;
    const { version, timedOut } = versionProbe(binary);
    if (timedOut) throw new UsageError(`--node ${e.entry}: did not answer --version within ${VERSION_MS / 1000} s: not a node binary`);
    // A copy coldstart installed that no longer runs (a disk filled up mid-copy): say where it is.
    if (!version && e.spec) throw new UsageError(`--node ${e.entry}: the copy installed at ${binary} does not run; remove ${path.resolve(binary, '../../../..')} to install it again`);
    if (!version) throw notNode;
    const major = Number(/^v(\d+)/.exec(version)[1]);
    if (major < OLDEST_MAJOR) throw new UsageError(`--node ${e.entry}: Node ${version.slice(1)}: coldstart runs in apps on Node ${OLDEST_MAJOR} and later`);
    nodes.push({ entry: e.entry, spec: e.spec || null, binary, version, label: `Node ${version.slice(1)}${e.file ? ` (${e.entry})` : ''}` });
  }
  return nodes;
}

/** Whether a program's first line runs it with node (#!/usr/bin/env node, a package binary). */
function hasNodeShebang(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(128);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return /^#!.*\bnode\b/.test(head.subarray(0, n).toString('latin1').split('\n')[0]);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Where a command word is found: a path as given, else the first match on PATH. */
function findProgram(word, cwd, env) {
  if (word.includes('/')) return path.resolve(cwd, word);
  for (const dir of String(env.PATH || '').split(path.delimiter).filter(Boolean)) {
    const file = path.resolve(cwd, dir, word);
    if (isExecutable(file)) return file;
  }
  return null;
}

/**
 * Refuses an app command that would not start the chosen Node: it must be node, npm (npx, yarn,
 * pnpm), coldstart, or a script run by node.
 */
function checkStartsNode(words, cwd, env) {
  const [first] = words;
  if (isNode(first) || NODE_STARTERS.has(path.basename(first))) return;
  const program = findProgram(first, cwd, env);
  if (program && hasNodeShebang(program)) return;
  throw new UsageError(`--node times apps started by node: the command must start with node, npm, npx, yarn, pnpm or a script run by node, not ${first}`);
}

/**
 * The app command and environment that run on `node`: a leading node word becomes its binary,
 * and `shimDir` (a new folder, made here, holding only a `node` link) goes first on PATH.
 * @param {string[]} words
 * @param {{binary: string}} node
 * @param {string} shimDir
 * @param {Record<string, string>} env
 * @returns {{command: string[], env: Record<string, string>, node: string}} node: the link, to run other
 *   Node programs with
 */
function runOnNode(words, node, shimDir, env) {
  fs.mkdirSync(shimDir, { recursive: true });
  const shim = path.join(shimDir, 'node');
  fs.symlinkSync(fs.realpathSync(node.binary), shim);
  const command = isNode(words[0]) ? [shim, ...words.slice(1)] : words;
  return { command, env: { ...env, PATH: [shimDir, env.PATH].filter(Boolean).join(path.delimiter) }, node: shim };
}

/**
 * The binary a ready process runs (Linux: /proc/PID/exe), or null when that cannot be read (the
 * process has already exited, as with --until exit).
 */
function runningBinary(pid) {
  try {
    return fs.realpathSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

module.exports = { parseNodeList, resolveNodes, checkStartsNode, runOnNode, runningBinary, versionOf };
