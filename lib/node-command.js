'use strict';
// The one reading of a Node command line, `node [node flags] [--] entry [args]`: which words are
// Node's own flags (with their values), which word is the entry script, what the script gets.
// Every command that checks, runs, bundles or writes such a line reads it here.
const fs = require('fs');
const path = require('path');

// Node options whose value may follow as a separate word: that word is not the entry.
const NODE_FLAGS_WITH_VALUE = new Set([
  '-r', '--require', '--import', '--loader', '--experimental-loader', '--conditions', '-C',
  '--input-type', '--title', '--inspect-port', '--debug-port', '--env-file', '--env-file-if-exists',
  '--redirect-warnings', '--disable-warning', '--diagnostic-dir', '--report-dir', '--report-directory',
  '--report-filename', '--report-signal', '--heapsnapshot-signal', '--icu-data-dir', '--unhandled-rejections',
  '--dns-result-order', '--secure-heap', '--secure-heap-min', '--tls-cipher-list', '--tls-keylog',
  '--use-largepages', '--disable-proto', '--max-http-header-size', '--heap-prof-dir', '--heap-prof-name',
  '--heap-prof-interval', '--cpu-prof-dir', '--cpu-prof-name', '--cpu-prof-interval', '--openssl-config',
  '--experimental-policy', '--policy-integrity', '--trace-event-categories', '--trace-event-file-pattern',
  '--watch-path', '--stack-size', '--max-old-space-size',
]);
// Flags naming files Node reads for the environment before any JavaScript runs.
const ENV_FILE_FLAGS = new Set(['--env-file', '--env-file-if-exists']);
// Flags that load code before the entry (an APM agent, a loader): they must see the app's modules load.
const PRELOAD_FLAGS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader']);
// Node modes that run no entry file ('-' reads the script from stdin).
const NODE_NO_ENTRY = new Set([
  '-e', '--eval', '-p', '--print', '-i', '--interactive', '-c', '--check', '--test', '--run',
  '-v', '--version', '-h', '--help', '--v8-options', '-',
]);

/** Whether a program is the node binary. */
function isNode(bin) {
  const base = path.basename(bin);
  return base === 'node' || base === 'nodejs' || base === 'node.exe' || bin === process.execPath;
}

/**
 * @typedef {{name: string, value: string|undefined, words: string[], at: number, inline: boolean}} NodeFlag
 *   words: the flag as given (one word, or two when the value follows); at: index of its first word;
 *   inline: the value was given as --flag=value
 * @typedef {{code: 'NO_ENTRY_MODE'|'MISSING_VALUE'|'NO_ENTRY', flag?: string}} NodeCommandProblem
 */

/**
 * Reads the words of a node command from `from` on (1: after the node binary; 0: flags and entry only).
 * @param {string[]} words
 * @param {number} [from]
 * @returns {{flags: NodeFlag[], entryAt: number, entry: string|undefined, args: string[],
 *   problem: NodeCommandProblem|null}} entryAt indexes words; -1 (and a problem) when there is no entry
 */
function parseNodeCommand(words, from = 1) {
  const flags = [];
  const without = (problem) => ({ flags, entryAt: -1, entry: undefined, args: [], problem });
  let i = from;
  for (; i < words.length; i++) {
    const word = words[i];
    if (word === '--') {
      i += 1;
      break;
    }
    if (!word.startsWith('-')) break;
    const eq = word.indexOf('=');
    const name = eq === -1 ? word : word.slice(0, eq);
    if (NODE_NO_ENTRY.has(name)) return without({ code: 'NO_ENTRY_MODE', flag: name });
    const flag = { name, value: eq === -1 ? undefined : word.slice(eq + 1), words: [word], at: i, inline: eq !== -1 };
    if (eq === -1 && NODE_FLAGS_WITH_VALUE.has(name)) {
      if (i + 1 >= words.length) return without({ code: 'MISSING_VALUE', flag: name });
      flag.value = words[++i];
      flag.words.push(flag.value);
    }
    flags.push(flag);
  }
  if (i >= words.length) return without({ code: 'NO_ENTRY' });
  return { flags, entryAt: i, entry: words[i], args: words.slice(i + 1), problem: null };
}

/** Does Node find a main module at this path (with its usual extension probing)? */
function entryExists(file) {
  const candidates = [file, `${file}.js`, `${file}.json`, `${file}.node`, `${file}.mjs`, `${file}.cjs`,
    path.join(file, 'index.js'), path.join(file, 'package.json')];
  return candidates.some((c) => {
    try { return fs.statSync(c).isFile(); } catch { return false; }
  });
}

/**
 * The app root, which pack's archive paths are under and start serves them from: the nearest
 * directory with a package.json above the entry, else cwd. An entry inside
 * node_modules is a package binary running the app (functions-framework, next): the root is the
 * project that installed it.
 */
function findRoot(mainFile, cwd) {
  if (!mainFile) return cwd;
  const file = path.resolve(cwd, mainFile);
  const parts = file.split(path.sep);
  const modules = parts.indexOf('node_modules');
  if (modules > 0) return parts.slice(0, modules).join(path.sep) || path.sep;
  let dir = path.dirname(file);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return cwd;
    dir = up;
  }
}

module.exports = { parseNodeCommand, isNode, entryExists, findRoot, PRELOAD_FLAGS, ENV_FILE_FLAGS };
