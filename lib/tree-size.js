'use strict';
// Files and bytes under a directory, for the size comparisons pack, bundle and the benchmarks
// print. Links are not followed.
const fs = require('fs');
const path = require('path');

/**
 * @param {string} root
 * @param {object} [options]
 * @param {string[]} [options.skip] absolute paths left out, with everything below them
 * @param {(dir: string) => boolean} [options.prune] directories below root to leave out
 * @returns {{files: number, bytes: number}}
 */
function treeSize(root, { skip = [], prune = () => false } = {}) {
  let files = 0;
  let bytes = 0;
  const skipped = new Set(skip.map((s) => path.resolve(s)));
  const walk = (dir) => {
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (skipped.has(p)) continue;
      if (e.isDirectory()) {
        if (!prune(p)) walk(p);
      } else if (e.isFile()) {
        files++;
        try { bytes += fs.statSync(p).size; } catch { /* vanished */ }
      }
    }
  };
  walk(root);
  return { files, bytes };
}

module.exports = { treeSize };
