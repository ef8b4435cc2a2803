'use strict';
// When coldstart itself is killed (SIGKILL: no handler runs) while the app is held, the app must
// not stay behind hung, holding its port, with an inspector open on 127.0.0.1 that any local
// user could attach to. The agent watches the CLI and, once it is gone, closes the inspector,
// takes its files out of the channel and ends the app.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const { spawnCli, waitFor, isAlive, rm } = require('./helpers/app.js');

// Marks each stage in a file the test reads: the first user code ran, the server is about to
// listen, its listen callback ran (after the ready hold was released).
const APP = `
const fs = require('fs');
const mark = (what) => fs.appendFileSync(process.env.MARKS, what + '\\n');
mark('ran');
const server = require('http').createServer((req, res) => res.end('ok'));
mark('listening');
server.listen(0, '127.0.0.1', () => mark('listened'));
`;

const marks = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : []);

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Runs `coldstart profile` on the app, freezes the CLI (SIGSTOP) at the moment `atHold` says,
 * and returns what is needed to kill it there, or null when the app had already gone past the
 * hold by then (the test tries again).
 */
async function frozenAtHold(dir, atHold, heldIf) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-killed-tmp-'));
  const marksFile = path.join(dir, `marks-${Date.now()}.txt`);
  // Ready at the listen: the hold there comes before the app's own listen callback ('listened').
  const cli = spawnCli(['profile', '-q', '--until', 'listen', '--out', path.join(dir, 'out'), '--', 'node', 'app.js'], { cwd: dir, env: { TMPDIR: tmp, MARKS: marksFile } });
  const channelFiles = () => fs.readdirSync(tmp).flatMap((d) => fs.readdirSync(path.join(tmp, d)).map((f) => path.join(tmp, d, f)));
  const announce = await waitFor(() => channelFiles().find((f) => /\/\d+\.json$/.test(f)), 20000, 'the agent to announce itself');
  const { pid, url } = JSON.parse(fs.readFileSync(announce, 'utf8'));
  await waitFor(() => atHold(marks(marksFile)), 20000, 'the hold');
  cli.child.kill('SIGSTOP');
  await new Promise((r) => setTimeout(r, 200)); // a held app does not move on while the CLI is frozen
  const held = heldIf(marks(marksFile));
  return { cli, pid, port: Number(new URL(url).port), tmp, held };
}

async function killAndCheck(at) {
  const { cli, pid, port, tmp } = at;
  assert.ok(await portOpen(port), 'the inspector is open while the app is held');
  const killedAt = Date.now();
  cli.child.kill('SIGKILL');
  await cli.done;
  try {
    await waitFor(() => !isAlive(pid), 1000, 'the app to end within 1 s of the CLI');
    assert.strictEqual(await portOpen(port), false, 'the inspector port is closed');
    assert.ok(Date.now() - killedAt < 1500, `ended ${Date.now() - killedAt} ms after the kill`);
    assert.deepStrictEqual(fs.readdirSync(tmp), [], 'no channel file or directory is left behind');
  } finally {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL'); // never leave a held app behind, even on failure
    rm(tmp);
  }
}

for (const [hold, atHold, heldIf] of [
  ['the start hold', (m) => true, (m) => !m.includes('ran')],
  ['the ready hold', (m) => m.includes('listening'), (m) => !m.includes('listened')],
]) {
  test(`profile: SIGKILL of the CLI during ${hold} closes the inspector and ends the app within 1 s`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-killed-'));
    fs.writeFileSync(path.join(dir, 'app.js'), APP);
    try {
      // The CLI attaches in a few ms: catching it inside the hold can take a few tries.
      for (let attempt = 1; ; attempt++) {
        const at = await frozenAtHold(dir, atHold, heldIf);
        if (at.held || attempt === 5) {
          if (!at.held) { // never leave a frozen CLI (and its held app) behind
            at.cli.child.kill('SIGKILL');
            try { process.kill(at.pid, 'SIGKILL'); } catch { /* gone */ }
          }
          assert.ok(at.held, `the app was inside ${hold} when the CLI was frozen`);
          await killAndCheck(at);
          break;
        }
        at.cli.child.kill('SIGCONT');
        await at.cli.done;
        rm(at.tmp);
      }
    } finally {
      rm(dir);
    }
  });
}

