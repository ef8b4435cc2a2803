'use strict';
// A user's regular expression tested with a time bound. A pattern that backtracks without end
// (/^(a+)+$/ on forty a's and a !) would otherwise hold the process: its --timeout, its signal
// handlers and its clean-up would never run. V8 stops a match when the bound passes (vm's timeout).
const vm = require('node:vm');

// Longer than any sane match of a line of output takes.
const MATCH_MS = 200;

/**
 * @param {RegExp} pattern
 * @returns {{test(text: string): boolean, stalled: boolean, toString(): string}} test is false
 *   for good once one match took longer than MATCH_MS (stalled then says so)
 */
function boundedRegex(pattern) {
  const context = vm.createContext({ pattern, text: '' });
  const script = new vm.Script('pattern.test(text)');
  return {
    stalled: false,
    test(text) {
      if (this.stalled) return false;
      context.text = String(text);
      try {
        return script.runInContext(context, { timeout: MATCH_MS });
      } catch (err) {
        if (err.code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
        this.stalled = true;
        return false;
      }
    },
    toString() {
      return this.stalled ? `${pattern} (given up: one match took over ${MATCH_MS} ms; give a simpler pattern)` : String(pattern);
    },
  };
}

module.exports = { boundedRegex, MATCH_MS };
