'use strict';
// Preloaded by bench/sandbox-clock.js and bench/docker-startup.js (see bench/in-process-clock.js): prints `listen-uptime <ms since process start> rusage {json}`
// when the app's first server starts listening (the process's page faults and CPU time so far, as
// the kernel or the sandbox counts them), then ends the process.
const net = require('node:net');

const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function reportListening(event, ...args) {
  if (event === 'listening') {
    const ms = (process.uptime() * 1000).toFixed(1);
    const r = process.resourceUsage();
    const rusage = { minflt: r.minorPageFault, majflt: r.majorPageFault, userMs: r.userCPUTime / 1e3, sysMs: r.systemCPUTime / 1e3 };
    process._rawDebug(`listen-uptime ${ms} rusage ${JSON.stringify(rusage)}`);
    setImmediate(() => process.exit(0));
  }
  return emit.call(this, event, ...args);
};
