'use strict';
// A CPU share and a memory limit for the app's process tree, as a platform gives them (Cloud Run's
// 0.5 vCPU, Lambda's 512 MB): a cgroup made for one run beside coldstart's own, cgroup v2 where
// its cpu and memory controllers are handed down to it, else v1's cpu and memory hierarchies. The
// app's first process joins it before Node starts (a shell line writes its own pid, then execs),
// so nothing of the app runs outside it. Where no such cgroup can be made: one line, no run.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');

const CGROUP = '/sys/fs/cgroup';
const PERIOD_US = 100000;
let made = 0;

/** This process's cgroup paths: { '': v2 path } and v1 controller -> path, from /proc/self/cgroup. */
function ownCgroups() {
  const own = {};
  let text = '';
  try { text = fs.readFileSync('/proc/self/cgroup', 'utf8'); } catch { return own; }
  for (const line of text.trim().split('\n')) {
    const [, controllers, where] = /^\d+:([^:]*):(.*)$/.exec(line) || [];
    if (where === undefined) continue;
    for (const name of controllers.split(',')) own[name] = where;
  }
  return own;
}

const writable = (dir) => { try { fs.accessSync(dir, fs.constants.W_OK); return fs.statSync(dir).isDirectory(); } catch { return false; } };

/** Where a run's cgroup can be made: { version, parents: { cpu, memory } } or null. */
function findHierarchy(needs) {
  const own = ownCgroups();
  // v2: mounted at /sys/fs/cgroup (or /sys/fs/cgroup/unified beside v1), the controllers delegated.
  for (const mount of [CGROUP, path.join(CGROUP, 'unified')]) {
    if (own[''] === undefined || !fs.existsSync(path.join(mount, 'cgroup.controllers'))) continue;
    const parent = path.join(mount, own['']);
    let delegated = '';
    try { delegated = fs.readFileSync(path.join(parent, 'cgroup.subtree_control'), 'utf8'); } catch { continue; }
    if (needs.every((c) => delegated.split(/\s+/).includes(c)) && writable(parent)) return { version: 2, parents: { cpu: parent, memory: parent } };
  }
  const parents = {};
  for (const c of needs) {
    const dir = own[c] !== undefined ? path.join(CGROUP, c, own[c]) : null;
    if (!dir || !writable(dir)) return null;
    parents[c] = dir;
  }
  return { version: 1, parents };
}

/**
 * Makes the cgroup of one run.
 * @param {{cpus?: number|null, memoryBytes?: number|null}} limits
 * @returns {{how: string, cpus: ?number, memoryBytes: ?number, wrap: (command: string[]) => string[],
 *   killedForMemory: () => boolean, close: () => void}}
 */
function openLimit({ cpus = null, memoryBytes = null }) {
  const needs = [...(cpus ? ['cpu'] : []), ...(memoryBytes ? ['memory'] : [])];
  const found = findHierarchy(needs);
  if (!found) {
    throw new UsageError(`${needs.map((c) => (c === 'cpu' ? '--cpus' : '--memory')).join(' and ')} needs a cgroup this user can make for the run (cgroup v2 with the ${needs.join(' and ')} controller${needs.length > 1 ? 's' : ''} delegated, or cgroup v1's ${needs.join(' and ')} hierarchies writable, as for root), and there is none here: run it where there is, or in a container (--docker IMAGE)`);
  }
  const name = `coldstart-${process.pid}-${++made}`;
  const dirs = [...new Set(needs.map((c) => path.join(found.parents[c], name)))];
  const set = (dir, file, value) => fs.writeFileSync(path.join(dir, file), String(value));
  const dirOf = (c) => path.join(found.parents[c], name);
  try {
    for (const dir of dirs) fs.mkdirSync(dir);
    if (found.version === 2) {
      if (cpus) set(dirOf('cpu'), 'cpu.max', `${Math.round(cpus * PERIOD_US)} ${PERIOD_US}`);
      if (memoryBytes) {
        set(dirOf('memory'), 'memory.max', memoryBytes);
        try { set(dirOf('memory'), 'memory.swap.max', 0); } catch { /* no swap accounting */ }
      }
    } else {
      if (cpus) {
        set(dirOf('cpu'), 'cpu.cfs_period_us', PERIOD_US);
        set(dirOf('cpu'), 'cpu.cfs_quota_us', Math.round(cpus * PERIOD_US));
      }
      if (memoryBytes) {
        set(dirOf('memory'), 'memory.limit_in_bytes', memoryBytes);
        // Swap would let the app run on past the limit where the platform kills it.
        try { set(dirOf('memory'), 'memory.memsw.limit_in_bytes', memoryBytes); } catch { /* no swap accounting */ }
      }
    }
  } catch (err) {
    for (const dir of dirs) try { fs.rmdirSync(dir); } catch { /* not made */ }
    throw new UsageError(`--cpus/--memory: could not set up the cgroup ${dirs[0]}: ${err.message}`);
  }
  const oomKills = () => {
    if (!memoryBytes) return 0;
    const file = found.version === 2 ? 'memory.events' : 'memory.oom_control';
    try { return Number((/^oom_kill (\d+)$/m.exec(fs.readFileSync(path.join(dirOf('memory'), file), 'utf8')) || [])[1] || 0); } catch { return 0; }
  };
  return {
    how: `a cgroup v${found.version} of this machine`,
    cpus,
    memoryBytes,
    // sh writes its own pid into each cgroup, then becomes the app's command: the same pid throughout.
    wrap: (command) => ['/bin/sh', '-c', 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"', 'coldstart-limit',
      ...dirs.map((dir) => path.join(dir, 'cgroup.procs')), '--', ...command],
    killedForMemory: () => oomKills() > 0,
    // Empty once the app's processes have ended (the capture ends them before).
    close() {
      for (const dir of dirs) {
        for (let i = 0; i < 50; i++) {
          try { fs.rmdirSync(dir); break; } catch (err) { if (err.code !== 'EBUSY') break; }
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
        }
      }
    },
  };
}

module.exports = { openLimit };
