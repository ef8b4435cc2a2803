'use strict';
// Runs inside the app (from module-timing.cjs, where in-thread ES module hooks come in at the first
// sign of ES modules): whether source may load ES modules, now or later. Built-ins only.

// `import` as a keyword in CommonJS source: an import() to come, or ES module syntax Node may yet
// find in a file of a package without a "type" (which it then loads as an ES module). Searched, not
// parsed: most modules have no `import` at all, and String.prototype.indexOf passes over them
// fast. Not counted: the word in a comment that starts on its line (`/** @type {import('./x')} */`,
// ` * @param {import('y').Z}`, `// import ...`), and what no import can be followed by
// (`eslint-disable import/no-cycle`). The word in a string, or in a comment that began on an
// earlier line without a `*`, only brings the hooks in early.
function mayImport(content) {
  if (typeof content !== 'string') return false;
  for (let i = content.indexOf('import'); i !== -1; i = content.indexOf('import', i + 6)) {
    if (!isWordChar(content.charCodeAt(i - 1)) && FOLLOWS_IMPORT.test(content[i + 6] || '') && !inComment(content, i)) return true;
  }
  return false;
}

// What follows the keyword: white space, `(` (import()), `.` (import.meta), `{`, `*` or a quote
// (an import statement).
const FOLLOWS_IMPORT = /^[\s({.*'"]$/;

/** An import() in source (CommonJS or an ES module), outside comments: what may load ES modules later. */
function mayImportLater(content) {
  if (typeof content !== 'string') return false;
  for (let i = content.indexOf('import'); i !== -1; i = content.indexOf('import', i + 6)) {
    if (isWordChar(content.charCodeAt(i - 1))) continue;
    let after = i + 6;
    while (isSpace(content.charCodeAt(after))) after++;
    if (content.charCodeAt(after) === 40 && !inComment(content, i)) return true; // (
  }
  return false;
}

function isSpace(c) {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Whether position i is in a comment: its line starts with `//`, `/*` or `*`, or a `/*` before it on its line is closed after it. */
function inComment(content, i) {
  const lineStart = content.lastIndexOf('\n', i) + 1;
  let at = lineStart;
  while (content.charCodeAt(at) === 32 || content.charCodeAt(at) === 9) at++;
  const c = content.charCodeAt(at);
  if (c === 42 || (c === 47 && (content.charCodeAt(at + 1) === 47 || content.charCodeAt(at + 1) === 42))) return true;
  const open = content.lastIndexOf('/*', i);
  if (open < lineStart) return false;
  const close = content.indexOf('*/', open + 2);
  return close === -1 || close > i;
}

function isWordChar(c) {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}

module.exports = { mayImport, mayImportLater };
