'use strict';
// The processes the app starts are written down (pid and start time, /proc/PID/stat field 22,
// clock ticks since boot) so that they can be ended with the rest of the tree, by the agent or by
// the CLI (recorded-children.cjs). Also what /proc says of a process (the CLI's, from the agent)
// and of this one's waits for a CPU.
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

/** Appends "PID TICKS" (TICKS empty without /proc) to a .children file. */
function recordChild(file, pid) {
  const line = `${pid} ${startTicks(pid) ?? ''}\n`;
  withFile(file, 'a', (fd) => writeSync(fd, line));
}

module.exports = { startTicks, recordChild, procStat, waitedForCpuMs };
