'use strict';
// V8 code cache for the startup modules (`pack --code-cache`): compiled at pack time,
// handed back to V8 at start so CommonJS modules are deserialized instead of parsed
// and compiled. Under gVisor compiling 1000 small modules took 130-300 ms, with the
// cache 86-118 ms (BENCHMARKS.md). V8 itself rejects a cache made by another Node or
// with other flags; the module is then compiled as usual.
//
// Modules are compiled as vm.Script of the CommonJS wrapper, with the wrapper's
// columns taken off line 1 so stack traces match a plain start. On Node 20 a script
// deserialized from a cache made in another process loses its import() callback
// (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING, seen here; vm.compileFunction has the same
// problem): modules whose source mentions import( get no cache and compile as usual.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const WRAPPER_COLUMNS = Module.wrap('').indexOf('{') + 2;
const CACHE_PATH = '.coldstart/code-cache.bin';
// Set by pack for its recording run of `coldstart start` (code-cache-run.js, code-cache-recorder.js).
const RECORD_ENV = 'COLDSTART_RECORD_CODE_CACHE';
const UNTIL_ENV = 'COLDSTART_RECORD_UNTIL';

/** Compiles like the loader would. */
function compile(source, filename, cachedData) {
  const options = {
    filename,
    columnOffset: -WRAPPER_COLUMNS,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  };
  return withoutLoaderWarning(() => new vm.Script(Module.wrap(source), options));
}

/**
 * Runs fn with Node 20's one-time ExperimentalWarning about USE_MAIN_CONTEXT_DEFAULT_LOADER kept
 * off stderr: the option is ours, so the warning would be ours, not the app's.
 */
function withoutLoaderWarning(fn) {
  const emitWarning = process.emitWarning;
  process.emitWarning = function quietLoaderWarning(warning) {
    if (String(warning && warning.message ? warning.message : warning).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return undefined;
    return emitWarning.apply(this, arguments);
  };
  try {
    return fn();
  } finally {
    process.emitWarning = emitWarning;
  }
}

function stripBOM(text) {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Builds the cache for CommonJS files (root-relative). Files that do not compile
 * (or start with a hashbang, which the wrapper cannot hold) are left out.
 * @returns {{ blob: Buffer, index: { node: string, v8: string, entries: Object<string, [number, number]> } }}
 */
function buildCodeCache(root, relFiles) {
  const caches = [];
  for (const rel of relFiles) {
    const filename = path.join(root, rel);
    let source;
    try {
      source = stripBOM(fs.readFileSync(filename, 'utf8'));
    } catch {
      continue;
    }
    if (!cacheable(source)) continue;
    try {
      caches.push([rel, compile(source, filename).createCachedData()]);
    } catch {
      continue; // a syntax error shows up when the app loads it, as it would anyway
    }
  }
  return joinCaches(caches);
}

/**
 * One blob of per-module caches, and the index of where each lies in it, tagged with the
 * Node and V8 that made them.
 * @param {Iterable<[string, Buffer]>} caches root-relative file -> its cached data
 * @returns {{ blob: Buffer, index: { node: string, v8: string, entries: Object<string, [number, number]> } }}
 */
function joinCaches(caches) {
  const parts = [];
  const entries = {};
  let offset = 0;
  for (const [rel, data] of caches) {
    entries[rel] = [offset, data.length];
    parts.push(data);
    offset += data.length;
  }
  return { blob: Buffer.concat(parts), index: { node: process.version, v8: process.versions.v8, entries } };
}

/** Sources the cache can serve: no hashbang (the wrapper cannot hold it), no import(). */
function cacheable(source) {
  return !source.startsWith('#!') && !/\bimport\s*\(/.test(source);
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

module.exports = {
  buildCodeCache, joinCaches, compile, runCompiled, withoutLoaderWarning, cacheable, stripBOM, CACHE_PATH, RECORD_ENV, UNTIL_ENV,
};
