'use strict';
// Expected failures print one `coldstart:` line; anything else keeps its stack.

/** The user asked for something impossible (bad flag, missing file): exit 2. */
class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UsageError';
    this.exitCode = 2;
  }
}

/** The app or the environment failed (crash, never ready, docker down): exit 1. */
class CommandError extends Error {
  constructor(message, { exitCode = 1, code, details } = {}) {
    super(message);
    this.name = 'CommandError';
    this.exitCode = exitCode;
    if (code) this.code = code;
    if (details) this.details = details;
  }
}

function isExpected(err) {
  return err instanceof UsageError || err instanceof CommandError;
}

module.exports = { UsageError, CommandError, isExpected };