test('profile --keep-running: the app runs while the CLI stays, and ends when the CLI is interrupted', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-kept-'));
  fs.writeFileSync(path.join(dir, 'app.js'), APP);
  const out = path.join(dir, 'out');
  let pid;
  try {
    const cli = spawnCli(['profile', '-q', '--keep-running', '--out', out, '--', 'node', 'app.js'], { cwd: dir, env: { MARKS: path.join(dir, 'marks.txt') } });
    const reportFile = path.join(out, 'report.json');
    await waitFor(() => fs.existsSync(reportFile), 20000, 'the report');
    const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
    pid = report.pid;
    // Longer than the agent's watch interval: the app is not ended while the CLI is there.
    await new Promise((r) => setTimeout(r, 800));
    assert.ok(isAlive(pid), 'the app is still running');
    assert.ok(await portOpen(report.address.port), 'and still listening');
    cli.child.kill('SIGINT');
    await cli.done;
    await waitFor(() => !isAlive(pid), 1000, 'the app to end within 1 s of the CLI');
  } finally {
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    rm(dir);
  }
});

/**
 * Runs the CLI with `args` on an app whose first line writes its PID, SIGKILLs the CLI once the app
 * runs (`afterPid` is the rest of the app), and asserts the app ends within 2 s of the kill.
 */
async function appEndsAfterKill(args, afterPid) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-killed-run-'));
  fs.writeFileSync(path.join(dir, 'app.js'), `require('fs').writeFileSync(process.env.PID_FILE, String(process.pid));\n${afterPid}`);
  const pidFile = path.join(dir, 'pid.txt');
  let pid = null;
  try {
    const cli = spawnCli([...args, '--', 'node', 'app.js'], { cwd: dir, env: { PID_FILE: pidFile } });
    pid = Number(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8'), 20000, 'the app to start'));
    assert.ok(isAlive(pid));
    const killedAt = Date.now();
    cli.child.kill('SIGKILL');
    await cli.done;
    await waitFor(() => !isAlive(pid), 2000, 'the app to end after the CLI');
    assert.ok(Date.now() - killedAt < 2000, `ended ${Date.now() - killedAt} ms after the kill`);
  } finally {
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    rm(dir);
  }
}

test('bench (timed runs, no inspector): SIGKILL of the CLI while the app starts ends the app within about a second', async () => {
  // Never ready: the CLI waits on it until it is killed.
  await appEndsAfterKill(['bench', '-n', '3', '--timeout', '60s'], 'setInterval(() => {}, 1000);\n');
});

test('profile: SIGKILL of the CLI while the app blocks its own event loop still ends the app (and its inspector) within about a second', async () => {
  // Busy at top level for 30 s: the agent's own watch of the CLI cannot run meanwhile.
  await appEndsAfterKill(['profile', '-q', '--out', 'out'], 'const end = Date.now() + 30000;\nwhile (Date.now() < end);\nrequire(\'http\').createServer().listen(0);\n');
});

test('profile --runs 5 interrupted (SIGINT) during its third run: exit 130, the finished runs written and marked partial, the summary says so', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-runs-interrupted-'));
  try {
    // Each start leaves a mark, then listens after a while: the third start is where Ctrl-C comes.
    fs.writeFileSync(path.join(dir, 'app.js'), "require('fs').appendFileSync(process.env.MARKS, 'start\\n');\nsetTimeout(() => require('http').createServer((q, s) => s.end()).listen(0, '127.0.0.1'), 300);\n");
    const marksFile = path.join(dir, 'marks.txt');
    const cli = spawnCli(['profile', '--runs', '5', '--out', path.join(dir, 'out'), '--', 'node', 'app.js'], { cwd: dir, env: { MARKS: marksFile } });
    await waitFor(() => marks(marksFile).filter((m) => m === 'start').length >= 3, 60000, 'the third run');
    cli.child.kill('SIGINT');
    const { code, stdout } = await cli.done;
    assert.strictEqual(code, 130);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'report.json'), 'utf8'));
    assert.strictEqual(report.partial, true);
    assert.strictEqual(report.runs.asked, 5);
    assert.strictEqual(report.runs.finished, 2);
    assert.match(stdout, /\(partial: interrupted after 2 of 5 runs\)/);
  } finally {
    rm(dir);
  }
});
