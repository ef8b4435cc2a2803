'use strict';
// Reading a startup archive (lib/archive-format.js) for memory mode. Pack writes the index as the
// first file entry, with the offset and size of every file entry after it: `start` reads the
// archive by it in chunks of whole files, checks each file against the size in its own tar header
// and the whole archive against its seal (sealHolds) before anything is served. An archive re-made
// by another tool is read whole and walked instead (walk-archive.js).
const fs = require('node:fs');
const { crc32 } = require('node:zlib');
const { readLeadEntry, readSize, BLOCK } = require('./tar-header.js');
const {
  INDEX_PATH, INDEX_VERSION, CACHE_PATH, checkStartupIndex, sealHolds, checkArchiveStat, checkWholeRead,
} = require('../archive-format.js');

// Memory mode reads pack's archives through one buffer of this size, reused (readInChunks).
const CHUNK_BYTES = 4 << 20;
// The largest startup index read (a 1000-module app's is about 200 kB).
const INDEX_LIMIT = 8 << 20;

/** The index is unusable: its shape, its version or the archive's seal. */
class IndexError extends Error {}

// The index, checked once against its schema before anything in it is used.
function readIndex(data) {
  if (data.length > INDEX_LIMIT) throw new IndexError(`is ${Math.round(data.length / (1 << 20))} MB, over the ${INDEX_LIMIT >> 20} MB an index is read up to`);
  const index = JSON.parse(data.toString('utf8'));
  const problem = checkStartupIndex(index);
  if (problem) throw new IndexError(`is malformed (${problem})`);
  if (index.version !== INDEX_VERSION) {
    throw new IndexError(`is version ${JSON.stringify(index.version)}, this coldstart reads ${INDEX_VERSION} (re-run coldstart pack)`);
  }
  return index;
}

/**
 * Memory mode's read of an archive file. Pack's archives are read in chunks of whole files through
 * one reused buffer (readInChunks); any other archive (made by hand, or re-made by another tool) is
 * read whole and walked. Throws IndexError for an index that cannot be used, and the tar reader's
 * error for a corrupt tar.
 * @param {string} file
 * @param {(rel: string) => void} onMismatch told of each file whose bytes are not what pack recorded
 * @returns {{files: ReturnType<typeof heldFiles>, index: object|null, codeCache: Buffer|null,
 *   refused: string[], packedAtMs: number}} packedAtMs: when the archive was written (a packed
 *   file modified later has changed)
 */
