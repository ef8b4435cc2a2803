'use strict';
// The startup archive: a plain ustar file (pax headers only for long or non-ASCII names) that any
// tar can read. The same files give the same bytes: sorted entries, one fixed mtime, normalised
// modes, owner 0/0 with no names, no atime/ctime, so image layers and caches stay stable.
const fs = require('node:fs');
const path = require('node:path');
const { Header, Pax } = require('tar');
const { CommandError } = require('../errors.js');
const { crc32 } = require('node:zlib'); // as archive-format.js and the start side read it
const { makeDir } = require('../make-dir.js');

const ARCHIVE_MTIME = new Date(0);
const BLOCK = 512;
const FLUSH_BYTES = 4 * 1024 * 1024;
const END_MARKER = Buffer.alloc(2 * BLOCK);

/**
 * Where each file's contents lie in the archive, as written in the lead entry: [offset, size,
 * CRC-32 of the contents] by root-relative path. Offsets count
 * from the first byte after the lead entry (its header, data and padding), so the lead's own
 * size never moves them; tailBytes is the archive's length from there to its end. count and
 * bytes cover the app's files (not the generated entries).
 * @typedef {{files: Object<string, [number, number, number]>, count: number, bytes: number,
 *   tailBytes: number}} ArchiveLayout
 */

/**
 * Writes a deterministic tar of `files` (and their parent directories) to `out`, atomically.
 * A symlink is kept as a symlink when its target stays inside root (rewritten as a relative
 * link); one leading out of the root is refused (PACK_PATH_ESCAPES): nothing from outside the
 * root ever enters the archive (manifest.js leaves such files out first). A path that goes
 * through a symlinked directory (node_modules/foo/index.js with node_modules/foo a link) is
 * stored at its real place, plus the link itself, so no entry ever lies below a symlink.
 * @param {object} options
 * @param {string} options.root directory the paths are relative to
 * @param {string[]} options.files posix paths relative to root (sorted here again, duplicates dropped)
 * @param {object[]} [options.prepared] what prepareArchive made of root and files, when the same
 *   files go into more than one archive (each file is then read once)
 * @param {string} options.out archive path to write
 * @param {{path: string, data: Buffer}[]} [options.extraEntries] generated files appended after
 *   the app's files, sorted by path
 * @param {{path: string, data: (layout: ArchiveLayout, tailCrc: number) => Buffer}} [options.leadEntry]
 *   a generated file written first (after its parent directories), made from the layout of
 *   every file entry that follows it and the CRC-32 of every byte after it: a reader that finds
 *   it needs no walk through the rest
 * @returns {{files: number, bytes: number, generatedBytes: number, archiveBytes: number}} files =
 *   file and symlink entries written (extra and lead entries included), bytes = the sum of their
 *   contents, generatedBytes = the part of it in extra and lead entries
 */
function writeArchive({ root, files, prepared = prepareArchive({ root, files }), out, extraEntries = [], leadEntry = null }) {
  const ordered = withGenerated(prepared, extraEntries, leadEntry);
  if (leadEntry) placeLead(ordered, leadEntry);
  const outPath = path.resolve(out);
  makeDir(path.dirname(outPath));
  const tmpPath = path.join(path.dirname(outPath), `.${path.basename(outPath)}.${process.pid}.tmp`);
  // Writable by its owner only, whatever the umask: start does not use an archive others can write.
  const fd = fs.openSync(tmpPath, 'w', 0o644);
  const summary = { files: 0, bytes: 0, generatedBytes: 0, archiveBytes: 0 };
  try {
    const sink = blockSink(fd);
    for (const entry of ordered) {
      for (const block of entry.blocks) sink.write(block);
      if (entry.kind !== 'dir') summary.files += 1;
      if (entry.data) summary.bytes += entry.data.length;
      if (entry.data && entry.generated) summary.generatedBytes += entry.data.length;
    }
    sink.write(END_MARKER);
    summary.archiveBytes = sink.close();
    fs.closeSync(fd);
    fs.renameSync(tmpPath, outPath);
  } catch (err) {
    try { fs.closeSync(fd); } catch { /* already closed */ }
    try { fs.unlinkSync(tmpPath); } catch { /* nothing to clean */ }
    throw err;
  }
  return summary;
}

/**
 * The app's files (and their parent directories) planned, read and encoded once, in archive
 * order, for writeArchive's `prepared`.
 * @param {{root: string, files: string[]}} options
 */
function prepareArchive({ root, files }) {
  return encodeEntries(planEntries(path.resolve(root), files));
}

