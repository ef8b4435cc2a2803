'use strict';
// ES modules from the archive compile from a V8 code cache through Node's own compile cache
// (module.enableCompileCache, Node 22.1+), the only way Node takes a code cache for an ES module.
// pack keeps what Node's cache wrote for the archive's ES modules in its recording run (each entry
// as Node wrote it: its header checks the source); start writes those entries into a directory of
// its own and turns Node's cache on there before the app's first module. Node reads an entry as it
// compiles the module, by the module's URL, and V8 takes it or compiles anew. Node's cache holds a
// module's top-level code as compiled, not the functions that ran (it is made at compile time).
// Not when the app has a compile cache of its own (NODE_COMPILE_CACHE) or turned it off.
const fs = require('node:fs');
const path = require('node:path');

/**
 * @param {{root: string, entries: Object<string, [number, number]>, blob: Buffer, env: object}} options
 *   entries: root-relative ES module -> where its compile-cache entry lies in blob
 * @returns {number} how many entries Node can find: 0 when this Node or the environment rules it out
 */
function installEsmCodeCache({ root, entries, blob, env }) {
  const Module = require('node:module');
  const rels = Object.keys(entries);
  if (!rels.length || typeof Module.enableCompileCache !== 'function' || typeof require('node:zlib').crc32 !== 'function') return 0;
  if (env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return 0;
  const { esmCacheKey, subdirName } = require('./compile-cache-keys.js');
  let dir = null;
  try {
    dir = fs.mkdtempSync(path.join(memoryDir() || require('node:os').tmpdir(), 'coldstart-esm-cache-'));
    const { status } = Module.enableCompileCache(dir);
    if (status !== Module.constants.compileCacheStatus.ENABLED) throw new Error('not enabled');
    // Node names the directory it opened from 22.8 on; before, it is the one it would open.
    const own = typeof Module.getCompileCacheDir === 'function' ? Module.getCompileCacheDir() : path.join(dir, subdirName());
    for (const rel of rels) {
      const [offset, length] = entries[rel];
      fs.writeFileSync(path.join(own, esmCacheKey(path.join(root, rel))), blob.subarray(offset, offset + length));
    }
  } catch {
    if (dir) fs.rmSync(dir, { recursive: true, force: true }); // a read-only /tmp: modules compile as usual
    return 0;
  }
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return rels.length;
}

// Creating a file on a disk file system took about 1 ms here (ext4 under a VM, and a container's
// overlay on it: 400 entries, 390 ms); in /dev/shm, memory, 20 µs. Docker, Kubernetes and Cloud
// Run give a container one; where it cannot be written, the temp directory.
function memoryDir() {
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    return '/dev/shm';
  } catch {
    return null;
  }
}

module.exports = { installEsmCodeCache };
