'use strict';
// Which files the app needed to start: the modules it loaded, the files it read
// with fs, the package.json files Node consulted to resolve them, and package
// symlinks (pnpm layouts) that resolution walked through. I/O: stats the files.
const fs = require('fs');
const path = require('path');
const { moduleRecords } = require('./module-records.js');
const { relativeInside } = require('../paths.js');
const { rootConfinement } = require('./root-confinement.js');
const { parseNodeCommand, ENV_FILE_FLAGS, findRoot } = require('../node-command.js');

// Files Node can load as a module.
const CODE = /\.(?:[cm]?js|json|node|wasm)$/;

function statFile(p) {
  try {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return { bytes: 0, symlink: true };
    return st.isFile() ? { bytes: st.size, symlink: false } : null;
  } catch {
    return null;
  }
}

/** Directory of the package a file is in: just below node_modules(/@scope), or null. */
function packageDir(file) {
  const parts = file.split(path.sep);
  const i = parts.lastIndexOf('node_modules');
  if (i === -1 || i + 1 >= parts.length - 1) return null;
  const end = parts[i + 1].startsWith('@') ? i + 3 : i + 2;
  return parts.slice(0, end).join(path.sep);
}

/**
 * package.json files Node reads for a module: every one from the module's directory
 * up to its package directory (or the app root): scope ("type"), "main" and "exports".
 */
function packageJsonsFor(file, root, exists) {
  const stop = packageDir(file) || root;
  const out = [];
  let dir = path.dirname(file);
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (exists(pj)) out.push(pj);
    if (relativeInside(stop, dir) === null) break; // reached the package dir (or left it)
    dir = path.dirname(dir);
  }
  return out;
}

// What a relative require or import may name: the file itself, or it with an extension Node adds.
const LINK_SUFFIXES = ['', '.js', '.cjs', '.mjs', '.json'];

/**
 * Links under the root that a relative require or import went through (`./rel-link.js ->
 * ../outside/mod.js`): Node records the file they lead to, while the app names the link, which
 * the archive's check and the disk beside the archive need.
 */
