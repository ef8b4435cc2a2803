'use strict';
// The recording side of `pack --code-cache`: pack starts the app once more under
// `coldstart start --mode memory` with RECORD_ENV (code-cache.js) set. Every module the
// loader compiles is kept; at the ready moment (the same --until as the capture: listen, exit
// or a duration) V8 serialises each script with the functions that ran by then, so the
// start in the container finds them compiled instead of compiling them lazily, one by one.
// Then the process exits: the run exists only to produce the cache.
const fs = require('node:fs');
const net = require('node:net');
const { joinCaches } = require('./code-cache.js');

/**
 * @param {string} out file the cache is written to (JSON index) and out + '.bin' (the blob)
 * @param {string} until 'listen' | 'exit' | a duration in milliseconds
 * @returns {{add(rel: string, script: import('node:vm').Script): void}}
 */
function recordCodeCache(out, until) {
  const scripts = new Map();
  let written = false;
  function write() {
    if (written) return;
    written = true;
    const { blob, index } = joinCaches([...scripts].map(([rel, script]) => [rel, script.createCachedData()]));
    fs.writeFileSync(`${out}.bin`, blob);
    // The index last, and whole: when it is there, the blob is complete.
    const { writeFileAtomic } = require('../write-atomic.js');
    writeFileAtomic(out, JSON.stringify(index));
  }
  function writeAndExit() {
    write();
    process.exit(0);
  }
  process.on('exit', write);
  if (until === 'listen') {
    const emit = net.Server.prototype.emit;
    net.Server.prototype.emit = function recordOnListening(event) {
      // A port, as the capture's ready moment: Unix sockets and pipes do not count.
      if (event === 'listening' && typeof this.address() !== 'string') writeAndExit();
      return emit.apply(this, arguments);
    };
  } else if (until !== 'exit') {
    setTimeout(writeAndExit, Number(until)).unref();
  }
  return {
    add(rel, script) {
      scripts.set(rel, script);
    },
  };
}

module.exports = { recordCodeCache };
