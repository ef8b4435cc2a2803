'use strict';
// The fields of a tar header that every start reads: the checksum, the size and the type. The
// lead entry of pack's archives (directories, then the startup index) has plain ustar headers, so
// memory mode reads it with these alone; any other archive is walked by tar-reader.js.

const { archiveName } = require('../archive-format.js');

const BLOCK = 512;
const DIR = 0x35; // '5'
const FILE = new Set([0, 0x30, 0x37]); // '\0' (pre-POSIX), '0', '7' (contiguous)

function corrupt(message) {
  // start turns it into one warning line, so it needs no exit code
  throw Object.assign(new Error(`corrupt archive: ${message}`), { code: 'ARCHIVE_CORRUPT' });
}

// The stored checksum counts its own field as spaces; some old tars summed signed bytes.
function checkHeader(buffer, offset) {
  const stored = readOctal(buffer, offset + 148, 8);
  let unsigned = 8 * 0x20;
  let signed = 8 * 0x20;
  for (let i = offset; i < offset + BLOCK; i++) {
    if (i === offset + 148) { i += 7; continue; }
    const byte = buffer[i];
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  if (stored !== unsigned && stored !== signed) {
    corrupt(`bad header checksum at offset ${offset}`);
  }
}

function readOctal(buffer, start, length) {
  let value = 0;
  let seen = false;
  for (let i = start; i < start + length; i++) {
    const byte = buffer[i];
    if (byte >= 0x30 && byte <= 0x37) {
      value = value * 8 + (byte - 0x30);
      seen = true;
    } else if (byte === 0 || byte === 0x20) {
      if (seen) break;
    } else {
      corrupt(`bad number field at offset ${start}`);
    }
  }
  return value;
}

// Sizes of 8 GiB and more are stored in base-256 with the high bit of the first byte set.
function readSize(buffer, offset) {
  const start = offset + 124;
  if (!(buffer[start] & 0x80)) return readOctal(buffer, start, 12);
  let value = buffer[start] & 0x7f;
  for (let i = start + 1; i < start + 12; i++) value = value * 256 + buffer[i];
  if (!Number.isSafeInteger(value)) corrupt(`entry size too large at offset ${offset}`);
  return value;
}

function isZeroBlock(buffer, offset) {
  for (let i = offset; i < offset + BLOCK; i++) if (buffer[i] !== 0) return false;
  return true;
}

function cString(buffer, start, length) {
  let end = start;
  const limit = start + length;
  while (end < limit && buffer[end] !== 0) end++;
  return buffer.toString('utf8', start, end);
}

/**
 * The lead entry of a pack archive: the first file of a tar whose leading entries have plain
 * headers (directories are passed over), with its path as pack wrote it (archiveName), its bytes
 * and the offset just past its padding. Null when another kind of entry (pax, a GNU long name, a
 * link) comes first: an archive re-made by another tool is then walked whole (walk-archive.js).
 * Throws like tar-reader.js for a damaged header or a file running past the buffer's end.
 * @param {Buffer} buffer the archive, or as much of its start as holds the lead entry
 * @returns {{path: string, data: Buffer, end: number}|null}
 */
function readLeadEntry(buffer) {
  for (let header = 0; header + BLOCK <= buffer.length;) {
    if (isZeroBlock(buffer, header)) return null; // the end
    checkHeader(buffer, header);
    const type = buffer[header + 156];
    const size = readSize(buffer, header);
    const dataEnd = header + BLOCK + size;
    if (dataEnd > buffer.length) corrupt(`entry at offset ${header} runs past the end of the archive`);
    if (FILE.has(type) && buffer[header + 345] === 0) {
      return { path: archiveName(cString(buffer, header, 100)), data: buffer.subarray(header + BLOCK, dataEnd), end: header + BLOCK + Math.ceil(size / BLOCK) * BLOCK };
    }
    if (type !== DIR) return null;
    header = header + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return null;
}

module.exports = { BLOCK, corrupt, checkHeader, readOctal, readSize, cString, isZeroBlock, readLeadEntry };
