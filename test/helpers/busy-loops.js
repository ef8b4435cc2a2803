'use strict';
// A repeatable noisy machine: N Node processes that spin forever, one per core taken, as a
// shared CI runner is. Stopped by PID; the timing tests must hold while they run.
const { spawn } = require('child_process');

/**
 * Starts `count` busy loops; resolves once each is running (so the load is there before the
 * measurement starts). Returns stop(), which kills them and waits until they are gone.
 */
async function startBusyLoops(count) {
  const loops = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ['-e', "process.stdout.write('spinning\\n'); for (;;) {}"], { stdio: ['ignore', 'pipe', 'ignore'] });
    loops.push(child);
    await new Promise((resolve, reject) => {
      child.stdout.once('data', resolve);
      child.once('error', reject);
    });
  }
  return {
    pids: loops.map((c) => c.pid),
    async stop() {
      await Promise.all(loops.map((c) => new Promise((resolve) => {
        if (c.exitCode !== null || c.signalCode !== null) return resolve();
        c.once('exit', resolve);
        c.kill('SIGKILL');
      })));
    },
  };
}

module.exports = { startBusyLoops };
