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
// Recorded targets are root-relative and normalised; anything else is not followed.
const { escapesRoot, resolutionAllowed, RECORD_ENV } = require('../archive-format.js');

// Only archives with a code cache, and pack's recording run, compile through V8's cache.
const cacheCompiler = () => require('./code-cache.js');

/**
 * Reads the archive, checks it was made for this Node, and installs the loader. Never throws:
 * any problem is one warning and the app starts from disk.
 * @returns {boolean} whether the loader was installed
 */
function loadIntoMemory({ root, archive, verify, report, quiet, started, warn, warnRefused, writeLine }) {
  const { readArchive, IndexError } = require('./archive-reader.js');
  let warnedMismatch = false;
  // A file whose bytes are not what pack wrote is read from disk: one line for all of them.
  const onMismatch = (rel) => {
    if (warnedMismatch) return;
    warnedMismatch = true;
    warn(`${rel} in ${archive} does not match what pack recorded for it (corrupt archive?); such files are read from disk`);
  };
  let found;
  try {
    found = readArchive(archive, onMismatch);
  } catch (err) {
    const reason = err instanceof IndexError ? `the startup index of ${archive} ${err.message}`
      : err.code === 'ENOENT' ? `archive not found: ${archive}` : `cannot read archive ${archive}: ${err.message}`;
    warn(`${reason}; starting the app without it`);
    return false;
  }
  const { files, index, refused, packedAtMs } = found;
  if (index && (index.node !== process.version || index.arch !== process.arch)) {
    warn(`${archive} was packed with Node ${index.node} (${index.arch}), this is ${process.version} (${process.arch}); starting the app without it (re-run coldstart pack)`);
    return false;
  }
  // No index (packed from a --manifest, or made by hand): sources still come from memory,
  // resolution goes through Node as usual.
  warnRefused(refused);
  // pack --code-cache runs the app once this way to have V8 serialise what it compiled.
  const recorder = process.env[RECORD_ENV] ? require('./code-cache-recorder.js').recorderFromEnv() : null;
  const codeCache = found.codeCache && cacheCompiler().fitsThisV8(index && index.codeCache, archive, warn) ? found.codeCache : null;
  const { stats } = installMemoryLoader({ root, archive, files, index, codeCache, recorder, verify, packedAtMs, report, warn });
  if (codeCache && index && index.codeCache && index.codeCache.esm) {
    stats.esmCacheModules = require('./esm-code-cache.js').installEsmCodeCache({ root, entries: index.codeCache.esm, blob: codeCache, env: process.env });
  }
  if (!quiet) {
    const { formatBytes, formatMs } = require('../format-units.js');
    const ms = formatMs(performance.now() - started);
    const resolutions = index ? `${index.resolutions.length + (index.esmResolutions || []).length} resolutions`
      : '0 resolutions: no startup index, packed with --manifest or by hand, so Node resolves';
    const kinds = stats.esmCacheModules ? [stats.cacheModules && `${stats.cacheModules} CommonJS`, `${stats.esmCacheModules} ES`].filter(Boolean).join(' and ') : stats.cacheModules;
    const cached = kinds ? `, code cache for ${kinds} modules` : '';
    const esm = stats.esmModules ? `, ${stats.esmModules} ES modules`
      : stats.esmFromDisk ? `; ${stats.esmFromDisk} ES modules read from disk: Node ${process.versions.node} has no in-thread loader hooks (22.15 and later do)`
        : stats.esmLeftToNode ? `; ${stats.esmLeftToNode} ES modules read from disk (loader hooks would slow its ${index.resolutions.length} CommonJS resolutions more than they save)` : '';
    writeLine(2, `coldstart: serving ${files.count} files, ${formatBytes(files.bytes)} from memory (${resolutions}${esm}${cached}) in ${ms} ms`);
  }
  if (process.env.COLDSTART_DEBUG_CACHE) {
    process.on('exit', () => writeLine(2, `coldstart: code cache used for ${stats.cacheHits} modules, rejected for ${stats.cacheRejected}; ${files.mismatched || 0} layout mismatches`));
  }
  return true;
}

