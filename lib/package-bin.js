'use strict';
// `-- functions-framework --target=fn`, `-- next start`: a package binary named the way npm
// scripts name them, found as npm finds it (node_modules/.bin from the working directory up).
// start runs it in its own process when it is a Node script; profile, pack and bench spawn it.
// start loads this only when the entry is not a file.
const fs = require('node:fs');
const path = require('node:path');

/**
 * The package binary `name` as found from cwd: its node_modules/.bin link and the Node script
 * behind it; null if none. foreignOwner: the uid of another user (not root) who owns the script or
 * the .bin folder it was found in (a node_modules in /tmp, say): code that user can change.
 */
function findPackageBin(name, cwd) {
  if (!/^[\w@.-][\w@./-]*$/.test(name) || name.includes('/')) return null;
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const link = path.join(dir, 'node_modules', '.bin', name);
    let file = null;
    try { file = fs.realpathSync(link); } catch { /* not here */ }
    if (file && isNodeScript(file)) return { link, file, foreignOwner: foreignOwner([file, path.dirname(link)]) };
    if (path.dirname(dir) === dir) return null;
  }
}

function foreignOwner(paths) {
  const me = typeof process.getuid === 'function' ? process.getuid() : null;
  for (const p of paths) {
    let uid = null;
    try { uid = fs.statSync(p).uid; } catch { /* gone */ }
    if (me !== null && uid !== null && uid !== me && uid !== 0) return uid;
  }
  return null;
}

/**
 * The Node script behind the package binary `name`, or null. One another user owns is named
 * through warn: start runs it all the same (it never keeps the app from starting).
 */
function packageBin(name, cwd, warn = () => {}) {
  const found = findPackageBin(name, cwd);
  if (found && found.foreignOwner !== null) warn(`${name} is ${found.file}, owned by another user (uid ${found.foreignOwner}); it runs as you`);
  return found && found.file;
}

function isNodeScript(file) {
  if (/\.[cm]?js$/.test(file)) return true;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(128);
      const line = head.subarray(0, fs.readSync(fd, head, 0, 128, 0)).toString('latin1').split('\n')[0];
      return /^#!.*\bnode\b/.test(line);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

module.exports = { packageBin, findPackageBin };
