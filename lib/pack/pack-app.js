'use strict';
// pack: capture the app to its ready moment (no profiler), or read a saved manifest, then write
// a deterministic tar of the startup files inside the root, with the startup index and, when
// asked, the code cache. Returns the summary; warnings are in it, nothing is printed here.
const path = require('path');
const { UsageError, CommandError } = require('../errors.js');
const { relativeInside } = require('../paths.js');
const { warning } = require('../warnings.js');

/**
 * @param {object} options
 * @param {string} options.out            the archive to write
 * @param {string} [options.manifest]     pack the paths listed in this file instead of running the app
 * @param {string} [options.root]         the root for --manifest (default: cwd)
 * @param {string} options.cwd
 * @param {?object} [options.capture]     capture options (command, cwd, env, until, timeoutMs, root, esm)
 * @param {?('run'|'compile')} [options.codeCache] also store V8 code cache for the CommonJS startup
 *   modules: recorded from a run of the app under coldstart start, or compiled without running them
 * @param {string} [options.snapshot]     also write a startup snapshot of the CommonJS startup modules here
 * @param {boolean} [options.check]       start the app from the archive's files alone once written (default true)
 * @param {(text: string) => void} [options.onProgress] told as each phase begins (progress lines)
 * @returns {Promise<object>} the summary (archive, root, files, bytes, codeCache, snapshot, check, tree, outsideRoot, missing, warnings, ms)
 */
async function packApp({ out, manifest, root: manifestRoot, cwd, capture: captureOptions, codeCache: codeCacheMode = null, snapshot: snapshotOut, check = true, onProgress = () => {} }) {
  const started = process.hrtime.bigint();
  const source = manifest ? fromManifest(path.resolve(cwd, manifest), path.resolve(cwd, manifestRoot || '.')) : await fromRun(captureOptions, onProgress);
  const { root, appRun, readyAt } = source;
  const { files, outside, missing } = require('./manifest.js').confineToRoot(source.listed, root);
  const outsideRoot = [...source.outsideRoot, ...outside];
  const warnings = packWarnings(outsideRoot, missing, root);
  if (!files.length) throw new CommandError('nothing to pack: no startup file inside the root');
  if (files.includes(relativeInside(root, out))) {
    throw new UsageError(`--out ${out} would overwrite a startup file`);
  }
  const index = source.index && { ...source.index, installRecords: require('./install-records.js').installRecords(root, files) };
  const write = archiveWriter(root, files, index, out);
  let codeCache = null;
  if (codeCacheMode && index) {
    const { makeCodeCache } = require('./make-code-cache.js');
    const recording = codeCacheMode === 'run';
    onProgress(recording ? 'recording the code cache: a second start, under coldstart start' : 'compiling the code cache');
    codeCache = await makeCodeCache({ root, index, appRun: recording ? appRun : null, write, out, warnings });
  }
  onProgress(`writing ${files.length} files into the archive`);
  const written = write(out, codeCache);
  const snapshot = snapshotOut && index
    ? await snapshotOf({ out: snapshotOut, archive: out, root, files, order: source.order, index, codeCache, appRun }, warnings, onProgress) : null;
  const checked = check && appRun ? await checkWritten({ out, root, appRun, outsideRoot, snapshot }, onProgress) : null;
  const { treeSize } = require('../tree-size.js');
  return {
    archive: out,
    root,
    files: files.length,
    bytes: written.bytes - written.generatedBytes,
    codeCache: codeCache && {
      modules: Object.keys(codeCache.index.entries).length, esModules: Object.keys(codeCache.index.esm || {}).length, bytes: codeCache.blob.length, made: codeCache.made,
    },
    snapshot,
    check: checked,
    archiveBytes: written.archiveBytes,
    tree: treeSize(root, { skip: [out, snapshotOut].filter(Boolean) }), // what pack wrote is not the app
    readyAt,
    outsideRoot,
    missing,
    warnings,
    ms: Number(process.hrtime.bigint() - started) / 1e6,
  };
}

/** What a manifest lists, under the root given: no run, so no index and nothing to check by running. */
function fromManifest(file, root) {
  const listed = require('./manifest.js').readManifestFile(file);
  return { root, listed, outsideRoot: [], readyAt: null, index: null, appRun: null, order: [] };
}

/**
 * The app run to its ready moment (no profiler): the files it needed, its startup index, the order
 * it loaded its modules in (root-relative) and how to run it again (the code cache, the check).
 */
async function fromRun(captureOptions, onProgress) {
  const { capture } = require('../capture/capture.js');
  const { withInterrupts } = require('../interrupt.js');
  onProgress(`running the app to its ready moment${captureOptions.settleMs ? ` and ${captureOptions.settleMs} ms on` : ''}`);
  const result = await withInterrupts((traps) => capture({
    ...captureOptions,
    profile: false,
    signal: traps.signal,
    force: traps.force,
  })).catch((err) => {
    // An app that needs a setting to start fails here first, in an image's build.
    if (err.code === 'APP_FAILED' && !captureOptions.lambda) err.message += '; pack runs the app: give settings it needs to start (not secrets) harmless values, e.g. ENV in the pack stage';
    throw err;
  });
  if (result.partial) throw new CommandError('interrupted: nothing packed', { exitCode: 130 });
  const failed = require('../analyze/startup-report.js').invocationFailure(result.lambda);
  if (failed) throw new CommandError(`the first invocation failed (${failed}): nothing packed`);
  const { command, env, until, timeoutMs, settleMs, lambda } = captureOptions;
  return {
    root: result.root,
    listed: result.files.map((f) => f.path),
    outsideRoot: result.outsideRoot,
    readyAt: result.readyAt,
    index: startupIndex(result),
    appRun: { command, cwd: captureOptions.cwd, root: result.root, env, until, timeoutMs, settleMs, lambda },
    order: result.modules.map((m) => relativeInside(result.root, m.file)).filter(Boolean),
  };
}

