'use strict';
// The archive's index for `start --mode memory`: how each startup request resolved
// and what format each module has, so the launcher can load them without asking
// the filesystem. Stored as one extra tar entry; the tar stays a plain tar. Pure.

const INDEX_PATH = '.coldstart/startup-index.json';
const INDEX_VERSION = 1;

/**
 * @param {object} result CaptureResult (root-relative resolutions, modules)
 * @param {(absFile: string) => 'module'|'commonjs'} scopeTypeOf package "type" governing a file
 * @param {(absFile: string) => string} rel root-relative path of an absolute file
 */
function buildStartupIndex(result, scopeTypeOf, rel) {
  const formats = {};
  for (const m of result.modules) {
    const r = rel(m.file);
    if (!r) continue;
    let format = m.kind === 'esm' ? 'module' : m.kind === 'json' ? 'json' : m.kind === 'addon' ? 'addon' : 'commonjs';
    // A .js file in a "type": "module" package is ESM even when loaded by require().
    if (format === 'commonjs' && m.file.endsWith('.js') && scopeTypeOf(m.file) === 'module') format = 'module';
    formats[r] = format;
  }
  return {
    version: INDEX_VERSION,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    resolutions: result.resolutions || [],
    esmResolutions: result.esmResolutions || [],
    formats,
  };
}

module.exports = { buildStartupIndex, INDEX_PATH, INDEX_VERSION };
