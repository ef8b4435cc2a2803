'use strict';
// The terminal toolkit every command prints with: one way to show a time (ms), a size, colour,
// a table, and the progress of long work. Numbers read the same in every command's output.
const { formatBytes, formatMs } = require('../format-units.js');

/** A time with its unit: '1234 ms', '56.7 ms', '8.90 ms'; a dash when missing. */
const ms = (n) => (n === null || n === undefined ? '–' : `${formatMs(n)} ms`);

/** A size in decimal units: '1.2 MB' (the one spelling lives in lib/format-units.js, which start loads alone). */
const size = formatBytes;

const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Colour for output on `stream`: a terminal, unless --no-color or NO_COLOR says otherwise. */
function wantsColor(stream, argv, env = process.env) {
  if (argv.color === false || 'NO_COLOR' in env) return false;
  return Boolean(stream && stream.isTTY);
}

/** ANSI styles, or plain strings when color is off. */
function palette(color) {
  const wrap = (a, b) => (s) => (color ? `\u001b[${a}m${s}\u001b[${b}m` : String(s));
  return {
    bold: wrap(1, 22), dim: wrap(2, 22), cyan: wrap(36, 39), yellow: wrap(33, 39), red: wrap(31, 39), green: wrap(32, 39),
  };
}

/** Left/right aligned columns; widths measured before `paint(row, column, text)` colours a cell. */
function table(rows, align, paint = () => (s) => s) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r, y) => '  ' + r.map((cell, i) => {
    const s = String(cell);
    const padded = align[i] === 'r' ? s.padStart(widths[i]) : s.padEnd(widths[i]);
    return paint(y, i, s)(padded);
  }).join('  ').trimEnd()).join('\n');
}

/** The end of a long path, marked with an ellipsis. */
function shorten(file, max = 60) {
  return file.length <= max ? file : '…' + file.slice(file.length - max + 1);
}

/**
 * Long work says what it is doing on stderr: on a terminal one line, redrawn every second with
 * the phase and the time so far; in CI (CI set, stderr not a terminal) one line per phase;
 * nothing with --quiet or --json, or when stderr is a pipe or a file outside CI.
 * The library side of it is one callback shape everywhere: `onProgress(text)`, a phase in words.
 * @param {{stream: NodeJS.WritableStream & {isTTY?: boolean}, quiet?: boolean, env?: NodeJS.ProcessEnv}} options
 *   env: the command's environment (CI is read there)
 * @returns {{phase(text: string): void, done(): void}}
 */
function progress({ stream, quiet = false, env = process.env }) {
  const tty = Boolean(stream.isTTY);
  if (quiet || (!tty && !env.CI)) return { phase() {}, done() {} };
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  let current = null;
  let timer = null;
  const draw = () => stream.write(`\r\u001b[2Kcoldstart: ${current}… ${elapsed()}`);
  return {
    phase(text) {
      current = text;
      if (!tty) {
        stream.write(`coldstart: ${text} (${elapsed()})\n`);
        return;
      }
      draw();
      if (!timer) timer = setInterval(draw, 1000).unref();
    },
    done() {
      if (timer) clearInterval(timer);
      timer = null;
      if (tty && current) stream.write('\r\u001b[2K');
      current = null;
    },
  };
}

module.exports = { formatMs, ms, size, count, wantsColor, palette, table, shorten, progress };
