'use strict';
// The startup archive as pack writes it and `start` reads it: a plain tar whose first file is the
// startup index (how each startup request resolved, each module's format, where every file lies),
// sealed with one CRC-32 over the whole archive; the V8 code cache, when there is one, is one more
// entry. `start` trusts nothing in the index before checkStartupIndex has accepted its shape.
const { crc32 } = require('node:zlib'); // Node 20.15+ and 22.2+ have it

const INDEX_PATH = '.coldstart/startup-index.json';
const CACHE_PATH = '.coldstart/code-cache.bin';
// 2: sealed with a CRC-32 of the whole archive ("sum"), and every layout entry carries the
// CRC-32 of its bytes (checked when the archive was re-made by another tool).
const INDEX_VERSION = 2;
const FORMATS = new Set(['commonjs', 'module', 'json', 'addon']);
const SUM_KEY = ',"sum":';
// Set by pack for its recording run of `coldstart start`: where the run writes the code cache.
const RECORD_ENV = 'COLDSTART_RECORD_CODE_CACHE';
// pack --after: the recording run writes the cache this many ms after the ready moment.
const SETTLE_ENV = 'COLDSTART_RECORD_SETTLE_MS';
// The file each package manager rewrites at every install into a node_modules tree (npm's hidden
// lockfile, pnpm's, Yarn's): pack records the one a tree has (the newest, if several), and while
// it is as pack saw it, start takes the tree's packed files as installed (lib/start/install-check.js).
const INSTALL_RECORDS = ['.package-lock.json', '.modules.yaml', '.yarn-state.yml', '.yarn-integrity'];

/**
 * Checks an index read from an archive against the shape pack gives it, once, before anything
 * in it is used: what `start` then reads cannot throw.
 * @param {unknown} index parsed JSON
 * @returns {string|null} the first thing wrong, or null when the index can be used
 */
function checkStartupIndex(index) {
  if (!isObject(index)) return 'the index is not an object';
  if (index.version !== INDEX_VERSION) return null; // told apart by the caller, with its own message
  if (index.sum !== undefined && !(isCount(index.sum) && index.sum <= 0xffffffff)) return '"sum" is not a CRC-32';
  for (const key of ['node', 'platform', 'arch']) {
    if (typeof index[key] !== 'string') return `"${key}" is not a string`;
  }
  for (const key of ['resolutions', 'esmResolutions']) {
    if (index[key] === undefined && key === 'esmResolutions') continue;
    if (!Array.isArray(index[key])) return `"${key}" is not a list`;
    if (!index[key].every(isStringTriple)) return `"${key}" holds an entry that is not three strings`;
  }
  if (!isObject(index.formats)) return '"formats" is not an object';
  for (const rel of Object.keys(index.formats)) {
    if (!FORMATS.has(index.formats[rel])) return `"formats" of ${rel} is not a module format`;
  }
  if (index.layout !== undefined) {
    const { layout } = index;
    if (!isObject(layout) || !isObject(layout.files)) return '"layout.files" is not an object';
    for (const key of ['count', 'bytes', 'tailBytes']) {
      if (!isCount(layout[key])) return `"layout.${key}" is not a byte count`;
    }
    for (const rel of Object.keys(layout.files)) {
      const entry = layout.files[rel];
      if (!Array.isArray(entry) || entry.length !== 3 || !entry.every(isCount) || entry[2] > 0xffffffff) {
        return `"layout.files" of ${rel} is not [offset, size, crc32]`;
      }
    }
  }
  if (index.installRecords !== undefined) {
    if (!Array.isArray(index.installRecords)) return '"installRecords" is not a list';
    for (const entry of index.installRecords) {
      if (!isInstallRecord(entry)) return '"installRecords" holds an entry that is not [tree, record file, size, mtimeMs] inside the root';
    }
  }
  if (index.codeCache !== undefined) {
    if (!isObject(index.codeCache) || !isObject(index.codeCache.entries)) return '"codeCache.entries" is not an object';
    // esm: Node compile-cache entries of ES modules (lib/start/esm-code-cache.js), inside the root.
    if (index.codeCache.esm !== undefined && !isObject(index.codeCache.esm)) return '"codeCache.esm" is not an object';
    for (const key of ['entries', 'esm']) {
      for (const [rel, entry] of Object.entries(index.codeCache[key] || {})) {
        if (!Array.isArray(entry) || entry.length !== 2 || !entry.every(isCount)) return `"codeCache.${key}" of ${rel} is not [offset, size]`;
        if (key === 'esm' && escapesRoot(rel)) return `"codeCache.esm" names ${rel}, outside the root`;
      }
    }
  }
  return null;
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value) {
  return Number.isSafeInteger(value) && value >= 0;
}

function isStringTriple(value) {
  return Array.isArray(value) && value.length === 3 && value.every((part) => typeof part === 'string');
}

