'use strict';
// Commands shown for a POSIX shell to run (summaries, Dockerfile RUN lines, report titles):
// plain words stay as they are, anything else goes in single quotes.

/** @param {string} word */
function shellWord(word) {
  const text = String(word);
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/** @param {string[]} [words] */
function shellLine(words) {
  return (words || []).map(shellWord).join(' ');
}

module.exports = { shellWord, shellLine };
