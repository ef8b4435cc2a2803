'use strict';
// Finding files in a startup archive without walking it. Pack writes the index as the first
// file entry, with the offset and size of every file entry after it (archive.js, leadEntry);
// `start` checks the layout fits the buffer it read, then slices files out only when the app
// asks for them. Each slice is checked once against the size in its own tar header, so an
// archive re-made by another tool is never misread: its files are simply not served.
const { readTarEntries, readSize } = require('./tar-reader.js');

const BLOCK = 512;

/** An entry's path as pack wrote it: archives re-made with `tar -C dir .` prefix `./`. */
function archiveName(entryPath) {
  return entryPath.replace(/^(\.\/)+/, '');
}

/** Whether a root-relative archive path would lead outside the root (absolute, or `..`). */
function escapesRoot(rel) {
  return typeof rel !== 'string' || rel.startsWith('/') || rel.split('/').includes('..');
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
 * @param {import('./archive.js').ArchiveLayout} layout
 * @param {Set<string>} [hidden] generated entries that are not app files
 * @returns {{has(rel: string): boolean, get(rel: string): Buffer|undefined,
 *   generated(rel: string): Buffer|undefined, count: number, bytes: number, mismatched: number}|null}
 *   null when the layout does not fit
 */
function archiveFiles(buffer, base, layout, hidden = new Set()) {
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
    if (!Number.isSafeInteger(start) || start < base + BLOCK || start + size > buffer.length) return mismatch();
    let stored;
    try {
      stored = readSize(buffer, start - BLOCK);
    } catch {
      return mismatch();
    }
    if (stored !== size) return mismatch();
    return buffer.subarray(start, start + size);
  }
  function mismatch() {
    view.mismatched += 1;
    return null;
  }
  return view;
}

module.exports = { readLeadEntry, archiveFiles, archiveName, escapesRoot };
