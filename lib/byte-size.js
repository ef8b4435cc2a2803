'use strict';
// A size as platforms and Docker write it, read from a flag and printed back the same way: 512Mi,
// 256MiB, 64m (2^20 bytes each), 100MB (10^6).
const { UsageError } = require('./errors.js');
const { formatBytes } = require('./format-units.js');

// Mi/MiB/M/m are 2^20 bytes (Docker's 64m, Cloud Run's 512Mi, Lambda's "512 MB"), MB 10^6; the
// same for k and G.
const SIZE_UNITS = { b: 1, kb: 1e3, k: 1024, ki: 1024, kib: 1024, mb: 1e6, m: 2 ** 20, mi: 2 ** 20, mib: 2 ** 20, gb: 1e9, g: 2 ** 30, gi: 2 ** 30, gib: 2 ** 30 };

/** '256MiB' | '512Mi' | '64m' | '1.5GB' -> bytes; a bare number is refused. */
function parseSize(value, flag) {
  const m = /^(\d+(?:\.\d+)?)\s*([A-Za-z]+)?$/.exec(String(value).trim());
  const unit = m && m[2] ? SIZE_UNITS[m[2].toLowerCase()] : null;
  if (!unit) {
    throw new UsageError(`invalid ${flag} "${value}": give a size with its unit, such as 256MiB, 512Mi, 64m or 1GB`);
  }
  const bytes = Math.round(Number(m[1]) * unit);
  if (!(bytes > 0)) throw new UsageError(`invalid ${flag} "${value}": must be greater than zero`);
  return bytes;
}

/** A size limit as it was given: 256MiB reads '256 MiB', a decimal one as formatBytes does. */
function formatLimit(bytes) {
  return bytes % 2 ** 20 === 0 ? `${bytes / 2 ** 20} MiB` : formatBytes(bytes);
}

module.exports = { parseSize, formatLimit };