/** write(target, codeCache): the archive of these files; the files are read once, however many archives are written. */
function archiveWriter(root, files, index, out) {
  let prepared = null;
  return (target, codeCache) => {
    const { writeArchive, prepareArchive } = require('./archive.js');
    try {
      prepared = prepared || prepareArchive({ root, files });
      return writeArchive({ prepared, out: target, ...archiveEntries(index, codeCache) });
    } catch (err) {
      if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'ENOTDIR' || err.code === 'EROFS') {
        throw new UsageError(`cannot write --out ${out}: ${err.code}`);
      }
      throw err;
    }
  };
}

/** The startup snapshot, with a warning when none was written or when it holds less than half the modules. */
async function snapshotOf(options, warnings, onProgress) {
  onProgress('making the startup snapshot: the CommonJS startup modules evaluated under node --build-snapshot');
  const { makeSnapshot, refusalText } = require('./make-snapshot.js');
  const snapshot = await makeSnapshot(options);
  if (snapshot.refused) {
    warnings.push(warning('PACK_SNAPSHOT_REFUSED', `no snapshot written: ${refusalText(snapshot.refused)}; the archive serves coldstart start as usual`, snapshot.refused));
  } else if (snapshot.leftOut.length > snapshot.modules) {
    // Most modules still load at start, from a snapshot that carries their files: it may well
    // start slower than `coldstart start` (measured so for express + googleapis, BENCHMARKS.md).
    warnings.push(warning('PACK_SNAPSHOT_PARTIAL', `the snapshot holds ${snapshot.modules} of ${snapshot.modules + snapshot.leftOut.length} startup modules (the rest load at start, see --json); time it against coldstart start before using it`,
      { modules: snapshot.modules, leftOut: snapshot.leftOut.length }));
  }
  return snapshot;
}

/** The app started from the archive's files alone, in an empty directory; a failed check leaves no archive or snapshot behind. */
async function checkWritten({ out, root, appRun, outsideRoot, snapshot }, onProgress) {
  onProgress('checking the archive: the app started from its files alone, in an empty directory');
  const { checkArchive } = require('./archive-check.js');
  const { withInterrupts } = require('../interrupt.js');
  try {
    const leftOut = outsideRoot.map((f) => relativeInside(root, path.resolve(root, f))).filter(Boolean);
    return await withInterrupts((traps) => checkArchive({ archive: out, root, appRun, leftOut, signal: traps.signal }));
  } catch (err) {
    for (const file of [out, snapshot && snapshot.file]) if (file) require('fs').rmSync(file, { force: true });
    throw err;
  }
}

/**
 * What was left out: startup files named inside the root whose real place is outside it (a
 * symlink, or a directory on the way, leading out), files read outside the root, listed files
 * that are missing. None is packed.
 */
function packWarnings(outsideRoot, missing, root) {
  const warnings = [];
  const insideName = (f) => relativeInside(root, path.resolve(root, f));
  const linked = outsideRoot.filter((f) => insideName(f) !== null);
  if (linked.length) {
    const shown = linked.slice(0, 3).map(insideName).join(', ');
    const more = linked.length > 3 ? ` and ${linked.length - 3} more` : '';
    warnings.push(warning('PACK_LINK_OUTSIDE_ROOT',
      `not packed: ${shown}${more} lead${linked.length === 1 ? 's' : ''} outside the root through a symlink`, { files: linked }));
  }
  const elsewhere = outsideRoot.filter((f) => insideName(f) === null);
  if (elsewhere.length) {
    warnings.push(warning('PACK_OUTSIDE_ROOT',
      `not packed: ${elsewhere.length} file${elsewhere.length === 1 ? '' : 's'} read outside the root ${root} (e.g. ${elsewhere[0]})`, { files: elsewhere }));
  }
  if (missing.length) {
    warnings.push(warning('PACK_LISTED_MISSING',
      `not packed: ${missing.length} listed file${missing.length === 1 ? ' is' : 's are'} missing (e.g. ${missing[0]})`, { files: missing }));
  }
  return warnings;
}

/** The index `start --mode memory` reads: resolutions and module formats. */
function startupIndex(result) {
  const { buildStartupIndex } = require('./startup-index.js');
  const { packageTypeReader } = require('../in-app/package-type.cjs');
  return buildStartupIndex(result, packageTypeReader(), (f) => relativeInside(result.root, f));
}

/**
 * The generated entries: the index first, with where every file lies in the archive (so
 * start reads nothing else up front) and the archive's checksum, and the code cache when there is one.
 */
function archiveEntries(index, codeCache) {
  if (!index) return {};
  const { INDEX_PATH, CACHE_PATH } = require('../archive-format.js');
  const { sealIndex } = require('./startup-index.js');
  const full = codeCache ? { ...index, codeCache: codeCache.index } : index;
  return {
    leadEntry: { path: INDEX_PATH, data: (layout, tailCrc) => sealIndex({ ...full, layout }, tailCrc) },
    extraEntries: codeCache ? [{ path: CACHE_PATH, data: codeCache.blob }] : [],
  };
}

module.exports = { packApp };
