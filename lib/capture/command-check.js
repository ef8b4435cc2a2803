'use strict';
// Catches the mistakes a user makes in the app command before anything starts,
// so they get one clear line instead of a Node stack trace.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');

// Node options whose value may follow as a separate word: that word is not the entry. One
// table for every place that reads a `node [flags] entry` command (capture, start, dockerfile).
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
// Node modes that run no entry file.
const NODE_NO_ENTRY = new Set([
  '-e', '--eval', '-p', '--print', '-i', '--interactive', '-c', '--check', '--test', '--run',
  '-v', '--version', '-h', '--help', '--v8-options', '-',
]);

function isNode(bin) {
  const base = path.basename(bin);
  return base === 'node' || base === 'nodejs' || base === 'node.exe' || bin === process.execPath;
}

/** Index of the entry script in a `node ...` command, or -1 when there is none. */
function entryIndex(command) {
  for (let i = 1; i < command.length; i++) {
    const arg = command[i];
    if (NODE_NO_ENTRY.has(arg)) return -1;
    if (arg === '--') return i + 1 < command.length ? i + 1 : -1;
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && NODE_FLAGS_WITH_VALUE.has(arg)) i++;
      continue;
    }
    return i;
  }
  return -1;
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
 * Validates the app command; returns it unchanged.
 * @param {string[]} command
 * @param {string} cwd
 */
function checkCommand(command, cwd) {
  if (!Array.isArray(command) || command.length === 0 || !command[0]) {
    throw new UsageError('missing app command: put it after --, e.g. coldstart profile -- node server.js');
  }
  if (isNode(command[0])) {
    const i = entryIndex(command);
    if (i > 0) {
      const entry = path.resolve(cwd, command[i]);
      if (!entryExists(entry)) throw new UsageError(`entry file not found: ${command[i]} (looked in ${cwd})`);
    }
  }
  return command;
}

module.exports = { checkCommand, entryIndex, isNode, entryExists, NODE_FLAGS_WITH_VALUE, NODE_NO_ENTRY };
