'use strict';
// Preloaded (NODE_OPTIONS=--require) while the image is built: runs the app up to its first
// listen, then exits, so Node writes the compile cache of every module loaded on the way.
const net = require('node:net');

const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function exitOnListening(event) {
  if (event === 'listening') setImmediate(() => process.exit(0));
  return emit.apply(this, arguments);
};
