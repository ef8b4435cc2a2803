'use strict';
// start --into: loaded only in that mode.
const path = require('node:path');

/**
 * --into: DIR holds the archive's files only. A require from a file in DIR that DIR cannot answer
 * (a module startup did not load, required after the ready moment) is answered from the working
 * directory it came from, with one warning line, instead of ending the app.
 * @param {string} origin the working directory the app was started in
 * @param {string} runDir DIR
 * @param {(message: string) => void} warn
 */
function requireFromOrigin(origin, runDir, warn) {
  const Module = require('node:module');
  const resolve = Module._resolveFilename;
  let warned = false;
  Module._resolveFilename = function fromOrigin(request, parent, isMain, options) {
    try {
      return resolve.apply(this, arguments);
    } catch (err) {
      const file = parent && parent.filename;
      const rel = err && err.code === 'MODULE_NOT_FOUND' && typeof file === 'string' ? path.relative(runDir, file) : null;
      if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw err;
      const stand = path.join(origin, rel);
      const found = resolve.call(this, request, { id: stand, filename: stand, paths: Module._nodeModulePaths(path.dirname(stand)) }, isMain, options);
      if (!warned) {
        warned = true;
        warn(`${request} (required by ${rel}) is not in ${runDir}: loaded from ${origin} instead (re-run coldstart pack, with --after for what loads after the ready moment)`);
      }
      return found;
    }
  };
}

module.exports = { requireFromOrigin };
