'use strict';
// The preload form of `coldstart start`, for platforms that own the command (Lambda's runtime, the
// Functions Framework, buildpacks, npm start, PM2): `node --require coldstart/start` or the same in
// NODE_OPTIONS serves the archive to whatever entry the platform then runs. Configured by
// environment only:
//   COLDSTART_ARCHIVE  the archive (made by coldstart pack); without it, nothing happens
//   COLDSTART_ROOT     the directory the archive's paths are under (default: the working directory)
//   COLDSTART_MODE     memory (default) | extract (written over COLDSTART_ROOT)
//   COLDSTART_VERIFY   size (default) | none
//   COLDSTART_REPORT   FILE | stderr: the startup report, as with `start --report-file`
//   COLDSTART_QUIET=1  no summary line
// The same guarantees as `start`: it never stops the app from starting (a problem is one warning
// line), files changed or missing on disk come from disk, one summary line on stderr.
const path = require('node:path');

const GUARD = Symbol.for('coldstart.start.preload');

function preload(env = process.env) {
  if (globalThis[GUARD] || !env.COLDSTART_ARCHIVE) return;
  globalThis[GUARD] = true;
  const { isMainThread } = require('node:worker_threads');
  if (!isMainThread) return; // worker threads get NODE_OPTIONS too
  if (require('../package-manager-script.js').isPackageManager(process.argv[1])) return; // npm start: the app below it
  if (isColdstartCli(process.argv[1])) return; // profile --docker in the function's environment: the app below it
  const started = performance.now();
  const { warn, loadArchive } = require('./launcher.js');
  try {
    const root = path.resolve(env.COLDSTART_ROOT || process.cwd());
    // Child processes inherit them absolute: one archive and root whatever cwd a child gets.
    env.COLDSTART_ROOT = root;
    env.COLDSTART_ARCHIVE = path.resolve(root, env.COLDSTART_ARCHIVE);
    loadArchive({
      archive: env.COLDSTART_ARCHIVE,
      mode: env.COLDSTART_MODE || 'memory',
      verify: env.COLDSTART_VERIFY === 'none' ? 'none' : 'size',
      report: env.COLDSTART_REPORT || undefined,
      quiet: env.COLDSTART_QUIET === '1',
    }, root, started);
  } catch (err) {
    warn(`the preload could not serve ${env.COLDSTART_ARCHIVE} (${err.message}); the app starts without it`);
  }
}

/** Whether the main script is coldstart's CLI (any install of it, or its node_modules/.bin link). */
function isColdstartCli(main) {
  if (!main || !['coldstart', 'coldstart.js'].includes(path.basename(main))) return false;
  try {
    const fs = require('node:fs');
    const bin = fs.realpathSync(main);
    return JSON.parse(fs.readFileSync(path.join(path.dirname(bin), '..', 'package.json'), 'utf8')).name === 'coldstart';
  } catch {
    return false;
  }
}

module.exports = { preload };
