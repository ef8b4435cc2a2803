'use strict';
// A startup archive without pack's layout (made by hand, or re-made by another tool) is walked
// once; where its index still lists a file, the file's bytes are checked against the size and
// CRC-32 pack recorded when first asked for. Loaded only for such archives.
const { crc32 } = require('node:zlib');
const { readTarEntries } = require('./tar-reader.js');
const { INDEX_PATH, CACHE_PATH, archiveName, escapesRoot } = require('../archive-format.js');

// Any other tar: every entry is read once, into a Map behind the same has/get as the layout.
// readIndex is archive-reader.js's, handed in: that file loads this one, only for such archives.
function walkArchive(buffer, onMismatch, readIndex) {
  const found = new Map();
  let index = null;
  let codeCache = null;
  const refused = [];
  for (const entry of readTarEntries(buffer)) {
    if (entry.type !== 'file') continue;
    const name = archiveName(entry.path);
    if (name === INDEX_PATH) {
      index = readIndex(entry.data);
      continue;
    }
    if (name === CACHE_PATH) {
      codeCache = entry.data;
      continue;
    }
    if (escapesRoot(name)) {
      refused.push(entry.path);
      continue;
    }
    found.set(name, entry.data);
  }
  const sums = index && index.layout ? index.layout.files : null;
  if (codeCache && sums && Object.hasOwn(sums, CACHE_PATH)) {
    codeCache = walkedFiles(new Map([[CACHE_PATH, codeCache]]), sums, onMismatch).get(CACHE_PATH) || null;
  }
  return { files: walkedFiles(found, sums, onMismatch), index, codeCache, refused };
}

/**
 * The files of an archive that had to be walked (re-made by another tool), behind the same
 * has/get as archive-reader.js gives pack's archives. Where the index still lists a file, its bytes are checked against
 * the recorded size and CRC-32 when first asked for.
 * @param {Map<string, Buffer>} found root-relative path -> data
 * @param {Object<string, [number, number, number]>|null} sums the index's layout.files, if any
 * @param {(rel: string) => void} onMismatch
 */
function walkedFiles(found, sums, onMismatch) {
  let bytes = 0;
  for (const data of found.values()) bytes += data.length;
  const checked = new Set();
  const view = {
    count: found.size,
    bytes,
    mismatched: 0,
    has: (rel) => found.has(rel),
    get(rel) {
      const data = found.get(rel);
      if (data === undefined || !sums || checked.has(rel) || !Object.hasOwn(sums, rel)) return data;
      const [, size, sum] = sums[rel];
      if (data.length === size && crc32(data) === sum) {
        checked.add(rel);
        return data;
      }
      found.delete(rel);
      view.mismatched += 1;
      onMismatch(rel);
      return undefined;
    },
  };
  return view;
}

module.exports = { walkArchive };