function requiredLinks(payload, root) {
  const links = [];
  const named = [
    ...(payload.resolutions || []).map(([from, request]) => [from, request]),
    ...(payload.esmResolutions || []).map(([parent, specifier]) => [path.dirname(parent), specifier]),
  ];
  for (const [from, request] of named) {
    if (typeof request !== 'string' || !/^\.\.?\//.test(request)) continue;
    for (const suffix of LINK_SUFFIXES) {
      const p = path.resolve(from, request) + suffix;
      if (relativeInside(root, p) === null) break;
      try {
        if (fs.lstatSync(p).isSymbolicLink()) links.push(p);
        break;
      } catch { /* not this name */ }
    }
  }
  return links;
}

/** Symlinked packages (pnpm, workspaces) in node_modules folders resolution looked in. */
function packageLinks(loadedFiles, root) {
  const lookupDirs = new Set();
  for (const f of loadedFiles) {
    let dir = path.dirname(f);
    while (relativeInside(root, dir) !== null || dir === root) {
      if (path.basename(dir) !== 'node_modules') lookupDirs.add(path.join(dir, 'node_modules'));
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  const loadedDirs = new Set([...loadedFiles].map((f) => packageDir(f)).filter(Boolean));
  const links = [];
  const consider = (p) => {
    try {
      if (!fs.lstatSync(p).isSymbolicLink()) return;
      if (loadedDirs.has(fs.realpathSync(p))) links.push(p);
    } catch { /* dangling link */ }
  };
  for (const nm of lookupDirs) {
    let entries;
    try { entries = fs.readdirSync(nm, { withFileTypes: true }); } catch { continue; }
    for (const e of entries) {
      const p = path.join(nm, e.name);
      if (e.isSymbolicLink()) consider(p);
      else if (e.name.startsWith('@') && e.isDirectory()) {
        let scoped = [];
        try { scoped = fs.readdirSync(p, { withFileTypes: true }); } catch { /* unreadable */ }
        for (const s of scoped) if (s.isSymbolicLink()) consider(path.join(p, s.name));
      }
    }
  }
  return links;
}

/**
 * @param {object} payload the agent's data at the ready moment
 * @param {string} root
 * @param {object[]} [modules] the payload's module records, when the caller has them already
 * @param {string[]} [commandFiles] what the app command was found by: a package binary's
 *   node_modules/.bin link, which the archive needs for the command to start from it
 * @returns {{ modules: object[], files: Array<{path, bytes, via}>, outsideRoot: string[] }} outsideRoot:
 *   files whose path or real place (symlinks followed) is outside the root
 */
function collectFiles(payload, root, modules = moduleRecords(payload), commandFiles = []) {
  const found = new Map(); // absolute path -> via
  // coldstart's own Lambda runtime client stands in for aws-lambda-ric: not the function's file.
  const { BUILT_IN_CLIENT } = require('./lambda-function.js');
  const add = (p, via) => { if (p && !found.has(p) && p !== BUILT_IN_CLIENT) found.set(p, via); };
  for (const link of commandFiles) add(link, 'symlink');

  for (const m of modules) add(m.file, m.kind === 'esm' ? 'import' : 'require');
  for (const r of payload.reads || []) add(r.path, r.via === 'addon' ? 'require' : 'fs');
  if (payload.mainFile) add(payload.mainFile, 'require');
  for (const file of envFiles(payload.execArgv, payload.cwd)) add(file, 'fs');

  const stats = new Map(); // absolute path -> statFile result, each path looked at once
  const statOnce = (p) => {
    if (!stats.has(p)) stats.set(p, statFile(p));
    return stats.get(p);
  };
  const exists = (p) => statOnce(p) !== null;
  // Code Node loaded, and code a package's files were read as: an ES module graph that require(esm)
  // loads on Node 20 reaches the agent as file reads, and Node's resolver still reads each of those
  // packages' package.json ("exports", "type"), which it does without fs.
  const loaded = [...found.keys()].filter((p) => found.get(p) !== 'fs' || (CODE.test(p) && packageDir(p)));
  for (const f of loaded) for (const pj of packageJsonsFor(f, root, exists)) add(pj, 'package.json');
  for (const link of packageLinks(loaded, root)) add(link, 'symlink');
  for (const link of requiredLinks(payload, root)) add(link, 'symlink');

  const files = [];
  const outsideRoot = [];
  // Judged on the real path: a link under the root leading out of it is outside.
  const confined = rootConfinement(root);
  for (const [abs, via] of found) {
    const st = statOnce(abs);
    if (!st) continue; // read attempts on missing files, directories
    const rel = confined(abs);
    if (rel === null) outsideRoot.push(abs);
    else files.push({ path: rel, bytes: st.bytes, via });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  outsideRoot.sort();
  return {
    modules,
    files,
    outsideRoot,
    resolutions: rootResolutions(payload.resolutions, root),
    esmResolutions: rootResolutions(payload.esmResolutions, root),
    requires: requiringFiles(payload.requires, payload.resolutions, root),
  };
}

/** The files node's --env-file flags name: Node reads them before any JavaScript runs. */
function envFiles(execArgv, cwd) {
  return parseNodeCommand(execArgv || [], 0).flags
    .filter((flag) => ENV_FILE_FLAGS.has(flag.name) && flag.value)
    .map((flag) => path.resolve(cwd || '.', flag.value));
}

/**
 * [requiring file, request, file] of every CommonJS require inside the root, root-relative,
 * deduplicated: the agent's (file, request) pairs, each resolved the way Node did from the file's
 * directory (a repeated relative require skips resolution, so the directory's answer stands).
 */
function requiringFiles(requires, resolutions, root) {
  const resolved = new Map((resolutions || []).map(([from, request, to]) => [`${from}\0${request}`, to]));
  const seen = new Set();
  const out = [];
  for (const [fromFile, request] of requires || []) {
    const key = `${fromFile}\0${request}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const to = resolved.get(`${path.dirname(fromFile)}\0${request}`);
    const relFrom = relativeInside(root, fromFile);
    const relTo = to && relativeInside(root, to);
    if (relFrom && relTo) out.push([relFrom, request, relTo]);
  }
  return out;
}

/** Resolutions whose origin (directory or file) and target are inside the root, root-relative, deduplicated. */
function rootResolutions(list, root) {
  const seen = new Set();
  const out = [];
  for (const [from, request, to] of list || []) {
    const relFrom = from === root ? '.' : relativeInside(root, from);
    const relTo = relativeInside(root, to);
    if (relFrom === null || relTo === null) continue;
    const key = `${relFrom}\0${request}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([relFrom, request, relTo]);
  }
  return out;
}

module.exports = { collectFiles, packageDir };
