'use strict';
// Where Node's own compile cache (Node 22.1+) keeps a module's entry: in dir/<version>-<arch>-<hex8
// V8 cache tag>-<uid>/, in a file named after a CRC-32 of the module type byte followed by the
// module's name, a CommonJS module's absolute path or an ES module's file: URL (src/compile_cache.cc).
// Portable mode (NODE_COMPILE_CACHE_PORTABLE, Node 24.12+) names modules by relative paths instead.

// The type byte Node hashes before the name: 0 CommonJS, 1 ES module.
const ESM = 1;

/** The types a module of this name may have, the likely one first. */
function moduleTypes(file) {
  if (file.endsWith('.mjs')) return [ESM];
  if (file.endsWith('.cjs')) return [0];
  return [0, ESM];
}

/** What Node names a module by in its cache: a CommonJS module by its path, an ES module by its URL. */
function keyName(type, file) {
  return type === ESM ? require('node:url').pathToFileURL(file).href : file;
}

function cacheKey(crc32, type, filename) {
  return crc32(filename, crc32(Buffer.from([type]))).toString(16).padStart(8, '0');
}

/** The file name of an ES module's entry (not in portable mode). */
function esmCacheKey(file) {
  return cacheKey(require('node:zlib').crc32, ESM, keyName(ESM, file));
}

/** The subdirectory Node opens for this process when it cannot say (before 22.8). */
function subdirName() {
  const tag = require('node:v8').cachedDataVersionTag().toString(16).padStart(8, '0');
  const uid = typeof process.getuid === 'function' ? `-${process.getuid()}` : '';
  return `${process.version}-${process.arch}-${tag}${uid}`;
}

module.exports = { moduleTypes, keyName, cacheKey, esmCacheKey, subdirName };
