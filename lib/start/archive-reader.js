'use strict';
// Finding files in a startup archive (lib/archive-format.js) without walking it. Pack writes the
// index as the first file entry, with the offset and size of every file entry after it;
// `start` checks the layout fits the buffer it read, then slices files out only when the app
// asks for them. Each slice is checked once against the size in its own tar header; the bytes
// themselves are covered by the archive's seal, checked once before anything is served
// (sealHolds). An archive re-made by another tool is walked instead (walk-archive.js).
const { readTarEntries, readSize } = require('./tar-reader.js');
const {
  INDEX_PATH, INDEX_VERSION, CACHE_PATH, checkStartupIndex, sealHolds, archiveName,
} = require('../archive-format.js');

const BLOCK = 512;

/** The index is unusable: its shape, its version or the archive's seal. */
class IndexError extends Error {}

/**
 * The files, index and code cache of an archive already read into memory. Pack's archives are
 * opened through their index; any other tar (made by hand, or re-made by another tool) is walked
 * once. Throws IndexError for an index that cannot be used, and the tar reader's error for a
 * corrupt tar.
 * @param {Buffer} buffer
 * @param {(rel: string) => void} onMismatch told of each file whose bytes are not what pack recorded
 * @returns {{files: ReturnType<typeof archiveFiles>, index: object|null, codeCache: Buffer|null, refused: string[]}}
 */
function openArchive(buffer, onMismatch) {
  return openLaidOut(buffer, onMismatch) || require('./walk-archive.js').walkArchive(buffer, onMismatch);
}

// The index, checked once against its schema before anything in it is used.
function readIndex(data) {
  const index = JSON.parse(data.toString('utf8'));
  const problem = checkStartupIndex(index);
  if (problem) throw new IndexError(`is malformed (${problem})`);
  if (index.version !== INDEX_VERSION) {
    throw new IndexError(`is version ${JSON.stringify(index.version)}, this coldstart reads ${INDEX_VERSION} (re-run coldstart pack)`);
  }
  return index;
}

// An archive from `coldstart pack`: its first file is the index, with the layout of the rest.
function openLaidOut(buffer, onMismatch) {
  const lead = readLeadEntry(buffer);
  if (!lead || lead.path !== INDEX_PATH) return null;
  const index = readIndex(lead.data);
  const files = archiveFiles(buffer, lead.end, index.layout, new Set([INDEX_PATH, CACHE_PATH]), onMismatch);
  if (!files) return null;
  // One CRC-32 over the whole archive: measured cheaper than one per file (BENCHMARKS.md).
  if (!sealHolds(lead.data, buffer.subarray(lead.end))) {
    throw new IndexError('does not match the checksum of the archive (corrupt, or changed after packing)');
  }
  return { files, index, codeCache: files.generated(CACHE_PATH) || null, refused: [] };
}

/**
 * The archive's first file entry (directories before it are skipped) and the offset of the
 * bytes after it. Null when the first non-directory entry is not a regular file.
 * @param {Buffer} buffer the whole archive
 * @returns {{path: string, data: Buffer, end: number}|null}
 */
function readLeadEntry(buffer) {
  for (const entry of readTarEntries(buffer)) {
    if (entry.type === 'dir') continue;
    if (entry.type !== 'file') return null;
    return { path: archiveName(entry.path), data: entry.data, end: entry.end };
  }
  return null;
}

/**
 * The files of a laid-out archive, looked up by root-relative path like a Map.
 * @param {Buffer} buffer the whole archive
 * @param {number} base where the layout's offsets count from (the end of the lead entry)
 * @param {import('../pack/archive.js').ArchiveLayout} layout checked by checkStartupIndex
 * @param {Set<string>} [hidden] generated entries that are not app files
 * @param {(rel: string) => void} [onMismatch] told of each file whose tar header disagrees with the layout
 * @returns {{has(rel: string): boolean, get(rel: string): Buffer|undefined,
 *   generated(rel: string): Buffer|undefined, count: number, bytes: number, mismatched: number}|null}
 *   null when the layout does not fit
 */
function archiveFiles(buffer, base, layout, hidden = new Set(), onMismatch = () => {}) {
  if (!layout || typeof layout.files !== 'object' || buffer.length - base !== layout.tailBytes) return null;
  const entries = layout.files;
  const slices = new Map();
  const view = {
    count: layout.count,
    bytes: layout.bytes,
    mismatched: 0,
    has(rel) {
      return Object.hasOwn(entries, rel) && !hidden.has(rel);
    },
    get(rel) {
      let data = slices.get(rel);
      if (data !== undefined) return data || undefined;
      data = null;
      if (view.has(rel)) data = slice(rel);
      slices.set(rel, data);
      return data || undefined;
    },
    // Generated entries by name (the code cache), which has() and get() keep out of the app's files.
    generated(rel) {
      return (hidden.has(rel) && Object.hasOwn(entries, rel) && slice(rel)) || undefined;
    },
  };
  function slice(rel) {
    const [offset, size] = entries[rel];
    const start = base + offset;
    if (!Number.isSafeInteger(start) || start < base + BLOCK || start + size > buffer.length) return mismatch(rel);
    let stored;
    try {
      stored = readSize(buffer, start - BLOCK);
    } catch {
      return mismatch(rel);
    }
    if (stored !== size) return mismatch(rel);
    return buffer.subarray(start, start + size);
  }
  function mismatch(rel) {
    view.mismatched += 1;
    onMismatch(rel);
    return null;
  }
  return view;
}

module.exports = { openArchive, IndexError, readIndex, readLeadEntry, archiveFiles };