/**
 * @param {object} options
 * @param {string} options.root directory the archive paths are relative to
 * @param {{has(rel: string): boolean, get(rel: string): Buffer|undefined, size?(rel: string): number|undefined,
 *   wrapped?(rel: string): string|undefined}} options.files the archive's files by root-relative path
 *   (archive-reader.js: with their sizes and the wrapped sources of modules with a cache)
 * @param {object|null} options.index the archive's startup index (resolutions, formats, codeCache)
 * @param {Buffer|null} [options.codeCache] the V8 code cache blob the index points into
 * @param {'size'|'none'} options.verify check each file's size and modification time on disk before serving it
 *   (a file of an installed node_modules tree: its install record, once for the tree)
 * @param {?object} [options.checked] with verify 'none': the check done before (the snapshot's), for the report
 * @param {number} [options.packedAtMs] the archive's modification time: a file modified later has changed
 * @param {string} [options.report] 'stderr' or a file for the startup report (in-app/startup-report.cjs)
 * @param {string} [options.archive] the archive's name, for the report
 * @param {{add(rel: string, script: import('node:vm').Script): void}|null} [options.recorder]
 *   collects every compiled module, to make a code cache after the app ran (pack --code-cache)
 * @param {(message: string) => void} options.warn
 * @param {'memory'|'snapshot'} [options.mode] how start serves the app, as a profile under it reads it
 * @returns {{ stats: { cacheModules: number, cacheHits: number, cacheRejected: number, esmCacheModules: number, esmModules: number,
 *   esmFromDisk: number, checked: ?{ files: number, trees: Array<{ tree: string, record: string, held: boolean }> } } }}
 *   esmFromDisk: ES modules left to Node's loader (no in-thread hooks); esmCacheModules: ES modules whose
 *   code cache Node's compile cache holds (set by loadIntoMemory); checked: null under --trust-archive
 */
function installMemoryLoader({ root, archive = null, files, index, codeCache = null, recorder = null, verify, checked = null, packedAtMs = Infinity, report, warn, mode = 'memory' }) {
  // checked: the files compared with the disk one by one (a stat each) and the install records read.
  const stats = { cacheModules: 0, cacheHits: 0, cacheRejected: 0, esmCacheModules: 0, esmModules: 0, esmFromDisk: 0, checked: verify === 'none' ? checked : { files: 0, trees: [] } };
  // Loaded before the loader below is in place: its own files are not the app's.
  const timing = report ? require('../in-app/startup-report.cjs').startupReport({ report, root, archive, archiveReadyMs: performance.now(), stats }) : null;
  const at = rootPaths(root);
  const records = verify !== 'none' && index && index.installRecords;
  const tree = records && records.length ? require('./install-check.js').installCheck({ root: at.rootDir, records, warn, seen: stats.checked.trees }) : null;
  // usable: the archive's answer for this path stands (its resolutions); servable: its bytes too
  // (undefined where they did not survive, files.get's word).
  const usable = diskCheck({ files, verify, tree, packedAtMs, stats, warn });
  const servable = (file, rel) => (usable(file, rel) ? files.get(rel) : undefined);
  const fromDisk = fellThroughCounter(files, Boolean(report), warn, timing);
  serveResolutions(at, index, usable, tree);
  serveJs(at, { files, index, codeCache, recorder, stats, usable, fromDisk });
  serveJson(at, servable, fromDisk);
  serveReads(at, servable);
  registerEsmHooks({ absOf: at.absOf, index, servable, stats, moved: tree ? tree.moved : () => false });
  // What this start does, for a profile taken under it (profile --docker): never advise a step already taken.
  globalThis[Symbol.for('coldstart.start')] = { mode, verify, codeCacheModules: stats.cacheModules, index: Boolean(index) };
  return { stats };
}

/** Everything is keyed by root-relative path: nothing is joined or normalised up front. */
function rootPaths(root) {
  const rootDir = path.resolve(root);
  const prefix = rootDir.endsWith(path.sep) ? rootDir : rootDir + path.sep;
  const relOf = path.sep === '/'
    ? (abs) => (abs.startsWith(prefix) ? abs.slice(prefix.length) : undefined)
    : (abs) => (abs.startsWith(prefix) ? abs.slice(prefix.length).split(path.sep).join('/') : undefined);
  // An index path (normalised, checked) made absolute without path.join: thousands at each start.
  const absOf = path.sep === '/' ? (rel) => prefix + rel : (rel) => prefix + rel.split('/').join(path.sep);
  return { rootDir, relOf, absOf, dirRelOf: (dir) => (dir === rootDir ? '.' : relOf(dir)) };
}

