'use strict';
// The Node major an app's installed dependencies need: each package's engines.node allows Node
// from some version on (its lower bound); the tree needs the highest of those. An image on an
// older Node installs with warnings at best and fails at init at worst (@google-cloud/storage 8
// and middy 7 want 22). Read from npm's lockfile, which records every package's engines, or from
// the installed packages' package.json files when there is none.
const fs = require('node:fs');
const path = require('node:path');

/**
 * The lowest Node major a semver range allows (`>=18` -> 18, `^20.19.0 || >=22.12` -> 20,
 * `18.x` -> 18); null when it sets no lower bound (`*`, `<22`) or names no version.
 */
function lowestMajor(range) {
  let lowest = null;
  for (const alternative of String(range).split('||')) {
    const bound = alternativeBound(alternative.trim().replace(/([<>=~^])\s+(?=v?\d)/g, '$1'));
    if (bound === null) return null; // one alternative open below: the range as a whole is
    if (lowest === null || bound < lowest) lowest = bound;
  }
  return lowest;
}

// A hyphen range `18 - 22` starts at its first version; else the first comparator that sets a lower bound.
function alternativeBound(alternative) {
  const hyphen = /^v?(\d+)\S*\s+-\s+/.exec(alternative);
  if (hyphen) return Number(hyphen[1]);
  for (const part of alternative.split(/\s+/)) {
    const m = /^(>=?|[~^=]|)v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?/.exec(part);
    if (!m) continue;
    // `>21` and `>21.x` begin at 22; `>21.1` is still 21.
    if (m[1] === '>' && (m[3] === undefined || /[xX*]/.test(m[3]))) return Number(m[2]) + 1;
    return Number(m[2]);
  }
  return null;
}

/**
 * The production dependencies' engines.node, from package-lock.json (v2/v3) when there is one,
 * else from node_modules: [{name, range}].
 */
function dependencyEngines(root) {
  const lock = readJson(path.join(root, 'package-lock.json'));
  if (lock && lock.packages) {
    return Object.entries(lock.packages)
      .filter(([where, entry]) => where && !entry.dev && entry.engines && typeof entry.engines.node === 'string')
      .map(([where, entry]) => ({ name: where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length), range: entry.engines.node }));
  }
  return installedEngines(path.join(root, 'node_modules'));
}

// Top-level packages of node_modules (and their own node_modules), scoped ones included.
function installedEngines(modules, depth = 0) {
  const found = [];
  let names = [];
  try { names = fs.readdirSync(modules); } catch { return found; }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const dirs = name.startsWith('@') ? safeList(path.join(modules, name)).map((sub) => `${name}/${sub}`) : [name];
    for (const pkg of dirs) {
      const manifest = readJson(path.join(modules, pkg, 'package.json'));
      if (manifest && manifest.engines && typeof manifest.engines.node === 'string') found.push({ name: pkg, range: manifest.engines.node });
      if (depth === 0) found.push(...installedEngines(path.join(modules, pkg, 'node_modules'), 1));
    }
  }
  return found;
}

function safeList(dir) {
  try { return fs.readdirSync(dir); } catch { return []; }
}

function readJson(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return null; }
}

/**
 * The Node major the dependencies need and the packages that ask for it (first few, by name).
 * @returns {?{major: number, packages: {name: string, range: string}[]}} null when none sets a bound
 */
function neededNodeMajor(root) {
  let major = null;
  let packages = [];
  for (const engine of dependencyEngines(root)) {
    const bound = lowestMajor(engine.range);
    if (bound === null || (major !== null && bound < major)) continue;
    if (bound !== major) packages = [];
    major = bound;
    packages.push(engine);
  }
  if (major === null) return null;
  packages.sort((a, b) => a.name.localeCompare(b.name));
  return { major, packages };
}

module.exports = { neededNodeMajor, lowestMajor };
