'use strict';
// Warnings are data: the library collects { code, message, context }, the command hands them to
// settleWarnings, which shows them and, under --strict, turns them into exit 1 the same way for
// every command.
const { CommandError } = require('./errors.js');

/**
 * @param {string} code     stable, upper case, e.g. PACK_LINK_OUTSIDE_ROOT
 * @param {string} message  one line for people
 * @param {object} [context] what it is about (files, check name, ...)
 * @returns {{code: string, message: string, context: object}}
 */
function warning(code, message, context = {}) {
  return { code, message, context };
}

/**
 * Shows the warnings of a finished command, one `coldstart: warning:` line each on stderr (none
 * under --quiet); under --strict, any warning is an error instead: one line naming them, exit 1.
 * @param {object[]} warnings
 * @param {{strict?: boolean, quiet?: boolean}} argv
 * @param {NodeJS.WritableStream} stderr
 */
function settleWarnings(warnings, argv, stderr) {
  if (!warnings.length) return;
  if (argv.strict) {
    const codes = [...new Set(warnings.map((w) => w.code))].join(', ');
    throw new CommandError(`--strict: ${warnings.map((w) => w.message).join('; ')} (${codes})`);
  }
  showWarnings(warnings, argv, stderr);
}

/** One `coldstart: warning:` line each on stderr, none under --quiet; never an error. */
function showWarnings(warnings, argv, stderr) {
  if (!argv.quiet) for (const w of warnings) stderr.write(`coldstart: warning: ${w.message}\n`);
}

module.exports = { warning, settleWarnings, showWarnings };