// The entries in archive order: the app's files and every parent directory sorted together.
function planEntries(rootDir, files) {
  const tree = { rootDir, realRoot: fs.realpathSync(rootDir), realDirs: new Map(), lstats: new Map() };
  const entries = new Map();
  const work = files.map((file) => checkRelative(file, 'file'));
  const visited = new Set();
  while (work.length) {
    const rel = work.pop();
    if (visited.has(rel)) continue;
    visited.add(rel);
    work.push(...symlinkedAncestors(rel, tree));
    const entry = describeEntry(rel, tree);
    if (!entries.has(entry.rel)) entries.set(entry.rel, entry);
  }
  for (const rel of [...entries.keys()]) {
    for (const dir of parentsOf(rel)) {
      if (!entries.has(dir)) entries.set(dir, { rel: dir, kind: 'dir', mode: 0o755 });
    }
  }
  return [...entries.values()].sort(byPath);
}

// The prepared entries, then the extra entries and a placeholder for the lead (with any parent
// directory not yet present), encoded. A new list: prepared is left as it is.
function withGenerated(prepared, extraEntries, leadEntry) {
  const entries = new Map(prepared.map((entry) => [entry.rel, entry]));
  const added = [];
  const generated = leadEntry ? [...extraEntries, { path: leadEntry.path, data: Buffer.alloc(0) }] : extraEntries;
  const extras = generated
    .map((extra) => ({
      rel: checkRelative(extra.path, 'extra entry'), kind: 'file', mode: 0o644, data: Buffer.from(extra.data), generated: true,
    }))
    .sort(byPath);
  for (const extra of extras) {
    if (entries.has(extra.rel)) {
      throw new CommandError(`extra archive entry ${extra.rel} collides with a packed path`, {
        code: 'PACK_DUPLICATE_ENTRY',
      });
    }
    for (const dir of parentsOf(extra.rel)) {
      if (!entries.has(dir)) {
        const entry = { rel: dir, kind: 'dir', mode: 0o755 };
        entries.set(dir, entry);
        added.push(entry);
      }
    }
    entries.set(extra.rel, extra);
    added.push(extra);
  }
  return [...prepared, ...encodeEntries(added)];
}

/** Rejects absolute paths and `..` segments; returns the path without `./`, `//` or trailing `/`. */
function checkRelative(file, what) {
  const text = String(file).replace(/\\/g, '/');
  const segments = text.split('/').filter((s) => s !== '' && s !== '.');
  if (text.startsWith('/') || /^[A-Za-z]:/.test(text) || segments.includes('..') || segments.length === 0) {
    throw new CommandError(`${what} path escapes the app root: ${file}`, { code: 'PACK_PATH_ESCAPES' });
  }
  return segments.join('/');
}

function parentsOf(rel) {
  const parents = [];
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) parents.push(rel.slice(0, i));
  return parents;
}

function byPath(a, b) {
  return a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0;
}

function isInside(parent, child) {
  return child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
}

function toPosix(rel) {
  return rel.split(path.sep).join('/');
}

// The directories along rel that are symlinks: they go into the archive as links.
function symlinkedAncestors(rel, tree) {
  const links = [];
  for (const dir of parentsOf(rel)) {
    let isLink = tree.lstats.get(dir);
    if (isLink === undefined) {
      try {
        isLink = fs.lstatSync(path.join(tree.rootDir, dir)).isSymbolicLink();
      } catch {
        isLink = false; // describeEntry reports the missing path
      }
      tree.lstats.set(dir, isLink);
    }
    if (isLink) links.push(dir);
  }
  return links;
}

// Where rel's directory really is, relative to the real root; refused when outside it.
function realParent(rel, tree) {
  const dir = path.posix.dirname(rel);
  if (dir === '.') return '';
  let real = tree.realDirs.get(dir);
  if (real === undefined) {
    try {
      real = fs.realpathSync(path.join(tree.rootDir, dir));
    } catch (err) {
      throw new CommandError(`cannot pack ${rel}: ${err.code || err.message}`, { code: 'PACK_MISSING_FILE' });
    }
    tree.realDirs.set(dir, real);
  }
  if (!isInside(tree.realRoot, real)) {
    throw new CommandError(`${rel} lies in a directory outside the app root (${real})`, {
      code: 'PACK_PATH_ESCAPES',
    });
  }
  return toPosix(path.relative(tree.realRoot, real));
}

function describeEntry(listed, tree) {
  const dir = realParent(listed, tree);
  const rel = dir ? `${dir}/${path.posix.basename(listed)}` : path.posix.basename(listed);
  const source = path.join(tree.realRoot, rel);
  let stat;
  try {
    stat = fs.lstatSync(source);
  } catch (err) {
    throw new CommandError(`cannot pack ${listed}: ${err.code || err.message}`, { code: 'PACK_MISSING_FILE' });
  }
  if (stat.isDirectory()) return { rel, kind: 'dir', mode: 0o755 };
  if (stat.isFile()) return { rel, kind: 'file', mode: fileMode(stat.mode), source };
  if (stat.isSymbolicLink()) return describeSymlink(rel, source, tree);
  throw new CommandError(`cannot pack ${listed}: not a file, directory or symlink`, {
    code: 'PACK_UNSUPPORTED_TYPE',
  });
}

