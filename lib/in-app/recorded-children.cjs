'use strict';
// The processes the app started, as process-start.cjs wrote them down, ended with the rest of the
// tree: by the CLI, or by the agent once the CLI is gone (loaded then only). A pid can be reused
// once its process has ended: a pid is signalled only while its start time is still the one
// written down. Where there is no /proc, a pid is taken as it is.
const { readFileSync } = require('fs');
const { startTicks } = require('./process-start.cjs');

/** Whether `pid` is still the process that started at `ticks` (null: none known, so yes). */
function sameProcess(pid, ticks) {
  return ticks == null || startTicks(pid) === ticks;
}

/** The pids a .children file holds that are still the processes recorded; none when it is unreadable. */
function recordedChildren(file) {
  let text = '';
  try { text = readFileSync(file, 'utf8'); } catch { return []; }
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

module.exports = { sameProcess, recordedChildren, killRecordedChildren };
