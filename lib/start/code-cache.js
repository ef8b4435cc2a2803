'use strict';
// V8 code cache for the startup modules (`pack --code-cache`): made at pack time,
// handed back to V8 at start so CommonJS modules are deserialized instead of parsed
// and compiled. Pack compiles with compile() below, so the cache fits what start runs. Under gVisor compiling 1000 small modules took 130-300 ms, with the
// cache 86-118 ms (BENCHMARKS.md). V8 itself rejects a cache made by another Node or
// with other flags, one module at a time; start checks the tag recorded with the cache
// first and leaves a whole cache of another tag unused (fitsThisV8).
//
// Modules are compiled as vm.Script of the CommonJS wrapper, with the wrapper's
// columns taken off line 1 so stack traces match a plain start. On Node 20 a script
// deserialized from a cache made in another process loses its import() callback
// (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING, seen here; vm.compileFunction has the same
// problem): there, modules whose source mentions import( (a JSDoc `import('./x')` type
// included) get no cache and compile as usual. Node 22, 24 and 26 keep the callback.
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const { isAscii } = require('node:buffer');
const { BLOCK } = require('./tar-header.js');

const WRAPPER_COLUMNS = Module.wrap('').indexOf('{') + 2;
const [WRAPPER_HEAD, WRAPPER_TAIL] = [Module.wrap('').slice(0, WRAPPER_COLUMNS), Module.wrap('').slice(WRAPPER_COLUMNS)];
const IMPORT_LOST_WITH_CACHE = Number(process.versions.node.split('.')[0]) < 22;

/** Compiles like the loader would. */
function compile(source, filename, cachedData) {
  return compileWrapped(Module.wrap(source), filename, cachedData);
}

/** compile() of a source already in the CommonJS wrapper (wrapInPlace). */
function compileWrapped(wrapped, filename, cachedData) {
  const options = {
    filename,
    columnOffset: -WRAPPER_COLUMNS,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  };
  const make = () => new vm.Script(wrapped, options);
  if (IMPORT_LOST_WITH_CACHE) return withoutLoaderWarning(make);
  keepLoaderWarningOff();
  return make();
}

// Node 22 and later warn about USE_MAIN_CONTEXT_DEFAULT_LOADER when a script compiled with it
// first calls import(), whenever that is: the option is ours, so that warning is kept off for good.
let loaderWarningOff = false;
function keepLoaderWarningOff() {
  if (loaderWarningOff) return;
  loaderWarningOff = true;
  process.emitWarning = quietLoaderWarning(process.emitWarning);
}

/**
 * Runs fn with Node 20's one-time ExperimentalWarning about USE_MAIN_CONTEXT_DEFAULT_LOADER (given
 * at compile time there) kept off stderr: the option is ours, so the warning would be ours.
 */
