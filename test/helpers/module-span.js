'use strict';
// Ground truth for a module's self time, taken in the app at the same time as the tool measured:
// the module's body timed by itself (a lower bound: no resolve, read or compile) and the require
// timed by its caller (an upper bound: it also holds the tool's own hook around the load).
const fs = require('fs');

/** { bodyMs, requireMs } as fixtures/slow-require wrote them. */
function readModuleSpan(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/**
 * Whether `ms` lies between the two bounds, each widened by 10% or 5 ms (whichever is more):
 * returns an error text when it does not, else ''.
 */
function outsideSpan(ms, { bodyMs, requireMs }) {
  const slack = Math.max(5, requireMs * 0.1);
  if (ms >= bodyMs - slack && ms <= requireMs + slack) return '';
  return `${ms} ms, outside the module's own ${bodyMs} ms .. its caller's ${requireMs} ms (± ${slack} ms)`;
}

module.exports = { readModuleSpan, outsideSpan };
