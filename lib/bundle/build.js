'use strict';
// One ncc build of the app's entry with the chosen externals, plus what the build says about
// itself: which packages ended up inside, which externals the bundle requires, and which
// requires ncc could not resolve (they throw when they run).
const path = require('path');
const { packageOf, packageName } = require('../package-name.js');
const { CommandError } = require('../errors.js');

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** ncc externals: the package itself and any file inside it ('express', 'express/lib/router'). */
function nccExternals(names) {
  const map = {};
  for (const name of names) {
    map[name] = name;
    map[`/^${escapeRegExp(name)}(\\/.+)$/`] = `${name}$1`;
  }
  return map;
}

/**
 * One line for an ncc/webpack error: its first line, the file when it names one, and the source
 * line webpack quotes with "> " (parse errors do not name the file).
 */
function buildErrorLine(err, root) {
  const text = String((err && err.message) || err);
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  let line = (lines[0] || 'unknown error').replace(/^Error: /, '');
  const where = /(?:^|\s)(\/[^\s:!]+\.(?:c|m)?[jt]sx?)(?::(\d+))?/.exec(lines.slice(0, 3).join(' '));
  if (where && !where[1].includes(`${path.sep}@vercel${path.sep}ncc${path.sep}`)) {
    line += ` (${path.relative(root, where[1]) || where[1]}${where[2] ? `:${where[2]}` : ''})`;
  }
  const quoted = lines.find((l) => l.startsWith('> '));
  if (quoted) {
    const code = quoted.slice(2).trim();
    line += ` at: ${code.length > 80 ? code.slice(0, 77) + '...' : code}`;
  }
  return line;
}

/**
 * @param {{ entry: string, root: string, externals: string[] }} opts entry: absolute path
 * @returns {Promise<{ code: string, assets: Record<string, {source: Buffer|string, permissions?: number}>,
 *   symlinks: Record<string, string>, bundled: Set<string>, referenced: Set<string>, appFiles: Set<string>,
 *   unresolved: Array<{request: string, from: string|null}> }>}
 */
async function buildBundle({ entry, root, externals }) {
  const ncc = require('@vercel/ncc'); // heavy: only the bundle command pays for it
  // ncc asks fs.existsSync(undefined) when the app has no tsconfig.json, which Node 23.4 and later
  // warn of (DEP0187) on the user's terminal: answered here for the build's duration.
  const fs = require('node:fs');
  const existsSync = fs.existsSync;
  fs.existsSync = (file, ...rest) => (file == null ? false : existsSync(file, ...rest));
  let output;
  try {
    output = await ncc(entry, {
      externals: nccExternals(externals),
      filterAssetBase: root,
      minify: false,
      sourceMap: false,
      sourceMapRegister: false,
      cache: false,
      quiet: true, // ncc otherwise prints its progress on stdout
    });
  } catch (err) {
    throw new CommandError(`ncc could not bundle ${path.relative(root, entry) || entry}: ${buildErrorLine(err, root)}`, { code: 'BUILD_FAILED' });
  } finally {
    fs.existsSync = existsSync;
  }
  const bundled = new Set();
  const referenced = new Set();
  const appFiles = new Set();
  const unresolved = [];
  const compilation = output.stats && output.stats.compilation;
  // Modules webpack concatenated (ES modules, scope hoisting) hold their members in .modules.
  const all = [];
  for (const m of compilation ? compilation.modules : []) {
    if (m.modules && typeof m.modules[Symbol.iterator] === 'function') all.push(...m.modules);
    else all.push(m);
  }
  for (const m of all) {
    if (m.resource && m.resource.includes('@@notfound.js?')) {
      const issuer = compilation.moduleGraph && compilation.moduleGraph.getIssuer(m);
      unresolved.push({ request: m.resource.split('@@notfound.js?')[1], from: issuer && issuer.resource ? issuer.resource : null });
    } else if (m.resource) {
      const pkg = packageOf(m.resource);
      if (pkg === '(app)') appFiles.add(m.resource);
      else bundled.add(pkg);
    } else if (m.externalType && typeof m.request === 'string') {
      const name = packageName(m.request);
      if (externals.includes(name)) referenced.add(name);
    }
  }
  return { code: output.code, assets: output.assets || {}, symlinks: output.symlinks || {}, bundled, referenced, appFiles, unresolved };
}

module.exports = { buildBundle };
