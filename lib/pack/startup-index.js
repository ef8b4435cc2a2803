'use strict';
// The startup index `start --mode memory` reads (lib/archive-format.js): how each startup
// request resolved and what format each module has, so the launcher can load them without
// asking the filesystem. Pure.
const { crc32 } = require('node:zlib');
const { INDEX_VERSION, SUM_KEY } = require('../archive-format.js');

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

/**
 * The index as the archive's lead entry: its JSON with a last member "sum", the CRC-32 of every
 * archive byte after the lead entry continued over the JSON before that member. One check at
 * start then covers the whole archive, the index's own offsets included.
 * @param {object} index
 * @param {number} tailCrc CRC-32 of the archive bytes after the lead entry
 * @returns {Buffer}
 */
function sealIndex(index, tailCrc) {
  const open = Buffer.from(JSON.stringify(index).slice(0, -1));
  return Buffer.concat([open, Buffer.from(`${SUM_KEY}${crc32(open, tailCrc)}}`)]);
}

module.exports = { buildStartupIndex, sealIndex };
