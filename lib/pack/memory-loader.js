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
const { compile, runCompiled, cacheable, stripBOM } = require('./code-cache.js');
// Recorded targets are root-relative and normalised; anything else is not followed.
const { escapesRoot } = require('./archive-layout.js');

/**
 * @param {object} options
 * @param {string} options.root directory the archive paths are relative to
 * @param {{has(rel: string): boolean, get(rel: string): Buffer|undefined}} options.files the
 *   archive's files by root-relative path
 * @param {object|null} options.index the archive's startup index (resolutions, formats, codeCache)
 * @param {Buffer|null} [options.codeCache] the V8 code cache blob the index points into
 * @param {'size'|'none'} options.verify check each file's size on disk before serving it
 * @param {{add(rel: string, script: import('node:vm').Script): void}|null} [options.recorder]
 *   collects every compiled module, to make a code cache after the app ran (pack --code-cache)
 * @param {(message: string) => void} options.warn
 * @returns {{ stats: { cacheModules: number, cacheHits: number, cacheRejected: number, esmModules: number } }}
 */
function installMemoryLoader({ root, files, index, codeCache = null, recorder = null, verify, warn }) {
  const stats = { cacheModules: 0, cacheHits: 0, cacheRejected: 0, esmModules: 0 };
  // Everything is keyed by root-relative path: nothing is joined or normalised up front.
  const rootDir = path.resolve(root);
  const prefix = rootDir.endsWith(path.sep) ? rootDir : rootDir + path.sep;
  const relOf = path.sep === '/'
    ? (abs) => (abs.startsWith(prefix) ? abs.slice(prefix.length) : undefined)
    : (abs) => (abs.startsWith(prefix) ? abs.slice(prefix.length).split(path.sep).join('/') : undefined);
  const dirRelOf = (dir) => (dir === rootDir ? '.' : relOf(dir));
  const formats = (index && index.formats) || {};
  const formatOf = (rel) => (rel !== undefined && Object.hasOwn(formats, rel) ? formats[rel] : undefined);
  const cacheEntries = (index && codeCache && index.codeCache && index.codeCache.entries) || {};
  stats.cacheModules = Object.keys(cacheEntries).length;
  const cacheOf = (rel) => {
    if (!Object.hasOwn(cacheEntries, rel)) return undefined;
    const [offset, length] = cacheEntries[rel];
    return codeCache.subarray(offset, offset + length);
  };
  const resolutions = new Map();
  for (const [from, request, to] of (index && index.resolutions) || []) {
    if (!escapesRoot(to)) resolutions.set(`${from}\0${request}`, to);
  }

  // A packed file that no longer matches the disk is served from disk, with one warning.
  const checked = new Map();
  let warnedStale = false;
  function usable(file, rel) {
    const data = files.get(rel);
    if (data === undefined) return false;
    if (verify === 'none') return true;
    let ok = checked.get(rel);
    if (ok === undefined) {
      let st = null;
      try { st = fs.statSync(file, { throwIfNoEntry: false }); } catch { /* unreadable */ }
      ok = Boolean(st && st.isFile() && st.size === data.length);
      checked.set(rel, ok);
      if (!ok && !warnedStale) {
        warnedStale = true;
        warn(`${rel} differs from the archive (re-run coldstart pack); such files are read from disk`);
      }
    }
    return ok;
  }

  const origResolve = Module._resolveFilename;
  Module._resolveFilename = function memoryResolve(request, parent, isMain, options) {
    // Node 22 passes { conditions } on every require; only `paths` makes a lookup special.
    if (parent && !(options && options.paths) && typeof request === 'string') {
      const from = parent.path || (parent.filename && path.dirname(parent.filename));
      const fromRel = from && dirRelOf(from);
      const to = fromRel !== undefined && resolutions.get(`${fromRel}\0${request}`);
      if (to) {
        const hit = prefix + (path.sep === '/' ? to : to.split('/').join(path.sep));
        if (usable(hit, to)) {
          return hit;
        }
      }
    }
    return origResolve.apply(this, arguments);
  };

  const origJs = Module._extensions['.js'];
  const originalCompile = Module.prototype._compile;
  Module._extensions['.js'] = function memoryJs(module, filename) {
    const rel = relOf(filename);
    if (formatOf(rel) === 'commonjs' && usable(filename, rel)) {
      const source = stripBOM(files.get(rel).toString('utf8'));
      const cached = cacheOf(rel);
      // Source maps are registered by Node's own compile step, and a hook that replaced
      // _compile (pirates, ts-node) must see the source: leave those to module._compile.
      if ((cached || recorder) && !process.sourceMapsEnabled && module._compile === originalCompile && cacheable(source)) {
        const script = compile(source, filename, cached);
        if (recorder) recorder.add(rel, script);
        else if (script.cachedDataRejected) stats.cacheRejected++;
        else stats.cacheHits++;
        return runCompiled(module, filename, script);
      }
      return module._compile(source, filename, 'commonjs'); // known format: no package.json lookups
    }
    return origJs.apply(this, arguments);
  };

  const origJson = Module._extensions['.json'];
  Module._extensions['.json'] = function memoryJson(module, filename) {
    const rel = relOf(filename);
    if (rel === undefined || !usable(filename, rel)) return origJson.apply(this, arguments);
    try {
      module.exports = JSON.parse(stripBOM(files.get(rel).toString('utf8')));
    } catch (err) {
      err.message = `${filename}: ${err.message}`; // as Node words it
      throw err;
    }
  };

  // Files the app reads itself at startup (config, templates, .proto) come from memory too.
  const origReadFileSync = fs.readFileSync;
  fs.readFileSync = function readFileSync(file, options) {
    if (typeof file === 'string' && plainRead(options)) {
      const abs = path.resolve(file);
      const rel = relOf(abs);
      if (rel !== undefined && files.has(rel) && usable(abs, rel)) {
          const data = files.get(rel);
        const encoding = typeof options === 'string' ? options : options && options.encoding;
        return encoding ? data.toString(encoding) : Buffer.from(data);
      }
    }
    return origReadFileSync.apply(this, arguments);
  };

  registerEsmHooks({ prefix, index, files, usable, stats });
  return { stats };
}


/** ES modules through in-thread loader hooks, where this Node has them (see memory-esm-hooks.js). */
function registerEsmHooks({ prefix, index, files, usable, stats }) {
  if (!index || typeof Module.registerHooks !== 'function') return;
  const abs = (rel) => path.join(prefix, rel);
  const sources = [];
  for (const [rel, format] of Object.entries(index.formats || {})) {
    if (format !== 'module' || escapesRoot(rel)) continue;
    const file = abs(rel);
    if (usable(file, rel)) sources.push([file, files.get(rel).toString('utf8')]);
  }
  if (!sources.length) return;
  const resolutions = (index.esmResolutions || []).filter(([, , to]) => !escapesRoot(to))
    .map(([from, specifier, to]) => [abs(from), specifier, abs(to)]);
  const { memoryEsmHooks } = require('./memory-esm-hooks.js');
  Module.registerHooks(memoryEsmHooks(resolutions, sources));
  stats.esmModules = sources.length;
}

function plainRead(options) {
  if (options == null || typeof options === 'string') return true;
  return typeof options === 'object' && (options.flag === undefined || options.flag === 'r');
}


module.exports = { installMemoryLoader };
