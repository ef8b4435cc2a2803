'use strict';
// One way to print a size everywhere (decimal units). No dependencies: `coldstart start` uses it.

/** 1234567 -> '1.2 MB' */
function formatBytes(bytes) {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}

module.exports = { formatBytes };
