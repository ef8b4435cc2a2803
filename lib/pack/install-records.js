'use strict';
// The install record of each node_modules tree the archive draws on (archive-format.js
// INSTALL_RECORDS), as pack finds it: the index carries it, and start's default check stats that
// one file for the tree instead of each of its packed files (lib/start/install-check.js).
const fs = require('fs');
const path = require('path');
const { INSTALL_RECORDS, installTreeOf } = require('../archive-format.js');

/**
 * @param {string} root
 * @param {string[]} files the root-relative files packed
 * @returns {Array<[string, string, number, number]>} [tree, record file, size, mtimeMs], sorted by tree;
 *   a tree without a record (not installed by a package manager this knows) is checked file by file
 */
function installRecords(root, files) {
  const trees = [...new Set(files.map(installTreeOf).filter((tree) => tree !== undefined))].sort();
  const records = [];
  for (const tree of trees) {
    // A tree installed by one manager over another's keeps the first one's record, never written
    // again (pnpm leaves npm's): the one written last is the manager that installs the tree now.
    let newest = null;
    for (const name of INSTALL_RECORDS) {
      const record = `${tree}/${name}`;
      const st = fs.lstatSync(path.join(root, record), { throwIfNoEntry: false });
      if (st && st.isFile() && (!newest || st.mtimeMs > newest[3])) newest = [tree, record, st.size, st.mtimeMs];
    }
    if (newest) records.push(newest);
  }
  return records;
}

module.exports = { installRecords };