// A packed file that no longer matches the disk is served from disk, with one warning: a
// change of size, or a modification after the archive was written (the same stat). Files of
// a node_modules tree no install touched since pack are taken as they are (install-check.js).
function diskCheck({ files, verify, tree, packedAtMs, stats, warn }) {
  const verdicts = new Map(); // rel -> whether the packed file stands
  let warnedStale = false;
  return function usable(file, rel) {
    if (!files.has(rel)) return false;
    if (verify === 'none') return true;
    let ok = verdicts.get(rel);
    if (ok === undefined) {
      // Bytes that did not survive: the reader said so. (size: without making a wrapped module's bytes)
      const size = files.size ? files.size(rel) : files.get(rel)?.length;
      if (size === undefined) return false;
      if (tree && tree.installed(rel)) { verdicts.set(rel, true); return true; }
      let st = null;
      stats.checked.files++;
      try { st = fs.statSync(file, { throwIfNoEntry: false }); } catch { /* unreadable */ }
      ok = Boolean(st && st.isFile() && st.size === size && st.mtimeMs <= packedAtMs);
      verdicts.set(rel, ok);
      if (!ok && !warnedStale) {
        warnedStale = true;
        warn(`${rel} ${st ? 'changed on disk after' : 'is missing on disk but is in'} the archive (re-run coldstart pack); such files are read from disk${st ? '' : ' (--trust-archive serves the archive\'s copy)'}`);
      }
    }
    return ok;
  };
}

// The app's own files that were not in the archive: counted, said at the ready moment.
function fellThroughCounter(files, reported, warn, timing) {
  let fellThrough = null;
  let loadingOurs = false; // fall-through.js and what it loads are ours, not the app's
  const ours = path.resolve(__dirname, '..', '..') + path.sep; // coldstart's own files, when under the root
  return (rel, filename) => {
    if (loadingOurs || rel === undefined || files.has(rel) || filename.startsWith(ours)) return;
    if (!fellThrough) {
      loadingOurs = true;
      try { fellThrough = require('./fall-through.js').fallThrough({ reported, warn }); } finally { loadingOurs = false; }
    }
    fellThrough(rel);
    if (timing) timing.fromDisk(rel);
  };
}

/** require() answered by the resolutions pack recorded, where the file they lead to stands. */
function serveResolutions({ dirRelOf, absOf }, index, usable, tree) {
  const resolutions = new Map();
  for (const resolution of (index && index.resolutions) || []) {
    const [from, request, to] = resolution;
    if (resolutionAllowed(resolution)) resolutions.set(`${from}\0${request}`, to);
  }
  const origResolve = Module._resolveFilename;
  Module._resolveFilename = function memoryResolve(request, parent, isMain, options) {
    // Node 22 passes { conditions } on every require; only `paths` makes a lookup special.
    if (parent && !(options && options.paths) && typeof request === 'string') {
      const from = parent.path || (parent.filename && path.dirname(parent.filename));
      const fromRel = from && dirRelOf(from);
      const to = fromRel !== undefined && resolutions.get(`${fromRel}\0${request}`);
      if (to) {
        const hit = absOf(to);
        if (usable(hit, to) && !(tree && tree.moved(to))) return hit;
      }
    }
    return origResolve.apply(this, arguments);
  };
}

