'use strict';
// A file a user names (an event to send, a summary to append to) opened without waiting on it: a
// FIFO or a device would block the command, or never end. Regular files only, read to a bound.
const fs = require('node:fs');

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK } = fs.constants;

const notRegular = () => Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });

/** The text of a regular file of at most maxBytes; throws (code ENOTREG, EFBIG or the system's) otherwise. */
function readRegularFile(file, maxBytes) {
  const fd = fs.openSync(file, O_RDONLY | O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw notRegular();
    if (stat.size > maxBytes) throw Object.assign(new Error(`larger than ${maxBytes} bytes`), { code: 'EFBIG' });
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Appends text to a regular file, made when missing; throws (code ENOTREG or the system's) for anything else. */
function appendRegularFile(file, text) {
  const fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, 0o666);
  try {
    if (!fs.fstatSync(fd).isFile()) throw notRegular();
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

module.exports = { readRegularFile, appendRegularFile };
