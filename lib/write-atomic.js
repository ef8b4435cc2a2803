'use strict';
// Every artifact is written to a temp file beside its target, then renamed: a reader never sees
// half a file, and a failure leaves nothing behind. The temp file is our own: a random name,
// created new (O_EXCL) and never opened through a link someone placed there (O_NOFOLLOW), so a
// shared directory (/tmp) cannot turn the write into one over another file.
const fs = require('fs');
const path = require('path');

/** @param {string} file @param {string|Buffer} data */
function writeFileAtomic(file, data) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}-${require('crypto').randomBytes(4).toString('hex')}.tmp`);
  const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = fs.constants;
  const fd = fs.openSync(tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o666);
  try {
    try { fs.writeFileSync(fd, data); } finally { fs.closeSync(fd); }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

module.exports = { writeFileAtomic };
