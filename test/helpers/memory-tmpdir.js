'use strict';
// `node test/helpers/memory-tmpdir.js <command...>`: runs the command with TMPDIR set to a fresh
// folder on a memory filesystem (/dev/shm, tmpfs) when the machine has one, and removes that folder
// once the command ends. npm run test:fast runs under it: the suite's fixture copies (thousands of
// small files), archives, extractions and profiles are written and deleted in memory instead of on
// the disk, which on a full disk or one mounted with `discard` costs seconds per fixture. Without a
// writable tmpfs at /dev/shm the command runs with TMPDIR as it is. Exits as the command did.
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');

const TMPFS_MAGIC = 0x01021994;

function memoryTmpdir() {
  try {
    if (fs.statfsSync('/dev/shm').type !== TMPFS_MAGIC) return null;
    const dir = fs.mkdtempSync(path.join('/dev/shm', 'coldstart-test-'));
    fs.chmodSync(dir, 0o1777); // as /tmp: other users' processes that tests start reach their files
    return dir;
  } catch {
    return null;
  }
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node test/helpers/memory-tmpdir.js <command> [args...]\n');
  process.exit(2);
}
const dir = memoryTmpdir();
const child = spawn(command, args, { stdio: 'inherit', env: dir ? { ...process.env, TMPDIR: dir } : process.env });
// Ctrl-C reaches the whole process group; a signal sent to this process alone is passed on. Either
// way this process waits for the command, then removes the folder.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => { if (child.exitCode === null && child.signalCode === null) child.kill(signal); });
}
const cleanUp = () => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); };
child.on('error', (err) => {
  cleanUp();
  process.stderr.write(`cannot run ${command}: ${err.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  cleanUp();
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code);
  }
});
