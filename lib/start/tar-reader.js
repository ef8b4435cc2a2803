'use strict';
// A small tar reader over one Buffer, for the container's critical path: no streams, no copies
// (file data are slices of the archive). Reads ustar, pax ('x') and GNU long names ('L', 'K'),
// which covers what the tar package and GNU tar write.

const { BLOCK, corrupt, checkHeader, readOctal, readSize, cString, isZeroBlock } = require('./tar-header.js');

const TYPES = {
  0: 'file', // '\0': pre-POSIX regular file
  0x30: 'file', // '0'
  0x37: 'file', // '7' contiguous file
  0x31: 'link', // '1' hard link
  0x32: 'symlink', // '2'
  0x35: 'dir', // '5'
};

/**
 * Walks the entries of a tar held in memory. Throws an Error with code ARCHIVE_CORRUPT
 * on a bad checksum, a truncated entry or a malformed pax record.
 * @param {Buffer} buffer the whole archive
 * @returns {Generator<{path: string, type: 'file'|'dir'|'symlink'|'link'|'other', mode: number,
 *   data: Buffer, linkpath: string|undefined, end: number}>} `link` is a hard link to an earlier
 *   entry named by linkpath; `other` covers devices and fifos; `end` is the offset in buffer
 *   just past the entry's padded data
 */
function* readTarEntries(buffer) {
  let offset = 0;
  let pending = {}; // path, linkpath, size carried by pax / GNU headers to the next entry
  if (buffer.length === 0) corrupt('the file is empty');
  while (offset + BLOCK <= buffer.length) {
    const header = offset;
    if (isZeroBlock(buffer, header)) return;
    checkHeader(buffer, header);
    const typeByte = buffer[header + 156];
    const isMeta = typeByte === 0x78 || typeByte === 0x67 || typeByte === 0x4c || typeByte === 0x4b;
    const size = pending.size !== undefined && !isMeta ? pending.size : readSize(buffer, header);
    const dataStart = header + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > buffer.length) corrupt(`entry at offset ${header} runs past the end of the archive`);
    const data = buffer.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (typeByte === 0x78 /* x */) {
      pending = { ...pending, ...parsePax(data, dataStart) };
      continue;
    }
    if (typeByte === 0x67 /* g */) continue; // global pax defaults: nothing we use
    if (typeByte === 0x4c /* L */) {
      pending.path = cString(data, 0, data.length);
      continue;
    }
    if (typeByte === 0x4b /* K */) {
      pending.linkpath = cString(data, 0, data.length);
      continue;
    }

    const type = TYPES[typeByte] || 'other';
    const path = pending.path !== undefined ? pending.path
      : joinPrefix(buffer, header, cString(buffer, header, 100));
    const linkpath = pending.linkpath !== undefined ? pending.linkpath
      : type === 'symlink' || type === 'link' ? cString(buffer, header + 157, 100)
        : undefined;
    pending = {};
    yield { path, type, mode: readOctal(buffer, header + 100, 8) & 0o7777, data, linkpath, end: offset };
  }
  if (offset < buffer.length || Object.keys(pending).length) {
    corrupt(`archive ends inside a header at offset ${offset}`);
  }
}

// ustar ('ustar\0') keeps a directory prefix at 345; GNU ('ustar  ') uses that space for other fields.
function joinPrefix(buffer, offset, name) {
  if (buffer[offset + 257] !== 0x75 || buffer.toString('latin1', offset + 257, offset + 263) !== 'ustar\0') {
    return name;
  }
  const prefix = cString(buffer, offset + 345, 155);
  return prefix ? `${prefix}/${name}` : name;
}

// Records are "<length> <key>=<value>\n", the length counting the whole record.
function parsePax(data, at) {
  const fields = {};
  let pos = 0;
  while (pos < data.length) {
    if (data[pos] === 0) break; // padding
    let space = pos;
    while (space < data.length && data[space] !== 0x20) space++;
    const length = Number(data.toString('latin1', pos, space));
    if (!Number.isInteger(length) || length <= 0 || pos + length > data.length || space >= pos + length) {
      corrupt(`bad pax record at offset ${at + pos}`);
    }
    const record = data.toString('utf8', space + 1, pos + length - 1);
    const eq = record.indexOf('=');
    if (eq === -1) corrupt(`bad pax record at offset ${at + pos}`);
    const key = record.slice(0, eq);
    const value = record.slice(eq + 1);
    if (key === 'path' || key === 'linkpath') fields[key] = value;
    else if (key === 'size') {
      const size = Number(value);
      if (!Number.isSafeInteger(size) || size < 0) corrupt(`bad pax size at offset ${at + pos}`);
      fields.size = size;
    }
    pos += length;
  }
  return fields;
}

module.exports = { readTarEntries, readSize, BLOCK };
