'use strict';
// `start --mode memory`: serve the app's startup modules from the archive already
// in memory. Resolutions recorded at pack time answer require() without a single
// stat; sources and JSON come from the archive instead of open/read; anything not
// in the archive falls through to Node's own loader. Files keep their real paths,
// so __filename, require.cache keys, stack traces and require hooks (APM agents)
// see exactly what a plain start shows.
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { runWithCodeCache, cacheable, stripBOM } = require('./code-cache.js');

/**
 * @param {object} options
 * @param {string} options.root directory the archive paths are relative to
 * @param {Map<string, Buffer>} options.files root-relative path -> contents
 * @param {object|null} options.index the archive's startup index (resolutions, formats, codeCache)
 * @param {Buffer|null} [options.codeCache] the V8 code cache blob the index points into
 * @param {'size'|'none'} options.verify check each file's size on disk before serving it
 * @param {(message: string) => void} options.warn
 * @returns {{ stats: { resolved: number, served: number, fellBack: number } }}
 */
function installMemoryLoader({ root, files, index, codeCache = null, verify, warn }) {
  const stats = { resolved: 0, served: 0, fellBack: 0, cacheHits: 0, cacheRejected: 0, esmModules: 0 };
  const byPath = new Map();
  for (const [rel, data] of files) byPath.set(path.join(root, rel), data);
  const formats = new Map();
  const resolutions = new Map();
  const caches = new Map();
  if (index && codeCache && index.codeCache) {
    for (const [rel, [offset, length]] of Object.entries(index.codeCache.entries)) {
      caches.set(path.join(root, rel), codeCache.subarray(offset, offset + length));
    }
  }
  if (index) {
    for (const [rel, format] of Object.entries(index.formats || {})) formats.set(path.join(root, rel), format);
    for (const [from, request, to] of index.resolutions || []) {
      resolutions.set(`${path.join(root, from)}\0${request}`, path.join(root, to));
    }
  }

  // A packed file that no longer matches the disk is served from disk, with one warning.
  const checked = new Map();
  let warnedStale = false;
  function usable(file) {
    const data = byPath.get(file);
    if (data === undefined) return false;
    if (verify === 'none') return true;
    let ok = checked.get(file);
    if (ok === undefined) {
      let st = null;
      try { st = fs.statSync(file, { throwIfNoEntry: false }); } catch { /* unreadable */ }
      ok = Boolean(st && st.isFile() && st.size === data.length);
      checked.set(file, ok);
      if (!ok) {
        stats.fellBack++;
        if (!warnedStale) {
          warnedStale = true;
          warn(`${path.relative(root, file)} differs from the archive (re-run coldstart pack); such files are read from disk`);
        }
      }
    }
    return ok;
  }

  const origResolve = Module._resolveFilename;
  Module._resolveFilename = function memoryResolve(request, parent, isMain, options) {
    // Node 22 passes { conditions } on every require; only `paths` makes a lookup special.
    if (parent && !(options && options.paths) && typeof request === 'string') {
      const from = parent.path || (parent.filename && path.dirname(parent.filename));
      const hit = from && resolutions.get(`${from}\0${request}`);
      if (hit && usable(hit)) {
        stats.resolved++;
        return hit;
      }
    }
    return origResolve.apply(this, arguments);
  };

  const origJs = Module._extensions['.js'];
  Module._extensions['.js'] = function memoryJs(module, filename) {
    if (formats.get(filename) === 'commonjs' && usable(filename)) {
      stats.served++;
      const source = stripBOM(byPath.get(filename).toString('utf8'));
      const cached = caches.get(filename);
      // Source maps are registered by Node's own compile step: leave those apps to it.
      if (cached && !process.sourceMapsEnabled && cacheable(source)) {
        if (runWithCodeCache(module, filename, source, cached)) stats.cacheHits++;
        else stats.cacheRejected++;
        return;
      }
      return module._compile(source, filename, 'commonjs'); // known format: no package.json lookups
    }
    return origJs.apply(this, arguments);
  };

  const origJson = Module._extensions['.json'];
  Module._extensions['.json'] = function memoryJson(module, filename) {
    if (!usable(filename)) return origJson.apply(this, arguments);
    stats.served++;
    try {
      module.exports = JSON.parse(stripBOM(byPath.get(filename).toString('utf8')));
    } catch (err) {
      err.message = `${filename}: ${err.message}`; // as Node words it
      throw err;
    }
  };

  // Files the app reads itself at startup (config, templates, .proto) come from memory too.
  const origReadFileSync = fs.readFileSync;
  fs.readFileSync = function readFileSync(file, options) {
    if (typeof file === 'string' && plainRead(options)) {
      const abs = path.isAbsolute(file) ? file : path.resolve(file);
      if (byPath.has(abs) && usable(abs)) {
        stats.served++;
        const data = byPath.get(abs);
        const encoding = typeof options === 'string' ? options : options && options.encoding;
        return encoding ? data.toString(encoding) : Buffer.from(data);
      }
    }
    return origReadFileSync.apply(this, arguments);
  };

  registerEsmHooks({ root, index, byPath, usable, stats });
  return { stats };
}

/** ES modules through in-thread loader hooks, where this Node has them (see memory-esm-hooks.js). */
function registerEsmHooks({ root, index, byPath, usable, stats }) {
  if (!index || typeof Module.registerHooks !== 'function') return;
  const sources = [];
  for (const [rel, format] of Object.entries(index.formats || {})) {
    if (format !== 'module') continue;
    const file = path.join(root, rel);
    if (usable(file)) sources.push([file, byPath.get(file).toString('utf8')]);
  }
  if (!sources.length) return;
  const resolutions = (index.esmResolutions || []).map(([from, specifier, to]) => [path.join(root, from), specifier, path.join(root, to)]);
  const { memoryEsmHooks } = require('./memory-esm-hooks.js');
  Module.registerHooks(memoryEsmHooks(resolutions, sources));
  stats.esmModules = sources.length;
}

function plainRead(options) {
  if (options == null || typeof options === 'string') return true;
  return typeof options === 'object' && (options.flag === undefined || options.flag === 'r');
}


module.exports = { installMemoryLoader };
