'use strict';
// One way to print a size and a duration everywhere; no dependencies (`coldstart start` loads it).

/** 1234567 -> '1.2 MB' (decimal units) */
function formatBytes(bytes) {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}

/** Milliseconds to the digits that mean something: '1234', '56.7', '8.90'; a dash when missing. */
function formatMs(n) {
  if (n === null || n === undefined) return '–';
  if (n >= 100) return String(Math.round(n));
  return n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

module.exports = { formatBytes, formatMs };
