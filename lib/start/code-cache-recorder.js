'use strict';
// The recording side of `pack --code-cache`: pack starts the app once more under
// `coldstart start --mode memory` with RECORD_ENV (archive-format.js) set. Every module the
// loader compiles is kept; at the ready moment (the same --until as the capture: listen, exit
// or a duration, lib/in-app/ready-moment.cjs) V8 serialises each script with the functions that
// ran by then, so the start in the container finds them compiled instead of compiling them
// lazily, one by one.
// ES modules: Node's own compile cache is turned on into out + '.esm' (Node 22.1+), and written
// out at the ready moment too; pack takes the entries of the archive's ES modules from there
// (code-cache-run.js), for start to hand back to Node (esm-code-cache.js).
// Then the process exits: the run exists only to produce the cache.
const fs = require('node:fs');
const { onReadyMoment } = require('../in-app/ready-moment.cjs');

/**
 * @param {string} out file the cache is written to (JSON index) and out + '.bin' (the blob)
 * @param {string} until the ready moment: 'listen' | 'exit' | a duration in milliseconds | a readiness URL
 * @param {number} [settleMs] written this long after the ready moment (pack --after)
 * @returns {{add(rel: string, script: import('node:vm').Script): void}}
 */
function codeCacheRecorder(out, until, settleMs = 0) {
  const scripts = new Map();
  const Module = require('node:module');
  const esm = typeof Module.enableCompileCache === 'function' && process.env.NODE_COMPILE_CACHE === undefined;
  if (esm) Module.enableCompileCache(`${out}.esm`);
  let written = false;
  function write() {
    if (written) return;
    written = true;
    if (esm && typeof Module.flushCompileCache === 'function') Module.flushCompileCache();
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
  const atReady = settleMs ? () => setTimeout(writeAndExit, settleMs) : writeAndExit;
  if (!onReadyMoment(until, atReady) && until !== 'exit') {
    setTimeout(writeAndExit, Number(until)).unref();
  }
  return {
    add(rel, script) {
      scripts.set(rel, script);
    },
  };
}

/** The recorder for the run pack started (RECORD_ENV set): its ready moment and settle time from the environment. */
function recorderFromEnv() {
  const { RECORD_ENV, SETTLE_ENV } = require('../archive-format.js');
  const { readyMoment, UNTIL_ENV } = require('../in-app/ready-moment.cjs');
  const out = process.env[RECORD_ENV];
  const until = readyMoment();
  const settleMs = Number(process.env[SETTLE_ENV]) || 0;
  delete process.env[RECORD_ENV]; // not for the app's own child processes
  delete process.env[UNTIL_ENV];
  delete process.env[SETTLE_ENV];
  return codeCacheRecorder(out, until, settleMs);
}

/**
 * One blob of per-module caches, and the index of where each lies in it, tagged with the
 * Node and V8 that made them and V8's cachedDataVersionTag (V8 version, V8 flags, CPU
 * features): start uses no cache whose tag is not its own, since V8 would reject every module.
 * @param {Iterable<[string, Buffer]>} caches root-relative file -> its cached data
 * @returns {{ blob: Buffer, index: { node: string, v8: string, tag: number, entries: Object<string, [number, number]> } }}
 */
function joinCaches(caches) {
  const parts = [];
  const entries = {};
  let offset = 0;
  for (const [rel, data] of caches) {
    entries[rel] = [offset, data.length];
    parts.push(data);
    offset += data.length;
  }
  const tag = require('node:v8').cachedDataVersionTag();
  return { blob: Buffer.concat(parts), index: { node: process.version, v8: process.versions.v8, tag, entries } };
}

module.exports = { joinCaches, codeCacheRecorder, recorderFromEnv };
