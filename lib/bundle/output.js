'use strict';
// The bundle directory, written whole or not at all: everything goes into a temp directory
// beside --out, which then replaces the previous bundle in one rename.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');
const { copyRuntimeModules } = require('./runtime-modules.js');

const MARKER = '.coldstart-bundle.json';

/** Refuses an --out that would clobber the app or a directory that is not ours. */
function checkOutDir(out, root) {
  const fromRoot = path.relative(out, root);
  if (!fromRoot || (!fromRoot.startsWith('..') && !path.isAbsolute(fromRoot))) {
    throw new UsageError(`--out ${out} contains the app itself: choose a directory of its own`);
  }
  let st = null;
  try { st = fs.statSync(out); } catch { /* does not exist yet */ }
  if (st && !st.isDirectory()) throw new UsageError(`--out ${out} is not a directory`);
  if (st && fs.readdirSync(out).length && !fs.existsSync(path.join(out, MARKER))) {
    throw new UsageError(`--out ${out} exists and holds something else than a coldstart bundle: remove it or choose another directory`);
  }
  const parent = path.dirname(out);
  try {
    require('../make-dir.js').makeDir(parent);
    fs.accessSync(parent, fs.constants.W_OK);
  } catch (err) {
    throw new UsageError(`cannot write --out ${out}: ${err.code || err.message}`);
  }
}

/**
 * @param {object} opts
 * @param {string} opts.out
 * @param {string} opts.entryRel where the bundle goes, relative to out (the entry's own path)
 * @param {string} opts.code the bundle
 * @param {Record<string, {source: Buffer|string, permissions?: number}>} opts.assets relative to the bundle
 * @param {Record<string, string>} [opts.symlinks] relative to the bundle
 * @param {Array<{from: string, to: string}>} opts.copies app files to copy (to: relative to out)
 * @param {Array<{src: string, dest: string}>} opts.placements runtime node_modules
 * @param {object} opts.packageJson
 * @param {object} opts.manifest written as .coldstart-bundle.json
 */
function writeBundleDir(opts) {
  const { out } = opts;
  const tmp = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.${Date.now()}.tmp`);
  const put = (rel, data, mode) => {
    const file = path.join(tmp, ...rel.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data, mode ? { mode } : undefined);
  };
  try {
    fs.mkdirSync(tmp);
    for (const c of opts.copies) {
      const dest = path.join(tmp, ...c.to.split('/'));
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      fs.copyFileSync(c.from, dest);
    }
    copyRuntimeModules(opts.placements, tmp);
    const bundleDir = path.posix.dirname(opts.entryRel);
    const beside = (name) => (bundleDir === '.' ? name : `${bundleDir}/${name}`);
    for (const [name, asset] of Object.entries(opts.assets)) put(beside(name), asset.source, asset.permissions);
    for (const [name, target] of Object.entries(opts.symlinks || {})) {
      const link = path.join(tmp, ...beside(name).split('/'));
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(target, link);
    }
    put(opts.entryRel, opts.code);
    put('package.json', JSON.stringify(opts.packageJson, null, 2) + '\n');
    put(MARKER, JSON.stringify(opts.manifest, null, 2) + '\n');

    let old = null;
    if (fs.existsSync(out)) {
      old = `${tmp}.old`;
      fs.renameSync(out, old);
    }
    fs.renameSync(tmp, out);
    if (old) fs.rmSync(old, { recursive: true, force: true });
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

module.exports = { checkOutDir, writeBundleDir, MARKER };
