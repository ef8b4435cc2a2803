'use strict';
// pack --code-cache: starts the app once under `coldstart start --mode memory` from an archive
// without cache, and takes the code cache the recorder writes at the ready moment (see
// lib/start/code-cache-recorder.js). The run has its own process group, killed afterwards
// (run-in-group.js).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runInGroup } = require('./run-in-group.js');
const { COLDSTART_BIN } = require('../paths.js');
const { RECORD_ENV, SETTLE_ENV } = require('../archive-format.js');
const { UNTIL_ENV } = require('../in-app/ready-moment.cjs');
const { readyMomentEnv } = require('../capture/launch.js');


/**
 * @param {object} options
 * @param {string} options.archive archive with the startup index and no code cache
 * @param {string[]} options.command the app command (`node [flags] entry args`)
 * @param {string} options.cwd the working directory, where the container starts it
 * @param {string} [options.root] the root the archive's paths are under (pack's root)
 * @param {object} options.env
 * @param {{mode: string, ms?: number}} options.until the capture's ready moment
 * @param {number} options.timeoutMs
 * @param {number} [options.settleMs] the cache also holds what loads this long after the ready moment
 * @param {(name: string) => boolean} [options.wanted] the compile-cache entries to keep, by file name
 * @returns {Promise<{blob: Buffer, index: object, esm: Map<string, Buffer>}>} esm: the entries Node's
 *   compile cache wrote in the run (Node 22.1+) that `wanted` names, by file name (esm-code-cache.js);
 *   rejects with the reason the run gave no cache
 */
async function recordCodeCacheRun({ archive, command, cwd, root, env, until, timeoutMs, settleMs = 0, wanted = () => false }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-cache-'));
  const out = path.join(dir, 'cache.json');
  try {
    const exit = await runInGroup(process.execPath, [COLDSTART_BIN, 'start', '--quiet', '--trust-archive', '--archive', archive, ...(root ? ['--root', root] : []), '--', ...command], {
      cwd,
      env: { ...env, [RECORD_ENV]: out, [UNTIL_ENV]: readyMomentEnv(until), ...(settleMs ? { [SETTLE_ENV]: String(settleMs) } : {}) },
      timeoutMs,
      stderrChars: 2000,
      leftovers: [dir],
    });
    if (exit.error) throw new Error(`could not start the app: ${exit.error.message}`);
    if (exit.timedOut) throw new Error(`the app was not ready after ${Math.round(timeoutMs / 1000)} s`);
    if (!fs.existsSync(out)) {
      const last = exit.stderr.trim().split('\n').pop();
      throw new Error(`the app ended (${exit.signal || `exit code ${exit.code}`}) before its ready moment${last ? `: ${last}` : ''}`);
    }
    const index = JSON.parse(fs.readFileSync(out, 'utf8'));
    return { blob: fs.readFileSync(`${out}.bin`), index, esm: compileCacheEntries(`${out}.esm`, wanted) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The files Node's compile cache made in dir that `wanted` names (its own entries for coldstart's
 * files and the CommonJS modules are there too), by name; empty without any.
 */
function compileCacheEntries(dir, wanted) {
  const entries = new Map();
  let subdirs = [];
  try { subdirs = fs.readdirSync(dir); } catch { return entries; }
  for (const subdir of subdirs) {
    for (const name of fs.readdirSync(path.join(dir, subdir))) {
      if (wanted(name)) entries.set(name, fs.readFileSync(path.join(dir, subdir, name)));
    }
  }
  return entries;
}

module.exports = { recordCodeCacheRun };
