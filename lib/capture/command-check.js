'use strict';
// Catches the mistakes a user makes in the app command before anything starts,
// so they get one clear line instead of a Node stack trace.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');

// Node flags that take the next argument as their value.
const NODE_FLAGS_WITH_VALUE = new Set([
  '-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file',
  '--inspect-port', '--title', '--max-old-space-size', '--stack-size', '--conditions', '-C',
  '--input-type', '--cpu-prof-dir', '--heap-prof-dir', '--diagnostic-dir', '--redirect-warnings',
  '--openssl-config', '--icu-data-dir', '--watch-path', '--experimental-policy',
]);
// Flags after which node takes no entry file.
const NODE_NO_ENTRY = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive', '-', '--test', '--run', '-v', '--version', '-h', '--help']);

function isNode(bin) {
  const base = path.basename(bin);
  return base === 'node' || base === 'node.exe' || bin === process.execPath;
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

module.exports = { checkCommand, entryIndex, isNode, entryExists };
