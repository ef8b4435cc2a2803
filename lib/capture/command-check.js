'use strict';
// Catches the mistakes a user makes in the app command before anything starts,
// so they get one clear line instead of a Node stack trace.
const path = require('path');
const { UsageError } = require('../errors.js');
const { parseNodeCommand, isNode, entryExists } = require('../node-command.js');

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
    const { entry } = parseNodeCommand(command);
    if (entry !== undefined && !entryExists(path.resolve(cwd, entry))) {
      throw new UsageError(`entry file not found: ${entry} (looked in ${cwd})`);
    }
  }
  return command;
}

const INSPECT = /^--inspect(-brk|-wait)?$/;

/**
 * The inspector flag the app's node would be started with (in its command or NODE_OPTIONS), or
 * null: such an app opens the one inspector a process has, and coldstart could not attach.
 */
function ownInspectorFlag(command, env = process.env) {
  const fromCommand = isNode(command[0]) ? parseNodeCommand(command).flags.find((f) => INSPECT.test(f.name)) : null;
  if (fromCommand) return fromCommand.name;
  const fromEnv = String(env.NODE_OPTIONS || '').split(/\s+/).map((w) => w.split('=')[0]).find((w) => INSPECT.test(w));
  return fromEnv ? `${fromEnv} (in NODE_OPTIONS)` : null;
}

module.exports = { checkCommand, ownInspectorFlag };
