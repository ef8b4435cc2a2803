'use strict';
// Validation shared by every command, so each flag means the same thing everywhere.
const { UsageError } = require('./errors.js');

const UNITS = { ms: 1, s: 1000, m: 60000 };

/** '5s' | '250ms' | '2m' | '1500' (ms) -> milliseconds. */
function parseDuration(value, flag) {
  const text = String(value).trim();
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!m) throw new UsageError(`invalid ${flag} "${value}": use a duration such as 500ms, 5s or 2m`);
  const ms = Number(m[1]) * UNITS[m[2] || 'ms'];
  if (!(ms > 0)) throw new UsageError(`invalid ${flag} "${value}": must be greater than zero`);
  return ms;
}

/** --until listen | exit | <duration> -> { mode, ms? } */
function parseUntil(value) {
  if (value === undefined || value === 'listen') return { mode: 'listen' };
  if (value === 'exit') return { mode: 'exit' };
  try {
    return { mode: 'duration', ms: parseDuration(value, '--until') };
  } catch {
    throw new UsageError(`invalid --until "${value}": use listen, exit or a duration such as 5s`);
  }
}

/** Sampling interval in microseconds, as --cpu-prof-interval takes it. */
function parseInterval(value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1e6) {
    throw new UsageError(`invalid --interval "${value}": a whole number of microseconds from 1 to 1000000`);
  }
  return n;
}

function parseCount(value, flag, min = 1) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`invalid ${flag} "${value}": a whole number >= ${min}`);
  return n;
}

module.exports = { parseDuration, parseUntil, parseInterval, parseCount };
