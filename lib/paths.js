'use strict';
// Paths as coldstart stores and shows them: relative to the app root, with forward slashes.
const path = require('path');

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

module.exports = { relativeInside, displayPath };
