'use strict';
// Paths as coldstart stores and shows them (relative to the app root, with forward slashes), and
// where coldstart itself is installed. lib/start/ and lib/in-app/ keep their own few lines instead.
const path = require('path');

/** Where this coldstart is installed: the directory of its package.json, bin/ and lib/. */
const INSTALL_DIR = path.resolve(__dirname, '..');

/** Its command-line entry, run as a child process by pack (the code cache) and bench. */
const COLDSTART_BIN = path.join(INSTALL_DIR, 'bin', 'coldstart.js');

/** Posix path of `file` relative to `root`, or null when it is outside. */
function relativeInside(root, file) {
  const rel = path.relative(root, file);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

/** How messages show a file: relative to root when inside it ('.' for root itself), else as given. */
function displayPath(root, file) {
  if (path.resolve(root) === path.resolve(file)) return '.';
  return relativeInside(root, file) || file;
}

module.exports = { INSTALL_DIR, COLDSTART_BIN, relativeInside, displayPath };
