'use strict';
// Where in the app something was called from: the first stack frame outside a given file of
// ours. Runs inside the app (the timer record, the lazy stand-ins): Node built-ins only.

const INTERNAL = Symbol('called by Node itself');

/**
 * @param {string} ownFile the calling file of ours, whose frames are skipped
 * @param {Function} below the frames from this function up are left out of the stack
 * @returns {{ file: string, line: number }|typeof INTERNAL|null} INTERNAL when the caller is
 *   Node's own code (node:...), null when the stack says nothing usable
 */
function callerSite(ownFile, below) {
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 8;
  Error.captureStackTrace(holder, below);
  Error.stackTraceLimit = limit;
  const caller = String(holder.stack).split('\n').slice(1).find((f) => !f.includes(ownFile));
  if (!caller) return null;
  if (/\(node:|at node:/.test(caller)) return INTERNAL;
  const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):\d+\)?$/.exec(caller.trim());
  if (!m) return null;
  let file = m[1];
  if (file.startsWith('file:')) {
    try { file = require('url').fileURLToPath(file); } catch { /* keep the URL */ }
  }
  return { file, line: Number(m[2]) };
}

module.exports = { callerSite, INTERNAL };