function readArchive(file, onMismatch) {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK); // a FIFO must not block the start
  try {
    const stat = fs.fstatSync(fd);
    checkArchiveStat(stat);
    const { size, mtimeMs } = stat;
    let found = readInChunks(fd, size, onMismatch);
    if (!found) {
      checkWholeRead(size);
      found = require('./walk-archive.js').walkArchive(readAt(fd, 0, size), onMismatch, readIndex);
    }
    return { ...found, packedAtMs: mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

function readAt(fd, position, length, into = Buffer.allocUnsafeSlow(length)) {
  for (let done = 0; done < length;) {
    const read = fs.readSync(fd, into, done, length - done, position + done);
    if (read === 0) throw new Error('it is shorter than it was a moment ago');
    done += read;
  }
  return into.subarray(0, length);
}

/**
 * A pack archive read without a buffer as large as itself: under gVisor each fresh page costs
 * 3–4.5 µs to fault in, and the sources are decoded into fresh memory anyway. The index first; then
 * chunks of whole files (header, data, padding) through one reused buffer: each chunk is added to
 * the seal's CRC-32, the ASCII sources of modules with a code cache are wrapped where they lie and
 * decoded together (code-cache.js wrapInPlace), every other file is copied out; the code cache and
 * any file larger than a chunk are read into buffers of their own. Null when the archive has no
 * index or layout to read it by, or an index too large for its first 8 MB.
 */
function readInChunks(fd, size, onMismatch) {
  let lead = null;
  for (let length = Math.min(size, 1 << 20); !lead; length *= 8) {
    try {
      lead = readLeadEntry(readAt(fd, 0, Math.min(size, length)));
    } catch {
      if (length >= size || length >= INDEX_LIMIT) return null; // read whole: walked, or said corrupt there
      continue;
    }
    if (!lead) return null;
  }
  if (lead.path !== INDEX_PATH) return null;
  const index = readIndex(lead.data);
  const { layout } = index;
  if (!layout || typeof layout.files !== 'object' || size - lead.end !== layout.tailBytes) return null;
  const wrapInPlace = index.codeCache ? require('./code-cache.js').wrapInPlace : null;
  const toBeWrapped = (rel) => wrapInPlace && index.formats[rel] === 'commonjs' && Object.hasOwn(index.codeCache.entries, rel);
  const held = new Map(); // rel -> its bytes; null where they are not what the layout says
  const sources = new Map(); // rel -> a wrapped source (code-cache.js wrapInPlace)
  const placed = Object.entries(layout.files).map(([rel, [offset, length]]) => [rel, lead.end + offset, length])
    .sort((a, b) => a[1] - b[1]);
  let buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  let tailCrc = 0;
  for (let from = lead.end, i = 0; from < size;) {
    // A file whose header lies in bytes already read is not where pack puts files.
    while (i < placed.length && placed[i][1] - BLOCK < from) held.set(placed[i++][0], null);
    // The files from i on whose header, data and padding fit in a chunk (one, however large).
    let j = i;
    while (j < placed.length && (j === i || padEnd(placed[j]) - from <= CHUNK_BYTES)) j++;
    const to = Math.min(size, j === placed.length ? size : Math.max(placed[j][1] - BLOCK, padEnd(placed[j - 1])));
    const own = j === i + 1 && to - from > CHUNK_BYTES && !toBeWrapped(placed[i][0]); // the code cache, a large file
    if (!own && buffer.length < to - from) buffer = Buffer.allocUnsafeSlow(to - from);
    const chunk = readAt(fd, from, to - from, own ? undefined : buffer);
    tailCrc = crc32(chunk, tailCrc);
    const wrapping = [];
    for (; i < j; i++) {
      const [rel, at, length] = placed[i];
      const start = at - from;
      if (start + length > chunk.length || readSizeOr(chunk, start - BLOCK) !== length) held.set(rel, null);
      else if (toBeWrapped(rel)) wrapping.push([rel, start, length]);
      else held.set(rel, own ? chunk.subarray(start, start + length) : Buffer.from(chunk.subarray(start, start + length)));
    }
    for (const source of wrapping.length ? wrapInPlace(chunk, wrapping) : []) sources.set(source.rel, source);
    // Those it would not wrap (UTF-8, a hashbang, no room for the wrapper) are copied out as they are.
    for (const [rel, start, length] of wrapping) if (!sources.has(rel)) held.set(rel, Buffer.from(chunk.subarray(start, start + length)));
    from = to;
  }
  if (!sealHolds(lead.data, tailCrc)) {
    throw new IndexError('does not match the checksum of the archive (corrupt, or changed after packing)');
  }
  return { files: heldFiles(layout, held, sources, onMismatch), index, codeCache: held.get(CACHE_PATH) || null, refused: [] };
}

// Where a placed file's padding ends.
function padEnd([, at, length]) {
  return at + Math.ceil(length / BLOCK) * BLOCK;
}

function readSizeOr(buffer, offset) {
  try {
    return readSize(buffer, offset);
  } catch {
    return -1;
  }
}

/**
 * readInChunks's files, by root-relative path like a Map (has, get), with `size(rel)` and `wrapped(rel)`:
 * the wrapped source of a module with a code cache, whose bytes are made from it only if asked for.
 */
function heldFiles(layout, held, sources, onMismatch) {
  const hidden = new Set([INDEX_PATH, CACHE_PATH]);
  const view = {
    count: layout.count,
    bytes: layout.bytes,
    mismatched: 0,
    has: (rel) => Object.hasOwn(layout.files, rel) && !hidden.has(rel),
    get(rel) {
      if (!view.has(rel)) return undefined;
      let data = held.get(rel);
      if (data === undefined && sources.has(rel)) {
        const { text, sourceStart, sourceEnd } = sources.get(rel);
        held.set(rel, data = Buffer.from(text.slice(sourceStart, sourceEnd), 'latin1'));
      }
      if (data === null) {
        view.mismatched += 1;
        onMismatch(rel);
        held.set(rel, false);
      }
      return data || undefined;
    },
    size: (rel) => (sources.has(rel) ? layout.files[rel][1] : view.get(rel)?.length),
    wrapped(rel) {
      const source = sources.get(rel);
      return source && source.text.slice(source.start, source.end);
    },
  };
  return view;
}

module.exports = { readArchive, IndexError, readIndex };
