'use strict';
// Node's own compile cache (NODE_COMPILE_CACHE=dir, Node 22.1+) misses without a word in three
// common container setups. Node keeps it in a subdirectory per Node version, V8 cache tag and uid,
// an entry per module named after the module's path or URL (compile-cache-keys.js; with
// NODE_COMPILE_CACHE_PORTABLE=1, Node 24.12+: the path relative to that subdirectory),
// src/compile_cache.cc. So a cache built as root is not looked at by uid 1000, a cache built at
// another path misses every key, and a cache built by another Node (or with other V8 flags) sits
// in a directory this process never opens. `start` looks once, with a stat when all is well and
// two readdirs when not, and never reads a cache file.
const fs = require('node:fs');
const path = require('node:path');
const { moduleTypes, cacheKey, keyName, subdirName } = require('./compile-cache-keys.js');

const SUBDIR = /^(v.+)-([^-]+)-([0-9a-f]{8})(?:-(\d+))?$/;
const ANEW = 'so Node compiles every module anew';

/**
 * What is wrong with the compile cache for this process, from what the directory holds.
 * @param {object} facts
 * @param {string} facts.dir NODE_COMPILE_CACHE as set
 * @param {string} facts.own this process's subdirectory name: <version>-<arch>-<hex8 tag>[-<uid>]
 *   (no uid on Windows, nor in portable mode from Node 26 on)
 * @param {string[]|null} facts.subdirs the names in dir; null when it cannot be read
 * @param {boolean} facts.entryCached the subdirectory holds a file for the entry's key
 * @param {number} facts.ownFiles how many files the subdirectory holds
 * @param {string} facts.entry the entry module's path
 * @param {boolean} facts.portable keys are paths relative to the subdirectory
 * @returns {string|null} one warning line, or null when the cache serves the entry
 */
function compileCacheProblem({ dir, own, subdirs, entryCached, ownFiles, entry, portable }) {
  if (entryCached) return null;
  const where = `NODE_COMPILE_CACHE=${dir}`;
  if (ownFiles > 0) {
    const fix = portable
      ? 'keep the app where it was relative to the cache directory, or build the cache where the app runs'
      : 'with Node 24.12+, set NODE_COMPILE_CACHE_PORTABLE=1 at build and at run; or build the cache at the path the app runs from';
    return `${where} has a cache for this Node and uid but none for ${entry}: it was built at another path or without this entry, ${ANEW} (${fix})`;
  }
  const mine = SUBDIR.exec(own);
  const caches = (subdirs || []).map((name) => SUBDIR.exec(name)).filter((m) => m && m[0] !== own);
  const otherUids = caches.filter((m) => m[1] === mine[1] && m[2] === mine[2] && m[3] === mine[3] && m[4] !== undefined);
  if (otherUids.length && mine[4] !== undefined) {
    const uids = otherUids.map((m) => m[4]).join(', ');
    return `${where} has a cache for uid ${uids} only; this process runs as uid ${mine[4]}, ${ANEW} `
      + `(build the cache as the user the container runs as, or run as uid ${otherUids[0][4]})`;
  }
  if (caches.length) {
    const names = caches.slice(0, 3).map((m) => m[0]).join(', ') + (caches.length > 3 ? `, and ${caches.length - 3} more` : '');
    return `${where} has caches for ${names} only; this process is ${own} (Node version, arch, V8 cache tag, uid: `
      + `V8 flags and another CPU change the tag), ${ANEW} (build the cache with the Node and node flags the container runs)`;
  }
  const state = subdirs === null ? 'does not exist or cannot be read' : 'holds no cache';
  return `${where} ${state}: no cache was built there, ${ANEW} `
    + '(run the app once with NODE_COMPILE_CACHE set at image build, and let it exit so Node writes the cache)';
}

/**
 * Looks at NODE_COMPILE_CACHE once for the app's entry and warns when Node will not use it.
 * Skipped where this Node has no compile cache, or it is turned off. Never throws.
 * @param {{env: object, cwd: string, entry: string, warn: (message: string) => void}} options
 *   cwd: the working directory this process started in (Node resolved the directory from it)
 */
function checkCompileCache({ env, cwd, entry, warn }) {
  const Module = require('node:module');
  const { crc32 } = require('node:zlib');
  // enableCompileCache came in 22.1, crc32 in 22.2: below that there is nothing to look at.
  // NODE_DISABLE_COMPILE_CACHE turns the cache off even when set to nothing.
  if (!env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE !== undefined || typeof Module.enableCompileCache !== 'function' || typeof crc32 !== 'function') return;
  try {
    const dir = env.NODE_COMPILE_CACHE;
    // Node names the directory it opened (22.8+); newer ones leave the uid out in portable mode.
    const opened = typeof Module.getCompileCacheDir === 'function' && Module.getCompileCacheDir();
    const ownDir = opened || path.join(path.resolve(cwd, dir), subdirName());
    const own = path.basename(ownDir);
    const portable = env.NODE_COMPILE_CACHE_PORTABLE === '1' && portableKeys(process.versions.node);
    // The main module is keyed by its real path, as Node loads it.
    let file = entry;
    try { file = fs.realpathSync.native(entry); } catch { /* keyed as given */ }
    const keyed = (type) => (portable ? path.relative(ownDir, file) : keyName(type, file));
    const entryCached = moduleTypes(file).some((type) => fs.existsSync(path.join(ownDir, cacheKey(crc32, type, keyed(type)))));
    if (entryCached) return;
    const problem = compileCacheProblem({
      dir, own, subdirs: names(path.dirname(ownDir)), entryCached, ownFiles: (names(ownDir) || []).length, entry: file, portable,
    });
    if (problem) warn(problem);
  } catch {
    // a diagnosis must never stop the app
  }
}

// NODE_COMPILE_CACHE_PORTABLE is read from Node 24.12 (and 25) on.
function portableKeys(version) {
  const [major, minor] = version.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 12);
}

function names(dir) {
  try {
    return fs.readdirSync(dir);
  } catch {
    return null;
  }
}

module.exports = { compileCacheProblem, checkCompileCache };
