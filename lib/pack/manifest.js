'use strict';
// What goes into the startup archive: the files the app read to start, confined
// to the root. Comes from a capture or from a saved startup-files.txt.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');
const { rootConfinement } = require('../capture/root-confinement.js');

/** Reads a startup-files.txt: one root-relative path a line; blank lines and # comments ignored. */
function readManifestFile(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --manifest ${file}: ${err.code || err.message}`);
  }
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}

/**
 * Splits listed paths into those safe to pack and those refused (outside the root by name, or
 * by their real place: a symlink, or a directory on the way, leading out of the root).
 * @param {string[]} paths relative (posix) or absolute
 * @param {string} root
 * @returns {{ files: string[], outside: string[], missing: string[] }}
 */
function confineToRoot(paths, root) {
  const files = new Set();
  const outside = [];
  const missing = [];
  const confined = rootConfinement(root);
  for (const p of paths) {
    const abs = path.resolve(root, p);
    const rel = confined(abs);
    if (!rel) {
      outside.push(p);
      continue;
    }
    try {
      fs.lstatSync(abs);
    } catch {
      missing.push(p);
      continue;
    }
    files.add(rel);
  }
  return { files: [...files].sort(), outside, missing };
}

module.exports = { readManifestFile, confineToRoot };
