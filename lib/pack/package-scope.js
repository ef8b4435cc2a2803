'use strict';
// The package "type" that governs a file: the nearest package.json above it, read once per
// directory. Stops at node_modules, where a package without a package.json is CommonJS.
const fs = require('fs');
const path = require('path');

/** @returns {(file: string) => 'module'|'commonjs'} */
function scopeTypeReader() {
  const scopeCache = new Map();
  return (file) => {
    let dir = path.dirname(file);
    const seen = [];
    let type = 'commonjs';
    for (;;) {
      if (scopeCache.has(dir)) { type = scopeCache.get(dir); break; }
      seen.push(dir);
      try {
        type = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).type || 'commonjs';
        break;
      } catch { /* no readable package.json here: look further up */ }
      const up = path.dirname(dir);
      if (up === dir || path.basename(dir) === 'node_modules') break;
      dir = up;
    }
    for (const d of seen) scopeCache.set(d, type);
    return type;
  };
}

module.exports = { scopeTypeReader };
