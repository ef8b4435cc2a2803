'use strict';
// Every artifact is written to a temp file beside its target, then renamed:
// a reader never sees half a file, and a failure leaves nothing behind.
const fs = require('fs');
const path = require('path');

/** @param {string} file @param {string|Buffer} data */
function writeFileAtomic(file, data) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

module.exports = { writeFileAtomic };
