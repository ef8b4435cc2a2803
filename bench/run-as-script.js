'use strict';
// How each benchmark script ends when run directly: its exit code, or for an error one line
// (a usage error, exit 2) or the stack (anything else, exit 1), prefixed with the script's name.
const { UsageError } = require('../lib/errors.js');

/** @param {string} name @param {() => Promise<number>} main */
function runAsScript(name, main) {
  main().then((code) => { process.exitCode = code; }, (err) => {
    const usage = err instanceof UsageError;
    process.stderr.write(`${name}: ${usage ? err.message : err.stack || err}\n`);
    process.exitCode = usage ? 2 : 1;
  });
}

module.exports = { runAsScript };
