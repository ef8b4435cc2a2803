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

module.exports = { checkCommand };
