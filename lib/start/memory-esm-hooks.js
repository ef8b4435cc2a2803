'use strict';
// ES module half of `start --mode memory`: in-thread loader hooks (module.registerHooks,
// Node >= 22.15) that answer recorded resolutions without touching the filesystem and
// hand Node the module sources from the archive. On Node 20 the only hooks are the
// off-thread module.register ones: measured with the 1000-module ESM fixture, they cost
// more than they save (host 405 -> 585 ms, gVisor 1420 -> 1590 ms), so ES modules are
// left to Node's own loader there.

// The hooks see every require() too. Measured under gVisor on Node 24: they cost an express +
// googleapis + firebase-admin app 48 ms over its 2,243 CommonJS resolutions (about 21 µs each) to
// serve its 3 ES modules, and save about 1.8 ms per ES module they serve (a 300-module ES module
// app: 876 -> 323 ms, their own setup included). BENCHMARKS.md, "ES module hooks".
const path = require('node:path');

const HOOK_COST_PER_RESOLUTION_MS = 0.021;
const HOOK_SAVING_PER_ES_MODULE_MS = 1.8;

/** Whether serving these ES modules through the hooks saves more than the hooks cost require(). */
function esmHooksPay(esModules, commonJsResolutions) {
  return esModules * HOOK_SAVING_PER_ES_MODULE_MS > commonJsResolutions * HOOK_COST_PER_RESOLUTION_MS;
}

/**
 * @param {Array<[string, string, string]>} resolutions [importing file, specifier, file]
 * @param {Array<[string, string]>} sources [file, source text]
 * @returns {{ resolve: Function, load: Function }} hooks for module.registerHooks
 */
function memoryEsmHooks(resolutions, sources) {
  const { pathToFileURL } = require('node:url'); // not loaded where the hooks do not pay
  // A path of characters a file: URL keeps as they are is its URL after "file://": pathToFileURL
  // (a URL parse each) only for the others, and on Windows.
  const plain = path.sep === '/' ? /^\/[\w./@+-]*$/ : null;
  const urlOf = (file) => (plain && plain.test(file) ? `file://${file}` : pathToFileURL(file).href);
  const byKey = new Map();
  for (const [parent, specifier, file] of resolutions) {
    byKey.set(`${urlOf(parent)}\0${specifier}`, urlOf(file));
  }
  const byUrl = new Map(sources.map(([file, source]) => [urlOf(file), source]));
  return {
    resolve(specifier, context, nextResolve) {
      const url = context.parentURL && byKey.get(`${context.parentURL}\0${specifier}`);
      if (url && byUrl.has(url)) return { url, format: 'module', shortCircuit: true };
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      const source = byUrl.get(url);
      if (source !== undefined && (context.format === 'module' || context.format === undefined)) {
        return { format: 'module', source, shortCircuit: true };
      }
      return nextLoad(url, context);
    },
  };
}

/**
 * Registers the hooks for the archive's ES modules where they pay (memory-loader.js has checked
 * this Node has in-thread hooks); what they serve, or why not, is counted in stats for the serving line.
 */
function registerMemoryEsmHooks({ modules, absOf, index, servable, stats, followed }) {
  if (!esmHooksPay(modules.length, index.resolutions.length)) {
    stats.esmLeftToNode = modules.length; // said in the serving line, with why
    return;
  }
  const sources = [];
  for (const [rel] of modules) {
    const data = servable(absOf(rel), rel);
    if (data) sources.push([absOf(rel), data.toString('utf8')]);
  }
  if (!sources.length) return;
  const resolutions = (index.esmResolutions || []).filter(followed)
    .map(([from, specifier, to]) => [absOf(from), specifier, absOf(to)]);
  require('node:module').registerHooks(memoryEsmHooks(resolutions, sources));
  stats.esmModules = sources.length;
}

module.exports = { memoryEsmHooks, esmHooksPay, registerMemoryEsmHooks };
