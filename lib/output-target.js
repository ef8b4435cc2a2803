'use strict';
// Where a command writes (--out), checked before the app is started: a target that cannot be
// written is one line and exit 2 then, not an error after a long run. The directories made for
// it are handed back so that a failed run can take them away again.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('./errors.js');
const { makeDir } = require('./make-dir.js');

/** An output directory: made if missing, writable. @returns {string[]} directories made */
function ensureWritableDir(dir, flag = '--out') {
  let stat = null;
  try { stat = fs.statSync(dir); } catch { /* not there yet */ }
  if (stat && !stat.isDirectory()) throw new UsageError(`${flag} ${dir} is not a directory`);
  try {
    const made = makeDir(dir);
    fs.accessSync(dir, fs.constants.W_OK);
    return made;
  } catch (err) {
    throw new UsageError(`cannot write to ${flag} ${dir}: ${err.code || err.message}`);
  }
}

/**
 * An output file: a regular file or not there yet (never a directory, a device such as /dev/null,
 * a FIFO or a socket, which a rename would replace), its directory made if missing and writable.
 * @returns {string[]} directories made
 */
function ensureWritableFile(file, flag = '--out') {
  let stat = null;
  try { stat = fs.statSync(file); } catch { /* not there yet */ }
  if (stat && stat.isDirectory()) {
    throw new UsageError(`${flag} ${file} is a directory: give a file name, e.g. ${path.join(file, 'startup.tar')}`);
  }
  if (stat && !stat.isFile()) {
    throw new UsageError(`${flag} ${file} is not a regular file (a device, FIFO or socket): give a file name to write`);
  }
  return ensureWritableDir(path.dirname(file), flag);
}

module.exports = { ensureWritableDir, ensureWritableFile };
