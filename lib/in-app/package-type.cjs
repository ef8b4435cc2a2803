'use strict';
// The package "type" that governs a file, read as the in-app code reads it: the nearest
// package.json above the file decides. One that exists but cannot be read or parsed ends the
// walk as CommonJS (a package.json further up never decides for it); the walk stops at
// node_modules, where a package without a package.json is CommonJS. Built-ins only: code that
// runs inside the app may load it, and pack classifies files with it, so both agree.
const fs = require('fs');
const path = require('path');

/**
 * @param {(file: string, encoding: 'utf8') => string} [read] how package.json is read
 *   (code inside the app passes a reader it does not record)
 * @returns {(file: string) => 'module'|'commonjs'} the type of a file, each directory read once
 */
function packageTypeReader(read = fs.readFileSync) {
  const byDir = new Map();
  return (file) => {
    let dir = path.dirname(file);
    const seen = [];
    let type = 'commonjs';
    for (;;) {
      if (byDir.has(dir)) { type = byDir.get(dir); break; }
      seen.push(dir);
      let text = null;
      try {
        text = read(path.join(dir, 'package.json'), 'utf8');
      } catch (err) {
        if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') break; // unreadable: CommonJS
      }
      if (text !== null) {
        try {
          type = JSON.parse(text).type === 'module' ? 'module' : 'commonjs';
        } catch { /* not JSON: CommonJS */ }
        break;
      }
      const up = path.dirname(dir);
      if (up === dir || path.basename(dir) === 'node_modules') break;
      dir = up;
    }
    for (const d of seen) byDir.set(d, type);
    return type;
  };
}

module.exports = { packageTypeReader };
