'use strict';
// The files the app reads itself with fs during startup (configuration, templates, certificates)
// and the native addons it opens by hand: what a packed start needs besides its modules. Where no
// hook times ES modules, Node's loader reading a module's source is that module's load.
const fs = require('fs');
const path = require('path');

/**
 * Patches fs and process.dlopen.
 * @param {{recording: boolean, stack: object[]}} state shared with the module timing
 * @param {{hrNow: () => number, esmTimed: () => boolean}} how esmTimed: loader hooks time the ES
 *   modules loaded now
 */
function recordFileReads(state, { hrNow, esmTimed }) {
  const readFileSync = fs.readFileSync; // our own reads are not the app's
  const reads = new Map(); // path -> how it was read
  const esmReads = []; // ES module source Node's loader read on this thread, where no hook times it

  // Native addons loaded without require (rare, e.g. process.dlopen by hand).
  const origDlopen = process.dlopen;
  process.dlopen = function coldstartDlopen(mod, filename) {
    if (state.recording && typeof filename === 'string') noteRead(filename, 'addon');
    return origDlopen.apply(this, arguments);
  };

  const { fileURLToPath } = require('url');
  function toPath(p) {
    if (typeof p === 'string') return path.resolve(p);
    if (Buffer.isBuffer(p)) return path.resolve(p.toString());
    if (p instanceof URL && p.protocol === 'file:') return fileURLToPath(p);
    return null; // a file descriptor or something else: nothing to pack
  }
  function noteRead(p, via) {
    if (!state.recording) return;
    // The CommonJS loader reading the module it is loading: already recorded as a module.
    const top = state.stack[state.stack.length - 1];
    if (top && top.file === p) return;
    const abs = toPath(p);
    if (abs && !reads.has(abs)) reads.set(abs, via);
  }
  const wrap = (obj, name) => {
    const orig = obj[name];
    if (typeof orig !== 'function') return;
    obj[name] = function (p) {
      noteRead(p, 'fs');
      return orig.apply(this, arguments);
    };
    Object.defineProperty(obj[name], 'name', { value: name });
  };
  for (const name of ['openSync', 'open', 'createReadStream']) wrap(fs, name);
  // Node's ES module loader reads a module's source with readFileSync(file: URL), on the app's
  // thread: where no hook times ES modules (require(esm) on Node 20), that read is the module's load.
  fs.readFileSync = function coldstartReadFileSync(p) {
    if (!(p instanceof URL) || esmTimed() || !state.recording || !/\.m?js$/.test(p.pathname)) {
      noteRead(p, 'fs');
      return readFileSync.apply(this, arguments);
    }
    const top = state.stack[state.stack.length - 1];
    const t = hrNow();
    try {
      return readFileSync.apply(this, arguments);
    } finally {
      esmReads.push({ file: fileURLToPath(p), parent: top ? top.file : null, startUs: t, endUs: hrNow() });
    }
  };
  Object.defineProperty(fs.readFileSync, 'name', { value: 'readFileSync' });
  // import() on Node 20 without hooks reads the module's source asynchronously, off the app's thread.
  const wrapAsyncRead = (obj) => {
    const orig = obj.readFile;
    obj.readFile = function readFile(p) {
      if (p instanceof URL && !esmTimed() && state.recording && /\.m?js$/.test(p.pathname)) {
        const t = hrNow();
        esmReads.push({ file: fileURLToPath(p), parent: null, startUs: t, endUs: t });
      } else noteRead(p, 'fs');
      return orig.apply(this, arguments);
    };
  };
  wrapAsyncRead(fs);
  wrapAsyncRead(fs.promises);
  wrap(fs.promises, 'open');

  return {
    /** What was read, times in ms since the process started (msSinceStart). */
    records: (msSinceStart) => ({
      esmReads: esmReads.map((r) => ({ file: r.file, parent: r.parent, startMs: msSinceStart(r.startUs), loadMs: (r.endUs - r.startUs) / 1000 })),
      reads: [...reads].map(([p, via]) => ({ path: p, via })),
    }),
  };
}

module.exports = { recordFileReads };
