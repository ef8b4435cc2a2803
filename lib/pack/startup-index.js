'use strict';
// The startup index `start --mode memory` reads (lib/archive-format.js): how each startup
// request resolved and what format each module has, so the launcher can load them without
// asking the filesystem. Pure.
const { INDEX_VERSION } = require('../archive-format.js');

/**
 * @param {object} result CaptureResult (root-relative resolutions, modules)
 * @param {(absFile: string) => 'module'|'commonjs'} scopeTypeOf package "type" governing a file
 * @param {(absFile: string) => string} rel root-relative path of an absolute file
 */
function buildStartupIndex(result, scopeTypeOf, rel) {
  const formats = new Map();
  for (const m of result.modules) {
    const r = rel(m.file);
    if (!r) continue;
    let format = m.kind === 'esm' ? 'module' : m.kind === 'json' ? 'json' : m.kind === 'addon' ? 'addon' : 'commonjs';
    // A .js file in a "type": "module" package is ESM even when loaded by require().
    if (format === 'commonjs' && m.file.endsWith('.js') && scopeTypeOf(m.file) === 'module') format = 'module';
    formats.set(r, format);
  }
  // ES modules load in an order that varies from run to run: every list and map is sorted, so
  // the same app gives the same bytes.
  return {
    version: INDEX_VERSION,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    resolutions: sortedTriples(result.resolutions),
    esmResolutions: sortedTriples(result.esmResolutions),
    formats: Object.fromEntries([...formats].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}

/** [from, request, file] triples sorted by their text, duplicates dropped. */
function sortedTriples(list) {
  const byKey = new Map((list || []).map((t) => [t.join('\0'), t]));
  return [...byKey.keys()].sort().map((k) => byKey.get(k));
}

module.exports = { buildStartupIndex };
