'use strict';
// Node 20 runs loader hooks on a thread of their own (esm-hooks.mjs, ~25 ms to start): this is the
// app thread's side, loaded only for an ES module app there. The hooks post their records back.
const path = require('path');
const Module = require('module');

/** Starts the hooks thread; null where Node has no module.register. */
function startHooksThread() {
  if (typeof Module.register !== 'function') return null;
  const { MessageChannel, receiveMessageOnPort } = require('worker_threads');
  const { pathToFileURL } = require('url');
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  Module.register(pathToFileURL(path.join(__dirname, 'esm-hooks.mjs')).href, {
    data: { port: port2 },
    transferList: [port2],
  });
  return {
    /** Hands each record the thread sent and this thread has not read yet to onRecord. */
    drain(onRecord) {
      let msg;
      while ((msg = receiveMessageOnPort(port1))) onRecord(msg.message);
    },
  };
}

module.exports = { startHooksThread };
