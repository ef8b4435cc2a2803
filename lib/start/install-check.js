'use strict';
// The default check of an installed node_modules tree: one stat of the file its package manager
// rewrites at every install (archive-format.js INSTALL_RECORDS), not one per packed file. While
// that file is as pack saw it, no install ran after pack and the tree's packed files stand; once
// it moved, each of the tree's files is checked on its own, as every file outside such a tree is,
// and where a request into the tree leads is Node's to find again (an install may have moved a
// link, as pnpm's do, or nested another version).
const fs = require('fs');
const path = require('path');
const { installTreeOf, fileHolds } = require('../archive-format.js');

/**
 * @param {object} options
 * @param {string} options.root
 * @param {Array<[string, string, number, number]>} options.records index.installRecords:
 *   [tree, record file, size, mtimeMs] as pack found them
 * @param {(message: string) => void} options.warn told once per tree whose record moved
 * @param {Array<{ tree: string, record: string, held: boolean }>} [options.seen] each record read is added here
 * @returns {{ installed(rel: string): boolean, moved(rel: string): boolean }} whether rel lies in a
 *   tree whose record is as packed (its file stands as packed), or in one whose record moved (its
 *   file, and the archive's resolutions to it, are to be checked)
 */
function installCheck({ root, records, warn, seen = [] }) {
  const byTree = new Map(records.map((record) => [record[0], record]));
  const holds = new Map(); // tree -> boolean, one stat each
  function recordHolds(rel) {
    const tree = installTreeOf(rel);
    if (tree === undefined || !byTree.has(tree)) return undefined;
    let ok = holds.get(tree);
    if (ok === undefined) {
      const [, record, size, mtimeMs] = byTree.get(tree);
      let st = null;
      try { st = fs.statSync(path.join(root, record), { throwIfNoEntry: false }); } catch { /* unreadable */ }
      ok = fileHolds(st, size, mtimeMs);
      holds.set(tree, ok);
      seen.push({ tree, record, held: ok });
      if (!ok) warn(`${record} ${st ? 'changed' : 'is gone'} since the archive was made (an install after coldstart pack?): each packed file under ${tree} is checked on disk (re-run coldstart pack after the install)`);
    }
    return ok;
  }
  return {
    installed: (rel) => recordHolds(rel) === true,
    moved: (rel) => recordHolds(rel) === false,
  };
}

module.exports = { installCheck };
