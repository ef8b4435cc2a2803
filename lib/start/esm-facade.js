'use strict';
// An ES module that only passes on what it imports, the shape packages give require(esm):
//   import getIntrinsic from './index.js';
//   export default getIntrinsic;
//   export { getIntrinsic as 'module.exports' };
// It has no code of its own to run, so what it exports is known from its imports alone, and a
// startup snapshot can hold it (lib/start/snapshot-main.js). Anything more is not a facade.

const NAME = String.raw`[A-Za-z_$][\w$]*`;
const STRING = String.raw`'[^'\\\n]*'|"[^"\\\n]*"`;
const IMPORT = new RegExp(String.raw`^import\s*(?:(${NAME})\s*(?:,\s*)?)?(?:\{([^}]*)\}\s*)?from\s*(${STRING})\s*;?`);
const EXPORT_DEFAULT = new RegExp(String.raw`^export\s+default\s+(${NAME})\s*;?`);
const EXPORT_LIST = new RegExp(String.raw`^export\s*\{([^}]*)\}\s*(?:from\s*(${STRING})\s*)?;?`);
const ITEM = new RegExp(String.raw`^(${NAME}|${STRING})(?:\s+as\s+(${NAME}|${STRING}))?$`);

/**
 * @param {string} source an ES module's source
 * @returns {{ imports: Array<{ specifier: string, names: Array<[string, string]> }>,
 *   exports: Map<string, { local: string } | { specifier: string, imported: string }> } | null}
 *   imports with [imported name, local name] pairs ('default' for a default import); exports by
 *   exported name; null when the module does anything else
 */
function parseFacade(source) {
  let rest = withoutComments(source);
  if (rest === null) return null;
  const imports = [];
  const exports = new Map();
  const locals = new Set();
  for (rest = rest.trim(); rest; rest = rest.trim()) {
    let match = IMPORT.exec(rest);
    if (match) {
      const [, defaultName, list, specifier] = match;
      const names = list === undefined ? [] : items(list);
      if (names === null || (!defaultName && list === undefined)) return null;
      if (defaultName) names.unshift(['default', defaultName]);
      for (const [, local] of names) locals.add(local);
      imports.push({ specifier: unquote(specifier), names });
    } else if ((match = EXPORT_DEFAULT.exec(rest))) {
      exports.set('default', { local: match[1] });
    } else if ((match = EXPORT_LIST.exec(rest))) {
      const names = items(match[1]);
      if (names === null) return null;
      const specifier = match[2] && unquote(match[2]);
      if (specifier) imports.push({ specifier, names: [] });
      for (const [name, exported] of names) exports.set(exported, specifier ? { specifier, imported: name } : { local: name });
    } else {
      return null;
    }
    rest = rest.slice(match[0].length);
  }
  for (const binding of exports.values()) if ('local' in binding && !locals.has(binding.local)) return null;
  return { imports, exports };
}

// `a`, `a as b`, `a as 'module.exports'`: [name, alias] pairs, null for anything else.
function items(list) {
  const pairs = [];
  for (const item of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const match = ITEM.exec(item);
    if (!match) return null;
    const name = unquote(match[1]);
    pairs.push([name, match[2] ? unquote(match[2]) : name]);
  }
  return pairs;
}

function unquote(word) {
  return word[0] === '"' || word[0] === "'" ? word.slice(1, -1) : word;
}

// The source without its comments; null where a template or regular expression makes that unsure.
function withoutComments(source) {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '`') return null;
    if (c === "'" || c === '"') {
      const end = source.indexOf(c, i + 1);
      if (end < 0) return null;
      out += source.slice(i, end + 1);
      i = end;
    } else if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end - 1;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) return null;
      out += ' ';
      i = end + 1;
    } else {
      out += c;
    }
  }
  return out;
}

module.exports = { parseFacade };
