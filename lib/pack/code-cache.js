'use strict';
// `pack --code-cache` without a recording run (--code-cache compile, or a run that gave no cache):
// the startup modules compiled without running the app, which caches their top-level code only. Compiled the way start's loader compiles them
// (lib/start/code-cache.js), or V8 would reject the cache.
const fs = require('node:fs');
const path = require('node:path');
const { compile, cacheable } = require('../start/code-cache.js');
const { joinCaches } = require('../start/code-cache-recorder.js');

/**
 * Builds the cache for CommonJS files (root-relative). Files that do not compile
 * (or start with a hashbang, which the wrapper cannot hold) are left out.
 * @returns {{ blob: Buffer, index: { node: string, v8: string, tag: number, entries: Object<string, [number, number]> },
 *   importLost: number }} importLost: the files left out because this Node loses their import() with a cache
 */
function buildCodeCache(root, relFiles) {
  const caches = [];
  let importLost = 0;
  for (const rel of relFiles) {
    const filename = path.join(root, rel);
    let source;
    try {
      source = fs.readFileSync(filename, 'utf8'); // a byte order mark stays, as in Node's loader
    } catch {
      continue;
    }
    if (!cacheable(source)) {
      if (!source.startsWith('#!')) importLost++; // Node 20 leaves out modules that mention import(
      continue;
    }
    try {
      caches.push([rel, compile(source, filename).createCachedData()]);
    } catch {
      continue; // a syntax error shows up when the app loads it, as it would anyway
    }
  }
  return { ...joinCaches(caches), importLost };
}

module.exports = { buildCodeCache };
