'use strict';
// A --require preload for tests: the process exits right after its first server starts
// listening, once the app's own listen callback has run.
const net = require('net');
const emit = net.Server.prototype.emit;
net.Server.prototype.emit = function exitAfterListening(event) {
  if (event === 'listening') setImmediate(() => process.exit(0));
  return emit.apply(this, arguments);
};
