'use strict';
// Recorded child processes are ended only while their pid still names the same process: a pid is
// reused once its process has ended, and SIGKILL must not reach whoever has it now.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { startTicks, recordChild } = require('../lib/in-app/process-start.cjs');
const { sameProcess, recordedChildren, killRecordedChildren } = require('../lib/in-app/recorded-children.cjs');
const { isAlive, rm } = require('./helpers/app.js');

const HAS_PROC = fs.existsSync('/proc/self/stat');

test('a recorded child is killed only while its start time matches the one recorded', { skip: !HAS_PROC && 'no /proc' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-process-start-'));
  const child = spawn(process.execPath, ['-e', 'setTimeout(()=>{},5000)'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal)));
  try {
    await new Promise((resolve) => child.once('spawn', resolve));
    const ticks = startTicks(child.pid);
    assert.ok(Number.isInteger(ticks) && ticks > 0, `start time in clock ticks: ${ticks}`);
    assert.strictEqual(sameProcess(child.pid, ticks), true);
    assert.strictEqual(sameProcess(child.pid, ticks + 1), false, 'another start time: another process');
    assert.strictEqual(sameProcess(child.pid, null), true, 'none recorded (no /proc then): taken as it is');

    // Written down as the agent does: pid and start time.
    const file = path.join(dir, '1.children');
    recordChild(file, child.pid);
    assert.strictEqual(fs.readFileSync(file, 'utf8'), `${child.pid} ${ticks}\n`);
    assert.deepStrictEqual(recordedChildren(file), [child.pid]);

    // The same pid recorded with another start time: a process that ended, its pid reused.
    const reused = path.join(dir, '2.children');
    fs.writeFileSync(reused, `${child.pid} ${ticks - 1}\n`);
    assert.deepStrictEqual(recordedChildren(reused), []);
    killRecordedChildren(reused);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(isAlive(child.pid), 'a pid whose start time differs is not killed');

    killRecordedChildren(file);
    assert.strictEqual(await exited, 'SIGKILL', 'the recorded process itself is killed');
  } finally {
    try { child.kill('SIGKILL'); } catch { /* ended */ }
    rm(dir);
  }
});