/** CommonJS sources from memory, compiled through V8's code cache where the archive has one. */
function serveJs({ relOf }, { files, index, codeCache, recorder, stats, usable, fromDisk }) {
  const formats = (index && index.formats) || {};
  const formatOf = (rel) => (rel !== undefined && Object.hasOwn(formats, rel) ? formats[rel] : undefined);
  const cacheEntries = (index && codeCache && index.codeCache && index.codeCache.entries) || {};
  stats.cacheModules = Object.keys(cacheEntries).length;
  const cacheOf = (rel) => {
    if (!Object.hasOwn(cacheEntries, rel)) return undefined;
    const [offset, length] = cacheEntries[rel];
    return codeCache.subarray(offset, offset + length);
  };
  const origJs = Module._extensions['.js'];
  const originalCompile = Module.prototype._compile;
  Module._extensions['.js'] = function memoryJs(module, filename) {
    const rel = relOf(filename);
    const served = formatOf(rel) === 'commonjs' && usable(filename, rel);
    const cached = served && cacheOf(rel);
    const wrapped = cached && files.wrapped && files.wrapped(rel); // its bytes are not made
    const data = served && !wrapped ? files.get(rel) : undefined;
    if (wrapped || data) {
      // A byte order mark stays, as in Node's loader: V8 reads it as a space, columns count it.
      const source = wrapped ? null : data.toString('utf8');
      // Source maps are registered by Node's own compile step, and a hook that replaced
      // _compile (pirates, ts-node) must see the source: leave those to module._compile.
      if ((cached || recorder) && !process.sourceMapsEnabled && module._compile === originalCompile && cacheCompiler().cacheable(wrapped || source)) {
        const { compile, compileWrapped, runCompiled } = cacheCompiler();
        const script = wrapped ? compileWrapped(wrapped, filename, cached) : compile(source, filename, cached);
        if (recorder) recorder.add(rel, script);
        else if (script.cachedDataRejected) stats.cacheRejected++;
        else stats.cacheHits++;
        return runCompiled(module, filename, script);
      }
      return module._compile(source ?? files.get(rel).toString('utf8'), filename, 'commonjs'); // known format: no package.json lookups
    }
    fromDisk(rel, filename);
    return origJs.apply(this, arguments);
  };
}

/** JSON modules from memory, parsed as Node's loader parses them. */
function serveJson({ relOf }, servable, fromDisk) {
  const origJson = Module._extensions['.json'];
  Module._extensions['.json'] = function memoryJson(module, filename) {
    const rel = relOf(filename);
    const data = rel === undefined ? undefined : servable(filename, rel);
    if (!data) {
      fromDisk(rel, filename);
      return origJson.apply(this, arguments);
    }
    try {
      module.exports = JSON.parse(stripBOM(data.toString('utf8')));
    } catch (err) {
      err.message = `${filename}: ${err.message}`; // as Node words it
      throw err;
    }
  };
}

/** Files the app reads itself at startup (config, templates, .proto) come from memory too. */
function serveReads({ relOf }, servable) {
  const origReadFileSync = fs.readFileSync;
  fs.readFileSync = function readFileSync(file, options) {
    if (typeof file === 'string' && plainRead(options)) {
      const abs = path.resolve(file);
      const rel = relOf(abs);
      const data = rel === undefined ? undefined : servable(abs, rel);
      if (data) {
        const encoding = typeof options === 'string' ? options : options && options.encoding;
        return encoding ? data.toString(encoding) : Buffer.from(data);
      }
    }
    return origReadFileSync.apply(this, arguments);
  };
}

/** ES modules through in-thread loader hooks, where this Node has them (see memory-esm-hooks.js). */
function registerEsmHooks({ absOf, index, servable, stats, moved }) {
  if (!index) return;
  const modules = Object.entries(index.formats || {}).filter(([rel, format]) => format === 'module' && !escapesRoot(rel));
  if (!modules.length) return;
  if (typeof Module.registerHooks !== 'function') {
    stats.esmFromDisk = modules.length; // said in the serving line: this Node cannot serve them
    return;
  }
  // followed: an ES module resolution pack recorded that start may answer (allowed, its tree not moved).
  const followed = (resolution) => resolutionAllowed(resolution) && !moved(resolution[2]);
  require('./memory-esm-hooks.js').registerMemoryEsmHooks({ modules, absOf, index, servable, stats, followed });
}

/** As Node's loader does for JSON: a byte order mark is not part of the text. */
function stripBOM(text) {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function plainRead(options) {
  if (options == null || typeof options === 'string') return true;
  return typeof options === 'object' && (options.flag === undefined || options.flag === 'r');
}

module.exports = { loadIntoMemory, installMemoryLoader };
