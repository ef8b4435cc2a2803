'use strict';
// Where a place in compiled output (TypeScript's dist/*.js) came from, through the file's source
// map: `//# sourceMappingURL=` beside it or inline. Findings then name the line the user wrote.
// Pure: files come from readSource; Node's own SourceMap reads the mappings.
const path = require('node:path');
const { SourceMap } = require('node:module');

/**
 * @param {string} file the compiled file (absolute)
 * @param {?string} source its text
 * @param {number} line 1-based
 * @param {number} [column] 1-based
 * @param {(file: string) => ?string} readSource
 * @returns {?{ file: string, line: number, column: number }} null without a map or a mapping on that line
 */
function originalPosition(file, source, line, column, readSource) {
  const map = sourceMapOf(file, source, readSource);
  if (!map) return null;
  let entry;
  try {
    entry = map.payload.findEntry(line - 1, Math.max(0, (column || 1) - 1));
  } catch {
    return null;
  }
  // findEntry answers with the nearest mapping before the place: only one on the same line is this line's.
  if (!entry || entry.generatedLine !== line - 1 || typeof entry.originalSource !== 'string') return null;
  const original = entry.originalSource.startsWith('file://') ? decodeURIComponent(new URL(entry.originalSource).pathname)
    : path.resolve(map.dir, map.sourceRoot || '', entry.originalSource);
  return { file: original, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
}

function sourceMapOf(file, source, readSource) {
  if (typeof source !== 'string') return null;
  const m = /\/\/[#@] sourceMappingURL=(\S+)\s*$/.exec(source.slice(-4096));
  if (!m) return null;
  let text = null;
  let dir = path.dirname(file);
  const inline = /^data:application\/json(?:;charset=[\w-]+)?;base64,(.+)$/.exec(m[1]);
  if (inline) text = Buffer.from(inline[1], 'base64').toString('utf8');
  else if (!/^[a-z]+:/i.test(m[1])) {
    const mapFile = path.resolve(dir, decodeURIComponent(m[1]));
    text = readSource(mapFile);
    dir = path.dirname(mapFile);
  }
  if (!text) return null;
  try {
    const json = JSON.parse(text);
    return { payload: new SourceMap(json), dir, sourceRoot: json.sourceRoot };
  } catch {
    return null;
  }
}

module.exports = { originalPosition };
