'use strict';
// `start --mode extract` (and --into): the archive read whole and written over the app root (the
// working directory, or the app's folder below it) or into DIR, then the app run from where its
// entry landed. Loaded for that mode only.
const fs = require('node:fs');
const path = require('node:path');
const { entryExists } = require('../node-command.js');

/**
 * Extracts the archive; any problem is one warning and the app starts without it.
 * @returns {string} the directory the app should run from: --into when the archive landed there
 */
function loadExtracted(options, root, started, { fallback, warn, warnRefused, writeLine, listed }) {
  let buffer;
  try {
    const { checkArchiveStat, checkWholeRead } = require('../archive-format.js');
    const stat = fs.statSync(options.archive);
    checkArchiveStat(stat);
    checkWholeRead(stat.size); // read whole: bounded
    buffer = fs.readFileSync(options.archive);
  } catch (err) {
    const reason = err.code === 'ENOENT' ? `archive not found: ${options.archive}`
      : `cannot read archive ${options.archive}: ${err.message}`;
    warn(reason + fallback);
    return root;
  }
  const into = options.into ? path.resolve(process.cwd(), options.into) : root;
  let result;
  try {
    const { extractArchive } = require('./extract.js');
    result = extractArchive(buffer, into);
  } catch (err) {
    warn(`could not extract ${options.archive} into ${into}: ${err.message}${fallback}`);
    return root;
  }
  if (!options.quiet) {
    const { formatBytes, formatMs } = require('../format-units.js');
    writeLine(2, `coldstart: extracted ${result.files} files, ${formatBytes(result.bytes)} in ${formatMs(performance.now() - started)} ms`);
  }
  warnRefused(result.refused);
  globalThis[Symbol.for('coldstart.start')] = { mode: 'extract', verify: options.verify, codeCacheModules: 0, index: false };
  if (result.throughLinks.length) {
    warn(`not written through symlinks already in ${into}: ${listed(result.throughLinks)}`);
  }
  if (result.damaged.length) {
    warn(`not written: ${result.damaged.length} files whose bytes are not what pack recorded (damaged, or changed after packing); the app's own copies are used: ${listed(result.damaged)}`);
  }
  if (options.report) {
    require('../in-app/startup-report.cjs').startupReport({ report: options.report, root: into, archive: options.archive, archiveReadyMs: performance.now() });
  }
  return into;
}

// --into: the app runs from DIR when its entry landed there; an archive without the entry
// leaves the app where it is, so it starts as it would without --into.
function moveToRunDir(entry, root, runDir, options, warn) {
  const rel = path.relative(root, entry);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    warn(`${entry} is outside the app root ${root}, so it is not looked up in ${runDir}`);
    process.chdir(runDir);
    return entry;
  }
  const moved = path.join(runDir, rel);
  if (!entryExists(moved)) {
    warn(`${options.app.entry} is not in ${options.archive}; starting the app from the working directory, not ${runDir}`);
    return entry;
  }
  process.chdir(runDir);
  require('./require-from-origin.js').requireFromOrigin(root, runDir, warn);
  return moved;
}

module.exports = { loadExtracted, moveToRunDir };
