'use strict';
// A child Node that pack runs (the code-cache recording run, the snapshot builder): in its own
// process group, the tail of its stderr kept, ended at a timeout, and the whole group killed when
// it ends, or when pack itself ends first: nothing it started outlives pack.
const { spawn } = require('node:child_process');

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{cwd: string, env: object, timeoutMs: number, stderrChars?: number, leftovers?: string[]}} options
 *   leftovers: what the child writes that must go if pack is killed (SIGKILL) while it runs
 * @returns {Promise<{code?: ?number, signal?: ?string, timedOut?: boolean, error?: Error, stderr: string}>}
 */
function runInGroup(command, args, { cwd, env, timeoutMs, stderrChars = 20_000, leftovers = [] }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    // Killed, pack runs no handler: a watcher ends the group, then removes what it was writing.
    const watch = require('../death-watch.js').watchForDeath([['kill', '-9', `-${child.pid}`], ...(leftovers.length ? [['rm', '-rf', ...leftovers]] : [])]);
    let stderr = '';
    let ended = false;
    const kill = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    process.once('exit', kill);
    child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr = (stderr + chunk).slice(-stderrChars); });
    const done = (result) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      kill();
      watch.dismiss();
      process.removeListener('exit', kill);
      resolve({ ...result, stderr });
    };
    const timer = setTimeout(() => done({ timedOut: true }), timeoutMs);
    child.on('error', (error) => done({ error }));
    child.on('exit', (code, signal) => done({ code, signal }));
  });
}

module.exports = { runInGroup };
