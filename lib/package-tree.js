'use strict';
// Installed packages as Node finds them: where package `name` resolves from a directory, and the
// fields of its package.json that say what it needs and ships. Used by the bundle (what stays in
// node_modules) and by the Docker build contexts (what the app needs copied).
const fs = require('fs');
const path = require('path');

/** The directory of package `name` as Node resolves it from `fromDir`, or null. */
function findPackageDir(name, fromDir) {
  let dir = path.resolve(fromDir);
  for (;;) {
    if (path.basename(dir) !== 'node_modules') {
      const candidate = path.join(dir, 'node_modules', name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The fields of a package.json that say what a package needs and ships; null when unreadable. */
function readManifest(dir) {
  try {
    const pj = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return {
      name: pj.name,
      version: pj.version,
      type: pj.type,
      dependencies: pj.dependencies || {},
      optionalDependencies: pj.optionalDependencies || {},
      peerDependencies: pj.peerDependencies || {},
      bin: pj.bin,
      files: pj.files,
    };
  } catch {
    return null;
  }
}

module.exports = { findPackageDir, readManifest };
