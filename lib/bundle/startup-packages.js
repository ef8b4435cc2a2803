'use strict';
// What a capture says about the packages an app needs to start, seen from a bundler: which
// package each loaded file belongs to, whether the preload or the entry loaded it, native
// addons, and files read with fs. Pure: a CaptureResult in, plain data out.
const path = require('path');
const { packageOf } = require('../package-name.js');
const { packageDir } = require('../capture/startup-files.js');

/**
 * @param {object} result CaptureResult (modules, files, outsideRoot, root, mainFile)
 * @param {{ ignore?: string[] }} [opts] ignore: files of our own (the probe and its log)
 * @returns {{
 *   packages: Map<string, {name: string, dirs: string[], files: string[], addons: string[], reads: string[], main: boolean, preload: boolean}>,
 *   app: { main: string[], preload: string[], reads: string[] },
 * }}
 */
function startupPackages(result, opts = {}) {
  const ignore = new Set(opts.ignore || []);
  const modules = result.modules.filter((m) => !ignore.has(m.file));
  const byFile = new Map(modules.map((m) => [m.file, m]));

  // Which side loaded each file: a chain that starts at the entry is 'main'; one that starts at
  // another top-level module before the entry is a preload's (the capture loads nothing else
  // before the entry). A parent the capture did not record counts as 'main', and so does a module
  // with none loaded once the entry began (CommonJS imported by an ES module, on Node 20): such a
  // module may be in the bundle.
  const entry = byFile.get(result.mainFile);
  const entryStart = entry ? entry.startMs : Infinity;
  const sides = new Map();
  const sideOf = (m) => {
    const chain = [];
    let cur = m;
    let side = null;
    while (!side) {
      if (sides.has(cur.file)) side = sides.get(cur.file);
      else if (chain.includes(cur)) side = 'main'; // a cycle in the records: be conservative
      else if (!cur.parent) side = cur.file === result.mainFile || cur.startMs >= entryStart ? 'main' : 'preload';
      else if (cur.file === result.mainFile) side = 'main';
      else if (!byFile.has(cur.parent)) side = 'main';
      else { chain.push(cur); cur = byFile.get(cur.parent); continue; }
      chain.push(cur);
    }
    for (const c of chain) sides.set(c.file, side);
    return side;
  };

  const packages = new Map();
  const entryFor = (name) => {
    if (!packages.has(name)) packages.set(name, { name, dirs: [], files: [], addons: [], reads: [], main: false, preload: false });
    return packages.get(name);
  };
  const app = { main: [], preload: [], reads: [] };

  for (const m of modules) {
    const side = sideOf(m);
    const name = packageOf(m.file);
    if (name === '(app)') {
      app[side].push(m.file);
      continue;
    }
    const p = entryFor(name);
    const dir = packageDir(m.file);
    if (dir && !p.dirs.includes(dir)) p.dirs.push(dir);
    p.files.push(m.file);
    if (m.kind === 'addon' || m.file.endsWith('.node')) p.addons.push(m.file);
    p[side] = true;
  }

  const moduleFiles = new Set(modules.map((m) => m.file));
  const reads = [
    ...result.files.filter((f) => f.via === 'fs').map((f) => path.join(result.root, f.path)),
    ...result.outsideRoot.filter((f) => !moduleFiles.has(f)),
  ];
  for (const file of reads) {
    if (ignore.has(file)) continue;
    if (path.basename(file) === 'package.json') continue; // metadata: version checks read other packages' too
    const name = packageOf(file);
    if (name === '(app)') {
      app.reads.push(file);
      continue;
    }
    const p = entryFor(name);
    const dir = packageDir(file);
    if (dir && !p.dirs.includes(dir)) p.dirs.push(dir);
    if (file.endsWith('.node')) p.addons.push(file);
    else p.reads.push(file);
  }
  for (const list of [app.main, app.preload, app.reads]) list.sort();
  return { packages, app };
}

module.exports = { startupPackages };
