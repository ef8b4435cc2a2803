'use strict';
// The memory mode of `coldstart start`: find the files in the archive (already read with one
// read), check it was made for this Node, and install the in-memory loader. An archive written
// by `coldstart pack` starts with its index, which says where every file lies: nothing else is
// parsed up front. Any other tar (made by hand, or re-made by another tool) is walked once.
const { readTarEntries } = require('./tar-reader.js');
const { readLeadEntry, archiveFiles, archiveName, escapesRoot } = require('./archive-layout.js');
const { INDEX_PATH, INDEX_VERSION } = require('./startup-index.js');
const { CACHE_PATH, RECORD_ENV, UNTIL_ENV } = require('./code-cache.js');

/**
 * Never throws: any problem is one warning and the app starts from disk.
 * @returns {boolean} whether the loader was installed
 */
function loadIntoMemory(buffer, { root, archive, verify, quiet, started, warn, warnRefused, writeLine }) {
  let found;
  try {
    found = openLaidOut(buffer) || walkArchive(buffer);
  } catch (err) {
    warn(`cannot read archive ${archive}: ${err.message}; starting the app without it`);
    return false;
  }
  const { files, index, codeCache, refused } = found;
  if (index && (index.version !== INDEX_VERSION || index.node !== process.version || index.arch !== process.arch)) {
    warn(`${archive} was packed with Node ${index.node} (${index.arch}), this is ${process.version} (${process.arch}); starting the app without it (re-run coldstart pack)`);
    return false;
  }
  // No index (packed from a --manifest, or made by hand): sources still come from memory,
  // resolution goes through Node as usual.
  warnRefused(refused);
  const { installMemoryLoader } = require('./memory-loader.js');
  const recorder = process.env[RECORD_ENV] ? startRecording() : null;
  const { stats } = installMemoryLoader({ root, files, index, codeCache, recorder, verify, warn });
  if (!quiet) {
    const { formatBytes } = require('../format-bytes.js');
    const ms = Math.round(performance.now() - started);
    const resolutions = index ? index.resolutions.length + (index.esmResolutions || []).length : 0;
    const cached = stats.cacheModules ? `, code cache for ${stats.cacheModules} modules` : '';
    const esm = stats.esmModules ? `, ${stats.esmModules} ES modules` : '';
    writeLine(2, `coldstart: serving ${files.count} files, ${formatBytes(files.bytes)} from memory (${resolutions} resolutions${esm}${cached}) in ${ms} ms`);
  }
  if (process.env.COLDSTART_DEBUG_CACHE) {
    process.on('exit', () => writeLine(2, `coldstart: code cache used for ${stats.cacheHits} modules, rejected for ${stats.cacheRejected}; ${files.mismatched || 0} layout mismatches`));
  }
  return true;
}

// pack --code-cache runs the app once this way to have V8 serialise what it compiled.
function startRecording() {
  const { recordCodeCache } = require('./code-cache-recorder.js');
  const out = process.env[RECORD_ENV];
  const until = process.env[UNTIL_ENV] || 'listen';
  delete process.env[RECORD_ENV]; // not for the app's own child processes
  delete process.env[UNTIL_ENV];
  return recordCodeCache(out, until);
}

// An archive from `coldstart pack`: its first file is the index, with the layout of the rest.
function openLaidOut(buffer) {
  const lead = readLeadEntry(buffer);
  if (!lead || lead.path !== INDEX_PATH) return null;
  const index = JSON.parse(lead.data.toString('utf8'));
  const files = archiveFiles(buffer, lead.end, index.layout, new Set([INDEX_PATH, CACHE_PATH]));
  if (!files) return null;
  return { files, index, codeCache: files.generated(CACHE_PATH) || null, refused: [] };
}

// Any other tar: every entry is read once, into a Map behind the same has/get as the layout.
function walkArchive(buffer) {
  const files = new Map();
  let index = null;
  let codeCache = null;
  let bytes = 0;
  const refused = [];
  for (const entry of readTarEntries(buffer)) {
    if (entry.type !== 'file') continue;
    const name = archiveName(entry.path);
    if (name === INDEX_PATH) {
      index = JSON.parse(entry.data.toString('utf8'));
      continue;
    }
    if (name === CACHE_PATH) {
      codeCache = entry.data;
      continue;
    }
    if (escapesRoot(name)) {
      refused.push(entry.path);
      continue;
    }
    files.set(name, entry.data);
    bytes += entry.data.length;
  }
  const view = { has: (rel) => files.has(rel), get: (rel) => files.get(rel), count: files.size, bytes, mismatched: 0 };
  return { files: view, index, codeCache, refused };
}

module.exports = { loadIntoMemory };
