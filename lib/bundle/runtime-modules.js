'use strict';
// The node_modules a bundle still needs: the externals, the preload's packages, and everything
// they depend on, laid out the way npm would (hoisted to the top unless two versions collide).
// Each package is copied whole, since a hooked package may load any of its files later.
const fs = require('fs');
const path = require('path');
const { findPackageDir, readManifest } = require('../package-tree.js');

/** Where Node looks for `name` from a package installed at `dest` (posix, relative to the output). */
function lookupPaths(dest, name) {
  const out = [];
  let dir = dest;
  for (;;) {
    if (path.posix.basename(dir) !== 'node_modules') out.push(path.posix.join(dir, 'node_modules', name));
    if (!dir || dir === '.') break;
    const up = path.posix.dirname(dir);
    dir = up === '.' ? '' : up;
  }
  return out;
}

/**
 * Plans the node_modules tree.
 * @param {Array<{name: string, dir: string}>} roots packages the bundle or the preload require by name
 * @returns {{ placements: Array<{name: string, src: string, dest: string, version?: string}>,
 *             missing: Array<{name: string, from: string}> }}
 */
function planRuntimeModules(roots) {
  const placed = new Map(); // dest -> placement
  const placements = [];
  const missing = [];
  const queue = [];
  const place = (name, src, dest) => {
    const manifest = readManifest(src);
    const p = { name, src, dest, version: manifest && manifest.version };
    placed.set(dest, p);
    placements.push(p);
    queue.push({ p, manifest });
  };
  for (const r of roots) {
    const top = path.posix.join('node_modules', r.name);
    if (!placed.has(top)) place(r.name, r.dir, top);
  }
  while (queue.length) {
    const { p, manifest } = queue.shift();
    if (!manifest) continue;
    const optional = new Set([...Object.keys(manifest.optionalDependencies), ...Object.keys(manifest.peerDependencies)]);
    const deps = [...new Set([...Object.keys(manifest.dependencies), ...optional])].sort();
    for (const dep of deps) {
      const src = findPackageDir(dep, p.src);
      if (!src) {
        if (!optional.has(dep)) missing.push({ name: dep, from: p.name });
        continue;
      }
      let found = null;
      for (const candidate of lookupPaths(p.dest, dep)) {
        if (placed.has(candidate)) { found = placed.get(candidate); break; }
      }
      if (found && found.src === src) continue;
      // Nothing on the lookup path: hoist to the top. Another version there: nest it under p.
      place(dep, src, found ? path.posix.join(p.dest, 'node_modules', dep) : path.posix.join('node_modules', dep));
    }
  }
  placements.sort((a, b) => (a.dest < b.dest ? -1 : a.dest > b.dest ? 1 : 0));
  return { placements, missing };
}

/** Copies each planned package (without its own node_modules: those are planned separately). */
function copyRuntimeModules(placements, outDir) {
  for (const p of placements) {
    const dest = path.join(outDir, ...p.dest.split('/'));
    const nested = path.join(p.src, 'node_modules');
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.cpSync(p.src, dest, { recursive: true, dereference: true, filter: (src) => src !== nested });
  }
}

module.exports = { planRuntimeModules, copyRuntimeModules };
