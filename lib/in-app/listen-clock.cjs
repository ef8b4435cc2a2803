'use strict';
// Preloaded (NODE_OPTIONS=--require) into each start `coldstart dockerfile --choose --runtime`
// times in a container, mounted there alone, and by the container benchmarks (bench/in-process-clock.js):
// at the first server's listen it writes the ms since this process started, then the process's page
// faults and CPU time so far as the kernel or the sandbox counts them (`coldstart-listen MS rusage
// {json}`, on stderr), then ends the process. Nothing else.
const net = require('node:net');

const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function listenClock(event, ...args) {
  if (event === 'listening') {
    const ms = (process.uptime() * 1000).toFixed(1);
    const r = process.resourceUsage();
    const rusage = { minflt: r.minorPageFault, majflt: r.majorPageFault, userMs: r.userCPUTime / 1e3, sysMs: r.systemCPUTime / 1e3 };
    process._rawDebug(`coldstart-listen ${ms} rusage ${JSON.stringify(rusage)}`);
    setImmediate(() => process.exit(0));
  }
  return emit.call(this, event, ...args);
};
