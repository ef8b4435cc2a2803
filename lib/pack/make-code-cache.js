'use strict';
// V8 code cache for the CommonJS startup modules. Recorded from a run of the app under
// `coldstart start` up to its ready moment, so it holds the functions startup ran; when that
// run cannot be made (the command is not `node <script>`, the app fails under start), the
// modules are compiled without running them, which caches their top-level code only.
const fs = require('fs');
const path = require('path');
const { warning } = require('../warnings.js');

/**
 * @param {{root: string, index: object, appRun: ?object, write: (target: string, codeCache: ?object) => object,
 *   out: string, warnings: object[]}} options  `warnings` receives why the cache was compiled instead of recorded
 * @returns {Promise<{index: object, blob: Buffer, made: 'run'|'compile'}>}
 */
async function makeCodeCache({ root, index, appRun, write, out, warnings }) {
  if (appRun) {
    const recorded = await recordCodeCache({ appRun, write, out, warnings });
    if (recorded) return recorded;
  }
  const { buildCodeCache } = require('./code-cache.js');
  const commonjs = Object.keys(index.formats).filter((rel) => index.formats[rel] === 'commonjs');
  return { ...buildCodeCache(root, commonjs), made: 'compile' };
}

/** The recorded cache, or null (with one warning) when the run gave none. */
async function recordCodeCache({ appRun, write, out, warnings }) {
  const uncached = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.uncached.tmp`);
  try {
    write(uncached, null);
    const { recordCodeCacheRun } = require('./code-cache-run.js');
    const recorded = await recordCodeCacheRun({ archive: uncached, ...appRun });
    if (Object.keys(recorded.index.entries).length) return { ...recorded, made: 'run' };
    warnings.push(warning('PACK_CODE_CACHE_UNUSED', 'the run under coldstart start compiled no module from the archive (is the working directory the app root?); code cache compiled without running the app'));
  } catch (err) {
    if (err.exitCode !== undefined) throw err;
    warnings.push(warning('PACK_CODE_CACHE_UNRECORDED', `could not record the code cache under coldstart start (${err.message}); compiling the modules without running them`, { error: err.message }));
  } finally {
    fs.rmSync(uncached, { force: true });
  }
  return null;
}

module.exports = { makeCodeCache };
