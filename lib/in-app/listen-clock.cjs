'use strict';
// Preloaded (NODE_OPTIONS=--require) into each start `coldstart dockerfile --choose --runtime`
// times in a container, mounted there alone: at the first server's listen it writes the ms since
// this process started (`coldstart-listen MS`, on stderr), then ends the process. Nothing else.
const net = require('node:net');

const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function listenClock(event, ...args) {
  if (event === 'listening') {
    process._rawDebug(`coldstart-listen ${(process.uptime() * 1000).toFixed(1)}`);
    setImmediate(() => process.exit(0));
  }
  return emit.call(this, event, ...args);
};
