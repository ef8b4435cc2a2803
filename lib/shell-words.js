'use strict';
// Commands shown for a POSIX shell to run (summaries, Dockerfile RUN lines, report titles):
// plain words stay as they are, anything else goes in single quotes. And the way back: a command
// line given as one string (check --baseline-cmd, bench --compare, a package.json script), split
// into its words as a shell would.

/** @param {string} word */
function shellWord(word) {
  const text = String(word);
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/** @param {string[]} [words] */
function shellLine(words) {
  return (words || []).map(shellWord).join(' ');
}

/**
 * The words of a command line, split as a POSIX shell splits them: blanks separate, '…' is literal,
 * "…" keeps blanks (a backslash escapes " \\ $ ` in it), a backslash outside quotes escapes the next
 * character. Anything that needs a shell to run (pipes, redirections, ;, &, $, `, (, ), globs) is refused.
 * @param {string} line
 * @returns {string[]}
 * @throws {SyntaxError} on an unclosed quote (its `unclosed` names the quote) or shell syntax, naming it
 */
function splitShellWords(line) {
  const words = [];
  let word = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    word = word ?? '';
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw unclosed("'");
      word += line.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && /["\\$`]/.test(line[j + 1] || '')) j++;
        else if (line[j] === '$' || line[j] === '`') throw new SyntaxError(`${line[j]} (it needs a shell)`);
        word += line[j];
      }
      if (j >= line.length) throw unclosed('"');
      i = j;
    } else if (ch === '\\') {
      if (i + 1 < line.length) word += line[++i];
    } else if (/[|&;<>()$`*?]/.test(ch)) {
      throw new SyntaxError(`${ch} (it needs a shell)`);
    } else {
      word += ch;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

function unclosed(quote) {
  return Object.assign(new SyntaxError(`an unclosed ${quote}`), { unclosed: quote });
}

module.exports = { shellWord, shellLine, splitShellWords };
