'use strict';
// Startup patterns a bundle silently breaks: modules found by listing a directory (route
// folders, ORM entity globs such as "dist/**/*.entity.js"), which a single file cannot list.
// Evidence comes from the readdir calls the probe saw and from the app's own source. Pure.
const path = require('path');
const { displayPath } = require('../paths.js');
const { warning } = require('../warnings.js');

const LISTING_CALL = /\b(readdirSync|readdir|opendirSync|opendir|globSync|glob\.sync|fg\.sync|fastGlob|globby)\s*\(/;
// A string naming many modules at once: contains * and ends in a module extension.
const MODULE_GLOB = /(['"`])([^'"`\n]*\*[^'"`\n]*\.(?:js|ts|mjs|cjs|jsx|tsx)|[^'"`\n]*\*[^'"`\n]*\.\{[^'"`\n]*\})\1/g;

function lineOf(text, index) {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const rel = displayPath;

/**
 * @param {object} facts
 * @param {string} facts.root
 * @param {Array<{dir: string, by: string|null}>} facts.readdirs directories listed during startup
 * @param {string[]} facts.loaded app modules the entry's side loaded at startup (absolute)
 * @param {Array<{file: string, text: string}>} facts.sources the app's own startup source files
 * @param {Set<string>} [facts.bundled] app files ncc put in the bundle: ncc follows some listings
 *   (require(path.join(__dirname, 'routes', f)) becomes a context of every file there)
 * @returns {Array<{code: string, message: string, file?: string, line?: number, files?: string[]}>}
 */
function loadingWarnings({ root, readdirs = [], loaded = [], sources = [], bundled = new Set() }) {
  const warnings = [];

  // Runtime evidence: a directory was listed and modules were then loaded from inside it.
  const byDir = new Map();
  for (const r of readdirs) if (!byDir.has(r.dir)) byDir.set(r.dir, r.by);
  const reported = new Set();
  for (const [dir, by] of [...byDir].sort((a, b) => a[0].length - b[0].length)) {
    if (dir.split(path.sep).includes('node_modules')) continue;
    if ([...reported].some((d) => dir.startsWith(d + path.sep))) continue; // covered by a parent listing
    const inside = loaded.filter((f) => f.startsWith(dir + path.sep));
    if (!inside.length) continue;
    reported.add(dir);
    const missed = inside.filter((f) => !bundled.has(f));
    if (!missed.length) continue; // ncc followed this listing: every module found is in the bundle
    warnings.push(warning('READDIR_LOADING',
      `${rel(root, dir)} is listed with readdir at startup${by ? ` (by ${rel(root, by)})` : ''} and ${missed.length} module${missed.length === 1 ? ' was' : 's were'} loaded from it ` +
        'that ncc could not follow: require them by name (kept as copies beside the bundle for now)',
      { files: missed.map((f) => rel(root, f)) }));
  }

  // Source evidence: listing calls and module globs in the app's startup files.
  for (const { file, text } of sources) {
    for (const m of text.matchAll(MODULE_GLOB)) {
      warnings.push(warning('MODULE_GLOB',
        `${rel(root, file)}:${lineOf(text, m.index)} names modules by a glob (${m[2]}): a bundle holds no such files; import them explicitly (e.g. ORM entities and migrations)`,
        { file: rel(root, file), line: lineOf(text, m.index) }));
    }
    const call = LISTING_CALL.exec(text);
    if (call && !warnings.some((w) => w.code === 'READDIR_LOADING' && w.message.includes(`(by ${rel(root, file)})`))) {
      warnings.push(warning('DIRECTORY_LISTING',
        `${rel(root, file)}:${lineOf(text, call.index)} lists a directory (${call[1]}): files found this way after startup are not in the bundle`,
        { file: rel(root, file), line: lineOf(text, call.index) }));
    }
  }
  return warnings;
}

module.exports = { loadingWarnings };