function isInstallRecord(entry) {
  if (!Array.isArray(entry) || entry.length !== 4) return false;
  const [tree, record, size, mtimeMs] = entry;
  return typeof tree === 'string' && installTreeOf(`${tree}/x/y`) === tree && INSTALL_RECORDS.some((name) => record === `${tree}/${name}`)
    && isCount(size) && Number.isFinite(mtimeMs);
}

/**
 * Whether a file is still as pack recorded it: a file of the same size, modified at the same time
 * or at that time cut to the second, as image layers made by Docker's classic builder store it
 * (BuildKit's keep it whole).
 * @param {import('node:fs').Stats|undefined|null} st the file's stat at start
 * @param {number} size its size when pack ran
 * @param {number} mtimeMs its mtimeMs when pack ran
 */
function fileHolds(st, size, mtimeMs) {
  return Boolean(st && st.isFile() && st.size === size && (st.mtimeMs === mtimeMs || st.mtimeMs === Math.floor(mtimeMs / 1000) * 1000));
}

/**
 * The node_modules tree a root-relative path was installed into (`node_modules`,
 * `packages/api/node_modules`), or undefined: outside any, or under a dot directory of the tree
 * other than pnpm's store (`node_modules/.prisma` and the like are written by other tools than
 * the installer, after it).
 * @param {string} rel
 * @returns {string|undefined}
 */
function installTreeOf(rel) {
  const at = rel.startsWith('node_modules/') ? 0 : rel.indexOf('/node_modules/') + 1;
  if (at === 0 && !rel.startsWith('node_modules/')) return undefined;
  const inside = at + 'node_modules/'.length;
  const slash = rel.indexOf('/', inside);
  if (slash === -1) return undefined; // a file of the tree's own directory (its record among them)
  if (rel[inside] === '.' && rel.slice(inside, slash) !== '.pnpm') return undefined;
  const tree = rel.slice(0, inside - 1);
  return escapesRoot(tree) ? undefined : tree;
}

/**
 * Whether a lead entry sealed by pack (lib/pack/startup-index.js sealIndex) still matches the archive after it.
 * @param {Buffer} lead the lead entry's bytes
 * @param {number} tailCrc CRC-32 of the archive bytes after the lead entry
 */
function sealHolds(lead, tailCrc) {
  const at = lead.lastIndexOf(SUM_KEY);
  if (at === -1) return false;
  const sum = Number(lead.toString('latin1', at + SUM_KEY.length, lead.length - 1));
  return crc32(lead.subarray(0, at), tailCrc) === sum;
}

/** An entry's path as pack wrote it: archives re-made with `tar -C dir .` prefix `./`. */
function archiveName(entryPath) {
  return entryPath.replace(/^(\.\/)+/, '');
}

/** Whether a root-relative archive path would lead outside the root (absolute, or `..`). */
function escapesRoot(rel) {
  // Read for every resolution at each start: no array per path.
  return typeof rel !== 'string' || rel.startsWith('/') || rel === '..' || rel.startsWith('../') || rel.endsWith('/..') || rel.includes('/../');
}

/**
 * Whether a recorded resolution [from, request, to] may be answered from the archive: its target
 * inside the root, and its request never a builtin (a forged index mapping `fs` or `node:fs` to a
 * file of its own would run that file wherever the app asks for the builtin).
 */
function resolutionAllowed(resolution) {
  return !escapesRoot(resolution[2]) && !require('node:module').isBuiltin(resolution[1]);
}

// Which archive files start reads at all, in either mode: a regular file that only its owner can
// write, and read whole only up to a size.

// An archive with no index to read it by (made by another tool, an index over 8 MB, or not an
// archive of pack's at all) is read whole: only up to this size, so that a forged or damaged file
// cannot take a small container's memory and stop the app from starting.
const WHOLE_READ_LIMIT = 256 << 20;

// An archive others can write is not used: its checksum finds damage, not a forger, and whoever
// can write it can change what the app runs (a resolution, a module's bytes of the same size).
function checkArchiveStat(stat) {
  if (!stat.isFile()) throw new Error('it is not a regular file');
  if (stat.mode & 0o022) {
    throw new Error(`it can be written by users other than its owner (mode ${(stat.mode & 0o777).toString(8)}), so anyone of them could change what the app runs; chmod go-w it`);
  }
}

/** Throws when an archive of `size` bytes may not be read whole. */
function checkWholeRead(size) {
  if (size > WHOLE_READ_LIMIT) {
    throw new Error(`it is ${Math.round(size / (1 << 20))} MB, over the ${WHOLE_READ_LIMIT >> 20} MB an archive is read whole up to (extract mode, or no startup index to read it by)`);
  }
}

module.exports = {
  INDEX_PATH, CACHE_PATH, INDEX_VERSION, RECORD_ENV, SETTLE_ENV, INSTALL_RECORDS, checkStartupIndex, installTreeOf, fileHolds, SUM_KEY, sealHolds, archiveName, escapesRoot, resolutionAllowed, checkArchiveStat, checkWholeRead,
};
