'use strict';
// What goes into the startup archive: the files the app read to start, confined
// to the root. Comes from a capture or from a saved startup-files.txt.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');

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
 * Splits listed paths into those safe to pack and those refused (outside the root).
 * @param {string[]} paths relative (posix) or absolute
 * @param {string} root
 * @returns {{ files: string[], outside: string[], missing: string[] }}
 */
function confineToRoot(paths, root) {
  const files = new Set();
  const outside = [];
  const missing = [];
  for (const p of paths) {
    const abs = path.resolve(root, p);
    const rel = path.relative(root, abs);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) {
      outside.push(p);
      continue;
    }
    try {
      fs.lstatSync(abs);
    } catch {
      missing.push(p);
      continue;
    }
    files.add(rel.split(path.sep).join('/'));
  }
  return { files: [...files].sort(), outside, missing };
}

/** Files and bytes of the whole tree under root (what a plain image ships), for comparison. */
function treeSize(root) {
  let files = 0;
  let bytes = 0;
  const walk = (dir) => {
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        files++;
        try { bytes += fs.statSync(p).size; } catch { /* vanished */ }
      }
    }
  };
  walk(root);
  return { files, bytes };
}

module.exports = { readManifestFile, confineToRoot, treeSize };
