'use strict';
// One run writes into an output directory at a time: two profiles into the same --out each wrote
// their artifacts in turn and left a mixed set (one run's report beside another's HTML). The
// lock is a file made with O_EXCL holding the writer's PID; one left by a process that is gone
// (killed) is taken over.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('./errors.js');

const LOCK_NAME = '.coldstart-writing';

/**
 * Takes the directory for this process, or throws a UsageError naming the run that has it.
 * @param {string} dir
 * @param {string} [flag]
 * @returns {{ release(): void }}
 */
function lockOutput(dir, flag = '--out') {
  const file = path.join(dir, LOCK_NAME);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return { release() { try { if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.unlinkSync(file); } catch { /* gone */ } } };
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const holder = Number(readOr(file, ''));
    if (holder > 0 && holder !== process.pid && alive(holder)) {
      throw new UsageError(`${flag} ${dir} is being written by another coldstart run (pid ${holder}): give another ${flag}, or wait for it`);
    }
    try { fs.unlinkSync(file); } catch { /* taken meanwhile: the next attempt says so */ }
  }
  throw new UsageError(`${flag} ${dir} is being written by another coldstart run: give another ${flag}`);
}

function readOr(file, fallback) {
  try { return fs.readFileSync(file, 'utf8'); } catch { return fallback; }
}

function alive(pid) {
  try { process.kill(pid, 0); return true; } catch (err) { return err.code === 'EPERM'; }
}

module.exports = { lockOutput };