function withoutLoaderWarning(fn) {
  const emitWarning = process.emitWarning;
  process.emitWarning = quietLoaderWarning(emitWarning);
  try {
    return fn();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** process.emitWarning without the warning about USE_MAIN_CONTEXT_DEFAULT_LOADER, which is ours. */
function quietLoaderWarning(emitWarning) {
  return function emitWarningButOurs(warning) {
    if (String(warning && warning.message ? warning.message : warning).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return undefined;
    return emitWarning.apply(this, arguments);
  };
}

/**
 * V8 rejects a cache made under another cachedDataVersionTag (V8 version, V8 flags, CPU
 * features) module by module, each after a wasted deserialisation: such a cache is not used at
 * all, with one warning. A cache without a tag (older archives) is used as before.
 * @param {{node: string, v8: string, tag?: number}} made the archive's codeCache index
 */
function fitsThisV8(made, archive, warn) {
  if (!made || made.tag === undefined) return true;
  const tag = require('node:v8').cachedDataVersionTag();
  if (made.tag === tag) return true;
  warn(`the code cache in ${archive} was made for another V8 (Node ${made.node}, V8 ${made.v8}, tag ${made.tag}; `
    + `this is Node ${process.version}, V8 ${process.versions.v8}, tag ${tag}: V8 flags such as --max-lazy or another CPU `
    + 'change the tag); modules compile as usual');
  return false;
}

/** Sources the cache can serve: no hashbang (the wrapper cannot hold it); on Node 20, no import(). */
function cacheable(source) {
  return !source.startsWith('#!') && !(IMPORT_LOST_WITH_CACHE && /\bimport\s*\(/.test(source));
}

/**
 * The ASCII sources of an archive's modules with a cache, each in the CommonJS wrapper, as slices
 * of one string that V8 keeps outside its heap (Node decodes latin1 text of more than a megabyte
 * into an external string). Decoded and wrapped one by one, an app's tens of megabytes of sources
 * are made in V8's young generation and copied by each scavenge that finds them alive; a slice is a
 * small object, which V8 compiles from the cache and later as it is (a wrapper joined to a slice
 * at compile time would not do: V8 flattens the joined string into its heap). Each module is
 * wrapped where it lies in the archive's bytes, the wrapper's head written over the end of its tar
 * header (read already) and its tail over the zeros that pad it to 512 bytes, and the span that
 * holds them is decoded once, with no other copy.
 * @param {Buffer} tar bytes of the archive read by archive-reader.js, which this changes as said
 * @param {Array<[string, number, number]>} modules [root-relative path, offset of its bytes in tar, size]
 * @returns {Array<{rel: string, text: string, start: number, end: number, sourceStart: number, sourceEnd: number}>}
 *   the wrapped source of each is text.slice(start, end), its source text.slice(sourceStart,
 *   sourceEnd); left out: UTF-8, a hashbang, no room for the tail (decoded alone, as before)
 */
function wrapInPlace(tar, modules) {
  const wrapped = [];
  for (const [rel, at, length] of modules) {
    const data = tar.subarray(at, at + length);
    const tailFits = (length % BLOCK || BLOCK) + WRAPPER_TAIL.length <= BLOCK;
    if (at < BLOCK || !tailFits || (data[0] === 0x23 && data[1] === 0x21) || !isAscii(data)) continue;
    tar.latin1Write(WRAPPER_HEAD, at - WRAPPER_HEAD.length);
    tar.latin1Write(WRAPPER_TAIL, at + length);
    wrapped.push({ rel, start: at - WRAPPER_HEAD.length, end: at + length + WRAPPER_TAIL.length, sourceStart: at, sourceEnd: at + length });
  }
  if (!wrapped.length) return wrapped;
  const low = wrapped[0].start;
  const text = tar.latin1Slice(low, wrapped[wrapped.length - 1].end);
  for (const source of wrapped) {
    Object.assign(source, { text, start: source.start - low, end: source.end - low, sourceStart: source.sourceStart - low, sourceEnd: source.sourceEnd - low });
  }
  return wrapped;
}

/** What makeRequireFunction gives a CommonJS module in Node, built on module.require. */
function makeRequire(mod) {
  const require = function require(id) {
    return mod.require(id);
  };
  require.resolve = function resolve(request, options) {
    return Module._resolveFilename(request, mod, false, options);
  };
  require.resolve.paths = function paths(request) {
    return Module._resolveLookupPaths(request, mod);
  };
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

/**
 * Runs a CommonJS module compiled by compile(), as Module.prototype._compile would.
 * @param {Module} mod @param {string} filename @param {vm.Script} script
 */
function runCompiled(mod, filename, script) {
  const fn = script.runInThisContext({ displayErrors: true });
  Reflect.apply(fn, mod.exports, [mod.exports, makeRequire(mod), mod, filename, path.dirname(filename)]);
}

module.exports = { compile, compileWrapped, wrapInPlace, runCompiled, withoutLoaderWarning, keepLoaderWarningOff, cacheable, fitsThisV8 };
