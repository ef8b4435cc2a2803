'use strict';
// The watchdog that ends what a killed coldstart leaves: it runs its commands once the process it
// watches is gone, with or without a `sleep` on the PATH (without one, a shell loop would spin).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');

const DEATH_WATCH = path.join(__dirname, '..', 'lib', 'death-watch.js');

/** A Node process that starts a watchdog, says so, and waits to be killed; its watchdog's processes. */
async function watchedProcess(dir, env) {
  const marker = path.join(dir, 'ended');
  const script = `require(${JSON.stringify(DEATH_WATCH)}).watchForDeath([[${JSON.stringify(process.execPath)}, '-e', ${JSON.stringify(`require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`)}]]); console.log('watched'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return { child, marker };
}

/** The command lines of the processes whose parent is pid, read from /proc. */
function childrenOf(pid) {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).flatMap((p) => {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) return [];
      return [{ pid: Number(p), args: fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean) }];
    } catch { return []; }
  });
}

async function until(done, what) {
  for (let waited = 0; !done(); waited += 50) {
    if (waited > 30_000) assert.fail(`${what} did not happen`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const [name, env] of [['with sleep on the PATH', process.env], ['with no sleep on the PATH', { ...process.env, PATH: '/nonexistent' }]]) {
  test(`the watchdog runs its commands once the process it watches is killed, ${name}`, { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-death-watch-'));
    try {
      const { child, marker } = await watchedProcess(dir, env);
      const shells = childrenOf(1).concat(childrenOf(child.pid)).filter((p) => p.args[0] === '/bin/sh' && p.args.join(' ').includes(`kill -0 ${child.pid} `));
      assert.strictEqual(shells.length, 1, 'one watchdog shell');
      // Without sleep the shell waits in one Node process instead of a loop of failed commands.
      await new Promise((r) => setTimeout(r, 300));
      const waiting = childrenOf(shells[0].pid);
      if (env === process.env) assert.ok(waiting.every((p) => !p.args.includes('-e')), JSON.stringify(waiting));
      else assert.deepStrictEqual(waiting.map((p) => p.args[0]), [process.execPath], 'the shell waits in one Node process');
      assert.ok(!fs.existsSync(marker), 'nothing ran while the process lived');
      child.kill('SIGKILL');
      await until(() => fs.existsSync(marker), 'the watchdog\'s command');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
