'use strict';
// Whether a file lies inside the app root once every symlink is followed. A path can sit
// under the root by its name and still lead elsewhere: `config/db.json -> ../../secrets/db.json`,
// or any directory on the way being a link out. Such a file is outside the root: never packed.
const fs = require('fs');
const path = require('path');
const { relativeInside } = require('../paths.js');

/**
 * @param {string} root
 * @returns {(file: string) => string|null} the root-relative (posix) path of an absolute or
 *   root-relative file when its name and its real place are both inside the root, else null.
 *   A missing file is judged by its name (the caller reports it missing); a dangling link by
 *   where its text points.
 */
function rootConfinement(root) {
  const rootDir = path.resolve(root);
  const realRoot = realOr(rootDir, rootDir);
  const inside = (real) => real === realRoot || real.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
  const dirs = new Map(); // root-relative directory -> whether it and every directory above it stay inside

  function dirInside(relDir) {
    if (relDir === '.' || relDir === '') return true;
    let ok = dirs.get(relDir);
    if (ok !== undefined) return ok;
    ok = dirInside(path.posix.dirname(relDir)) && inside(realOr(path.join(rootDir, relDir), realRoot));
    dirs.set(relDir, ok);
    return ok;
  }

  return function confined(file) {
    const abs = path.resolve(rootDir, file);
    const rel = relativeInside(rootDir, abs);
    if (rel === null || !dirInside(path.posix.dirname(rel))) return null;
    let link;
    try {
      link = fs.lstatSync(abs).isSymbolicLink();
    } catch {
      return rel;
    }
    if (!link) return rel;
    let real;
    try {
      real = fs.realpathSync(abs);
    } catch {
      real = path.resolve(realOr(path.dirname(abs), realRoot), fs.readlinkSync(abs));
    }
    return inside(real) ? rel : null;
  };
}

// A missing path counts as the fallback place (judged by name).
function realOr(p, fallback) {
  try {
    return fs.realpathSync(p);
  } catch {
    return fallback;
  }
}

module.exports = { rootConfinement };
