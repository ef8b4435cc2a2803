'use strict';
// The processes the app starts are written down (pid and start time) so that they can be ended
// with the rest of the tree, by the agent or by the CLI. A pid can be reused once its process has
// ended: a pid is signalled only while its start time (/proc/PID/stat field 22, clock ticks since
// boot) is still the one written down. Where there is no /proc, a pid is taken as it is.
// Loaded by the agent before it wraps fs (its reads of /proc are not the app's: fs.readFileSync of
// a path calls the wrapped fs.openSync, so files are opened here with the functions taken now), and
// by capture.js and launch.js.
const { openSync, readFileSync, writeSync, closeSync } = require('fs');

function withFile(file, flags, use) {
  const fd = openSync(file, flags);
  try { return use(fd); } finally { closeSync(fd); }
}

/** The fields of /proc/PID/stat after the command name (state first), or null (no such process, or no /proc). */
function procStat(pid) {
  try {
    const stat = withFile(`/proc/${pid}/stat`, 'r', (fd) => readFileSync(fd, 'latin1'));
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A process's start time in clock ticks since boot, or null (no such process, or no /proc). */
function startTicks(pid) {
  const fields = procStat(pid);
  return fields ? Number(fields[19]) : null;
}

/**
 * ms this process's main thread has waited for a CPU while runnable (Linux schedstat; null without
 * it): a busy machine, told apart from waits in the kernel (disk reads, page faults).
 */
function waitedForCpuMs() {
  try {
    return Number(withFile('/proc/thread-self/schedstat', 'r', (fd) => readFileSync(fd, 'latin1')).split(' ')[1]) / 1e6;
  } catch {
    return null;
  }
}

/** Whether `pid` is still the process that started at `ticks` (null: none known, so yes). */
function sameProcess(pid, ticks) {
  return ticks == null || startTicks(pid) === ticks;
}

/** Appends "PID TICKS" (TICKS empty without /proc) to a .children file. */
function recordChild(file, pid) {
  const line = `${pid} ${startTicks(pid) ?? ''}\n`;
  withFile(file, 'a', (fd) => writeSync(fd, line));
}

/** The pids a .children file holds that are still the processes recorded; none when it is unreadable. */
function recordedChildren(file) {
  let text = '';
  try { text = withFile(file, 'r', (fd) => readFileSync(fd, 'utf8')); } catch { return []; }
  const pids = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+)(?: (\d*))?$/.exec(line);
    if (m && sameProcess(Number(m[1]), m[2] ? Number(m[2]) : null)) pids.push(Number(m[1]));
  }
  return pids;
}

/** SIGKILLs the processes a .children file holds, those that are still the processes recorded. */
function killRecordedChildren(file) {
  for (const pid of recordedChildren(file)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* ended already */ }
  }
}

module.exports = { startTicks, sameProcess, recordChild, recordedChildren, killRecordedChildren, procStat, waitedForCpuMs };
