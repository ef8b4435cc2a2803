'use strict';
// V8 code cache for the CommonJS startup modules. Recorded from a run of the app under
// `coldstart start` up to its ready moment, so it holds the functions startup ran; when that
// run cannot be made (the command is not `node <script>`, the app fails under start), the
// modules are compiled without running them, which caches their top-level code only.
const fs = require('fs');
const path = require('path');
const { warning } = require('../warnings.js');

/**
 * @param {{root: string, index: object, appRun: ?object, write: (target: string, codeCache: ?object) => object,
 *   out: string, warnings: object[]}} options  `warnings` receives why the cache was compiled instead of recorded
 * @returns {Promise<{index: object, blob: Buffer, made: 'run'|'compile'}>}
 */
async function makeCodeCache({ root, index, appRun, write, out, warnings }) {
  const recorded = appRun ? await recordCodeCache({ appRun, index, write, out, warnings }) : null;
  if (recorded && recorded.blob) return recorded;
  const { buildCodeCache } = require('./code-cache.js');
  const commonjs = Object.keys(index.formats).filter((rel) => index.formats[rel] === 'commonjs');
  const { importLost, ...built } = buildCodeCache(root, commonjs);
  if (importLost) {
    warnings.push(warning('PACK_CODE_CACHE_IMPORT_LOST', `${importLost} of ${commonjs.length} CommonJS modules mention import( and get no code cache on Node ${process.versions.node} (with a cache it loses their import()); Node 22 and later cache them`, { modules: importLost }));
  }
  if (recorded) {
    warnings.push(warning('PACK_CODE_CACHE_UNUSED', 'the run under coldstart start compiled no module from the archive; code cache compiled without running the app'));
  }
  return { ...built, made: 'compile' };
}

/** The recorded cache; {empty: true} when the run compiled nothing; null (with one warning) when it failed. */
async function recordCodeCache({ appRun, index, write, out, warnings }) {
  const uncached = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.uncached.tmp`);
  try {
    write(uncached, null);
    const { recordCodeCacheRun } = require('./code-cache-run.js');
    const esmKeys = esmCacheKeys(appRun.root || appRun.cwd, index);
    const recorded = await recordCodeCacheRun({ archive: uncached, ...appRun, wanted: (name) => esmKeys.has(name) });
    const esm = withEsmEntries(recorded, esmKeys);
    if (Object.keys(esm.index.entries).length || esm.index.esm) return { ...esm, made: 'run' };
    return { empty: true };
  } catch (err) {
    if (err.exitCode !== undefined) throw err;
    warnings.push(warning('PACK_CODE_CACHE_UNRECORDED', `could not record the code cache under coldstart start (${err.message}); compiling the modules without running them`, { error: err.message }));
  } finally {
    fs.rmSync(uncached, { force: true });
  }
  return null;
}

// An ES module's entry is a file start writes and Node opens and reads: for a small module that
// costs about what compiling it does (NestJS's 400 ES modules, median 0.6 kB: no gain with all of
// them, docs/pack-and-start.md). Entries are kept for modules from this size on.
const ESM_CACHE_MIN_BYTES = 8 << 10;

// The source size Node wrote into the entry's header (after its magic number).
function sourceBytes(entry) {
  return entry.length >= 8 ? entry.readUInt32LE(4) : 0;
}

/**
 * The name Node's compile cache gives the entry of each of the archive's ES modules, from the
 * module's path in the run's root: Map<file name, root-relative path>, sorted by path.
 */
function esmCacheKeys(root, index) {
  const { esmCacheKey } = require('../start/compile-cache-keys.js');
  const modules = Object.keys(index.formats).filter((rel) => index.formats[rel] === 'module').sort();
  return new Map(modules.map((rel) => [esmCacheKey(path.join(root, rel)), rel]));
}

/**
 * The recorded cache with the compile-cache entries of the archive's ES modules appended to its
 * blob, index.esm saying where each lies (root-relative path -> [offset, size]), for modules of
 * ESM_CACHE_MIN_BYTES or more.
 * @param {{blob: Buffer, index: object, esm: Map<string, Buffer>}} recorded
 * @param {Map<string, string>} esmKeys esmCacheKeys
 */
function withEsmEntries(recorded, esmKeys) {
  const { blob, esm } = recorded;
  if (!esm.size) return { blob, index: recorded.index };
  const parts = [blob];
  const entries = {};
  let offset = blob.length;
  for (const [key, rel] of esmKeys) {
    const data = esm.get(key);
    if (!data || sourceBytes(data) < ESM_CACHE_MIN_BYTES) continue;
    entries[rel] = [offset, data.length];
    parts.push(data);
    offset += data.length;
  }
  if (!Object.keys(entries).length) return { blob, index: recorded.index };
  return { blob: Buffer.concat(parts), index: { ...recorded.index, esm: entries } };
}

module.exports = { makeCodeCache };
