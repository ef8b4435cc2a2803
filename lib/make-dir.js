'use strict';
// mkdir -p that always ends. fs.mkdirSync(dir, { recursive: true }) loops forever on a path
// whose parent exists but refuses new entries with ENOENT (/proc/foo): here each missing level
// is made once, top down, and the first refusal is the answer.
const fs = require('fs');
const path = require('path');

/**
 * Makes `dir` and any missing parents.
 * @param {string} dir
 * @returns {string[]} the directories it made, outermost first (for removing them again)
 * @throws the fs error of the first level that could not be made, or ENOTDIR
 */
function makeDir(dir) {
  const missing = [];
  let at = path.resolve(dir);
  for (;;) {
    let stat;
    try {
      stat = fs.statSync(at);
    } catch (err) {
      if (err.code !== 'ENOENT' || path.dirname(at) === at) throw err;
      missing.push(at);
      at = path.dirname(at);
      continue;
    }
    if (!stat.isDirectory()) throw Object.assign(new Error(`not a directory: ${at}`), { code: 'ENOTDIR' });
    break;
  }
  const made = [];
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d);
    } catch (err) {
      if (err.code !== 'EEXIST') throw err; // made meanwhile by someone else: fine
      continue;
    }
    made.push(d);
  }
  return made;
}

/** Removes directories makeDir made, innermost first, as long as they are still empty. */
function removeMadeDirs(made) {
  for (const d of [...made].reverse()) {
    try { fs.rmdirSync(d); } catch { return; }
  }
}

module.exports = { makeDir, removeMadeDirs };
