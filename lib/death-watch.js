'use strict';
// What must not outlive this process, ended by a small shell process of its own: nothing in
// this process runs when it is killed with SIGKILL, so the shell polls its PID (five times a
// second) and, once it is gone, runs the commands given (end the app's process group, remove a
// container and a scratch folder). Dismissed when the work ends normally. No shell: nothing.
// Where no `sleep` takes a fraction of a second (none on the PATH in slim images, or a busybox
// without fractions: the shell's loop would spin, a fork every few ms, and take a CPU from the
// app) this Node polls instead.
const { spawn } = require('node:child_process');

const quoted = (word) => `'${String(word).replace(/'/g, "'\\''")}'`;
// Returns once the process given as its argument is gone.
const WAIT_IN_NODE = 'const pid = Number(process.argv[1]); setInterval(() => { try { process.kill(pid, 0); } catch { process.exit(0); } }, 200);';

/**
 * @param {string[][]} commands each a command and its arguments, run in turn, errors ignored
 * @returns {{ dismiss(): void }}
 */
function watchForDeath(commands) {
  const then = commands.map((words) => `${words.map(quoted).join(' ')} >/dev/null 2>&1`).join('; ');
  const wait = `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.2; done`;
  const waitInNode = `${quoted(process.execPath)} -e ${quoted(WAIT_IN_NODE)} ${process.pid}`;
  const script = `if sleep 0.01 >/dev/null 2>&1; then ${wait}; else ${waitInNode}; fi; ${then || ':'}`;
  let child = null;
  try {
    child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch { /* no shell */ }
  return {
    dismiss() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    },
  };
}

/**
 * A new temporary directory that is removed if this process is killed, watched before it exists:
 * a kill between making it and watching it would leave it behind.
 * @param {string} prefix e.g. 'coldstart-snapshot-'
 * @param {string[][]} [before] commands to run first when this process dies (end what writes there)
 * @returns {{ dir: string, watch: { dismiss(): void } }}
 */
function watchedTempDir(prefix, before = []) {
  const dir = require('node:path').join(require('node:os').tmpdir(), prefix + require('node:crypto').randomBytes(6).toString('hex'));
  const watch = watchForDeath([...before, ['rm', '-rf', dir]]);
  try {
    require('node:fs').mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    watch.dismiss();
    throw err;
  }
  return { dir, watch };
}

module.exports = { watchForDeath, watchedTempDir };
