'use strict';
// Writes an archive's files with as few system calls as possible: under gVisor every call is
// expensive. A new file costs open + write + close; no chown, utimes or stat per entry.
// Existing files are replaced through a temp file and rename, so an interrupted extraction
// (disk full) never leaves a half-written file where the app expects a whole one. Nothing is
// ever written through a symlink that was already on disk: a directory on the way that turns
// out to be a link (`cachedir -> /elsewhere`) is not entered, and what lies below it is skipped.
const fs = require('node:fs');
const path = require('node:path');
const { readTarEntries } = require('./tar-reader.js');
const { readLeadEntry } = require('./tar-header.js');

// What pack generates for start itself (the startup index, the code cache) is not the app's:
// never written into the app's directory.
const { INDEX_PATH, CACHE_PATH, sealHolds } = require('../archive-format.js');

const GENERATED = new Set([INDEX_PATH, CACHE_PATH, path.dirname(INDEX_PATH)]);

const { O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL;
const CREATE_TEMP = O_WRONLY | O_CREAT | O_EXCL;

/**
 * Extracts a tar held in memory into intoDir. The whole archive is parsed before anything is
 * written, so a corrupt archive writes nothing. Unsafe entries (absolute paths, `..` segments,
 * symlinks leaving intoDir, entries below an archived symlink) are skipped and listed in refused;
 * entries whose way goes through a symlink or a file already in intoDir are skipped and listed
 * in throughLinks. Symlinks are created last. Throws on I/O failure (read-only or full target).
 * @param {Buffer} buffer the archive
 * @param {string} intoDir target directory, created when missing
 * @returns {{files: number, bytes: number, ms: number, refused: string[], throughLinks: string[],
 *   damaged: string[]}} files counts files, symlinks and hard links written; bytes the file
 *   contents; damaged: files of a re-made pack archive whose bytes are not what pack recorded
 */
function extractArchive(buffer, intoDir) {
  const started = performance.now();
  const sealed = checkSeal(buffer);
  const root = path.resolve(intoDir);
  const refused = [];
  const throughLinks = [];
  const damaged = [];
  const entries = Array.from(readTarEntries(buffer));
  // A pack archive re-made by another tool (its index no longer first, the seal gone): each file is
  // written only when its bytes are those pack recorded in the index it still holds.
  const recorded = sealed ? null : recordedSums(entries);
  const { crc32 } = require('node:zlib');
  const ordered = planEntries(entries, refused).filter((entry) => {
    if (!recorded || entry.type !== 'file' || recorded.get(entry.rel) === crc32(entry.data)) return true;
    damaged.push(entry.rel);
    return false;
  });

  fs.mkdirSync(root, { recursive: true });
  // Directories known to be real ones (made here, or found so), and those found not to be.
  const dirs = { known: new Set(['']), blocked: new Set() };
  const state = { replacing: false };
  let files = 0;
  let bytes = 0;
  for (const entry of ordered) {
    const target = `${root}/${entry.rel}`;
    if (!enterParents(root, entry.rel, dirs)) {
      throughLinks.push(entry.rel);
      continue;
    }
    if (entry.type === 'dir') {
      if (!enterDir(root, entry.rel, dirs, entry.mode)) throughLinks.push(entry.rel);
      continue;
    }
    if (entry.type === 'symlink') {
      makeSymlink(target, entry.linkpath);
    } else {
      writeFile(target, entry.data, fileMode(entry.mode), state);
      bytes += entry.data.length;
    }
    files += 1;
  }
  return { files, bytes, ms: Math.round((performance.now() - started) * 10) / 10, refused, throughLinks, damaged };
}

/** The crc32 pack recorded for each file (rel -> sum) when the archive holds pack's index; else null. */
function recordedSums(entries) {
  const index = entries.find((entry) => safeRelative(entry.path) === INDEX_PATH && entry.type === 'file');
  if (!index) return null;
  let files;
  try {
    files = JSON.parse(index.data.toString('utf8')).layout.files;
  } catch {
    throw new Error('its startup index cannot be read (damaged, or changed after packing): nothing written');
  }
  return new Map(Object.entries(files || {}).map(([rel, [, , sum]]) => [rel, sum]));
}

// A pack archive carries a seal over all its bytes (archive-format.js): a damaged or altered one
// writes nothing over the app's files. True when it held; false for an archive that has none.
function checkSeal(buffer) {
  const lead = readLeadEntry(buffer);
  if (!lead || lead.path !== INDEX_PATH) return false;
  const { crc32 } = require('node:zlib');
  if (!sealHolds(lead.data, crc32(buffer.subarray(lead.end)))) {
    throw new Error('it does not match its checksum (corrupt, or changed after packing): nothing written');
  }
  return true;
}

// Decides what to write, in which order (symlinks last), and what to refuse; touches nothing on disk.
function planEntries(entries, refused) {
  const accepted = [];
  const symlinks = new Set();
  const fileData = new Map();
  for (const entry of entries) {
    const rel = safeRelative(entry.path);
    if (rel === '' || GENERATED.has(rel)) continue; // the root directory itself, pack's own entries
    if (rel === null) {
      refused.push(entry.path);
      continue;
    }
    if (entry.type === 'symlink') {
      if (!symlinkStaysInside(rel, entry.linkpath)) {
        refused.push(entry.path);
        continue;
      }
      symlinks.add(rel);
    } else if (entry.type === 'link') {
      // A hard link gets its own copy of the earlier file's content.
      const source = fileData.get(safeRelative(entry.linkpath || ''));
      if (!source) {
        refused.push(entry.path);
        continue;
      }
      accepted.push({ rel, type: 'file', mode: source.mode, data: source.data });
      continue;
    } else if (entry.type === 'file') {
      fileData.set(rel, entry);
    } else if (entry.type !== 'dir') {
      continue; // devices, fifos: never part of an app's startup files
    }
    accepted.push({ rel, type: entry.type, mode: entry.mode, data: entry.data, linkpath: entry.linkpath });
  }

  const ordered = [];
  const deferred = [];
  for (const entry of accepted) {
    // Writing below a symlink from the archive could land anywhere: refuse it.
    if (symlinks.size && belowSymlink(entry.rel, symlinks)) refused.push(entry.rel);
    else if (entry.type === 'symlink') deferred.push(entry);
    else ordered.push(entry);
  }
  return ordered.concat(deferred);
}

// '' for the root, null when unsafe, else the path without './', '//' or a trailing '/'.
function safeRelative(name) {
  if (name.startsWith('/') || name.includes('\0')) return null;
  const segments = name.split('/');
  let clean = true;
  for (const segment of segments) {
    if (segment === '..') return null;
    if (segment === '' || segment === '.') clean = false;
  }
  return clean ? name : segments.filter((s) => s !== '' && s !== '.').join('/');
}

// Only targets of the form '../../a/b' climbing no higher than intoDir: a '..' after a name could
// climb out through another symlink, so it is refused even when the text looks harmless.
function symlinkStaysInside(rel, linkpath) {
  if (!linkpath || linkpath.startsWith('/')) return false;
  let depth = rel.split('/').length - 1;
  let descended = false;
  for (const segment of linkpath.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (descended || depth === 0) return false;
      depth -= 1;
    } else {
      descended = true;
    }
  }
  return true;
}