function describeSymlink(rel, source, tree) {
  const { realRoot } = tree;
  let real = null;
  try {
    real = fs.realpathSync(source);
  } catch {
    // dangling: judged by where the link text points
  }
  const target = real || path.resolve(path.dirname(source), fs.readlinkSync(source));
  if (isInside(realRoot, target)) {
    // Relative to the link's place in the archive, so the tree can be extracted anywhere.
    const targetRel = toPosix(path.relative(realRoot, target)) || '.';
    const linkpath = path.posix.relative(path.posix.dirname(rel), targetRel) || '.';
    return { rel, kind: 'symlink', mode: 0o777, linkpath };
  }
  throw new CommandError(`cannot pack ${rel}: a symlink leading outside the app root (${target})`, {
    code: 'PACK_PATH_ESCAPES',
  });
}

function fileMode(mode) {
  return mode & 0o111 ? 0o755 : 0o644;
}

const TYPES = { file: 'File', dir: 'Directory', symlink: 'SymbolicLink' };

// Reads each file once and turns every entry into the blocks it is written as.
function encodeEntries(ordered) {
  return ordered.map((entry) => {
    const data = entry.kind === 'file' ? entry.data || fs.readFileSync(entry.source) : null;
    return { ...entry, data, ...encodeEntry(entry, data) };
  });
}

function encodeEntry(entry, data) {
  const tarPath = entry.kind === 'dir' ? `${entry.rel}/` : entry.rel;
  const header = new Header({
    path: tarPath,
    mode: entry.mode,
    uid: 0,
    gid: 0,
    size: data ? data.length : 0,
    mtime: ARCHIVE_MTIME,
    type: TYPES[entry.kind],
    linkpath: entry.linkpath,
    uname: '',
    gname: '',
  });
  const blocks = [];
  if (header.encode()) {
    // Names that do not fit ustar travel in a pax header carrying only path and linkpath.
    blocks.push(new Pax({ path: tarPath, linkpath: entry.linkpath }).encode());
  }
  blocks.push(header.block);
  const headBytes = blocks.reduce((sum, b) => sum + b.length, 0);
  if (data && data.length) {
    blocks.push(data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) blocks.push(Buffer.alloc(pad));
  }
  return { blocks, headBytes, totalBytes: headBytes + (data ? paddedLength(data.length) : 0) };
}

// Moves the lead entry (and its parent directories) to the front, then fills it in from the
// layout of everything after it.
function placeLead(ordered, leadEntry) {
  const leadRel = checkRelative(leadEntry.path, 'lead entry');
  const front = new Set([...parentsOf(leadRel), leadRel]);
  const head = ordered.filter((entry) => front.has(entry.rel)).sort(byPath); // parents first
  const rest = ordered.filter((entry) => !front.has(entry.rel));
  const layout = { files: {}, count: 0, bytes: 0, tailBytes: 0 };
  let offset = 0;
  for (const entry of rest) {
    if (entry.kind === 'file') {
      layout.files[entry.rel] = [offset + entry.headBytes, entry.data.length, crc32(entry.data)];
      if (!entry.generated) {
        layout.count += 1;
        layout.bytes += entry.data.length;
      }
    }
    offset += entry.totalBytes;
  }
  layout.tailBytes = offset + END_MARKER.length;
  let tailCrc = 0;
  for (const entry of rest) for (const block of entry.blocks) tailCrc = crc32(block, tailCrc);
  tailCrc = crc32(END_MARKER, tailCrc);
  const lead = head.find((entry) => entry.rel === leadRel);
  lead.data = Buffer.from(leadEntry.data(layout, tailCrc));
  Object.assign(lead, encodeEntry(lead, lead.data));
  ordered.splice(0, ordered.length, ...head, ...rest);
}

function paddedLength(length) {
  return Math.ceil(length / BLOCK) * BLOCK;
}

// Batches small header and padding buffers into few write calls.
function blockSink(fd) {
  let pending = [];
  let pendingBytes = 0;
  let total = 0;
  const flush = () => {
    const written = pending.length ? fs.writevSync(fd, pending) : 0;
    if (written < pendingBytes) {
      // a short write: finish it with plain writes
      const rest = Buffer.concat(pending).subarray(written);
      for (let off = 0; off < rest.length;) off += fs.writeSync(fd, rest, off);
    }
    pending = [];
    pendingBytes = 0;
  };
  return {
    write(buffer) {
      pending.push(buffer);
      pendingBytes += buffer.length;
      total += buffer.length;
      if (pendingBytes >= FLUSH_BYTES || pending.length >= 512) flush();
    },
    close() {
      flush();
      return total;
    },
  };
}

module.exports = { writeArchive, prepareArchive };
