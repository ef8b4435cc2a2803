'use strict';
// Long work says what it is doing on stderr: on a terminal one line, redrawn every second with
// the phase and the time so far; in CI (CI set, stderr not a terminal) one line per phase;
// nothing with --quiet or --json, or when stderr is a pipe or a file outside CI.

/**
 * @param {{stream: NodeJS.WritableStream & {isTTY?: boolean}, quiet?: boolean, env?: NodeJS.ProcessEnv}} options
 *   env: the command's environment (CI is read there)
 * @returns {{phase(text: string): void, done(): void}}
 */
function phaseProgress({ stream, quiet = false, env = process.env }) {
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

module.exports = { phaseProgress };
