'use strict';
// Preloaded by bench/sandbox-clock.js: prints `listen-uptime <ms since process start>` when the
// app's first server starts listening, then ends the process.
const net = require('node:net');

const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function reportListening(event, ...args) {
  if (event === 'listening') {
    process._rawDebug(`listen-uptime ${(process.uptime() * 1000).toFixed(1)}`);
    setImmediate(() => process.exit(0));
  }
  return emit.call(this, event, ...args);
};