function belowSymlink(rel, symlinks) {
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) {
    if (symlinks.has(rel.slice(0, i))) return true;
  }
  return false;
}

function fileMode(mode) {
  return mode & 0o111 ? 0o755 : 0o644;
}

// Makes (or finds) every directory above rel, top down, each once. Archives without directory
// entries (tar -T list) still extract. False when one of them is a symlink or a file on disk.
function enterParents(root, rel, dirs) {
  const slash = rel.lastIndexOf('/');
  if (slash === -1 || dirs.known.has(rel.slice(0, slash))) return true;
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) {
    if (!enterDir(root, rel.slice(0, i), dirs, 0o755)) return false;
  }
  return true;
}

// A new directory is ours; an existing one is entered only when lstat says it is a real one.
function enterDir(root, rel, dirs, mode) {
  if (dirs.known.has(rel)) return true;
  if (dirs.blocked.has(rel)) return false;
  const target = `${root}/${rel}`;
  try {
    fs.mkdirSync(target, (mode & 0o777) | 0o700);
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    if (!fs.lstatSync(target).isDirectory()) {
      dirs.blocked.add(rel);
      return false;
    }
  }
  dirs.known.add(rel);
  return true;
}

// Over an existing tree (in-place extraction) nearly every file exists: after the first one,
// go straight to temp + rename instead of paying a failed open and an exception per file.
function writeFile(target, data, mode, state) {
  if (state.replacing) {
    replaceFile(target, data, mode);
    return;
  }
  let fd;
  try {
    fd = fs.openSync(target, CREATE_NEW, mode);
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    state.replacing = true;
    replaceFile(target, data, mode);
    return;
  }
  try {
    writeAll(fd, data);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(target, { force: true });
    throw err;
  }
  fs.closeSync(fd);
}

function replaceFile(target, data, mode) {
  const temp = `${target}.coldstart-${process.pid}`;
  try {
    const fd = openTemp(temp, mode);
    try {
      writeAll(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

// O_EXCL: whatever sits at the temp name (a link left by someone else) is removed, never followed.
function openTemp(temp, mode) {
  try {
    return fs.openSync(temp, CREATE_TEMP, mode);
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    fs.rmSync(temp, { force: true });
    return fs.openSync(temp, CREATE_TEMP, mode);
  }
}

function writeAll(fd, data) {
  for (let off = 0; off < data.length;) off += fs.writeSync(fd, data, off, data.length - off);
}

function makeSymlink(target, linkpath) {
  try {
    fs.symlinkSync(linkpath, target);
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
    const temp = `${target}.coldstart-${process.pid}`;
    try {
      fs.symlinkSync(linkpath, temp);
      fs.renameSync(temp, target);
    } catch (replaceErr) {
      fs.rmSync(temp, { force: true });
      throw replaceErr;
    }
  }
}

module.exports = { extractArchive };
