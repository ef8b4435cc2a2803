'use strict';
// Memory at the ready moment, and which package holds it. The figures are process.memoryUsage()
// read in the app while it is held at its ready moment; the split by package comes from V8's
// sampling heap profile (allocations still alive at ready, each with the JavaScript stack that made
// it). An allocation belongs to the innermost frame of the app's code (its own files or a package);
// one made inside Node's module loader below that frame (the source, the compiled code of a module
// being required) is the loader's, never the requiring module's.
const { fileURLToPath } = require('url');
const { packageOf } = require('../package-name.js');
const { isOwnCode } = require('./own-code.js');

const LOADER = /^node:internal\/modules\//;
const OWNERS = ['loader', 'node', 'coldstart', 'unnamed'];

/** A frame's file when it is the app's code (a path or a file: URL), else null. */
function fileOfFrame(url) {
  if (!url) return null;
  if (url.startsWith('/')) return url;
  if (url.startsWith('file:')) {
    try { return fileURLToPath(url); } catch { return null; }
  }
  return null;
}

/**
 * Live sampled bytes per owner: a file of the app, 'loader' (Node's module loader working for the
 * frame below it), 'coldstart' (its own agent), 'node' (no frame of the app on the stack) or
 * 'unnamed' (a module's top-level code Node 20 gives no file).
 * @param {{head: object}} heapProfile HeapProfiler.SamplingHeapProfile
 * @param {Map<string, string>} [scriptUrls] script id -> url, from the CPU profile of the same run:
 *   Node 20 leaves a CommonJS module's top-level code without its url here, not there
 * @returns {Map<string, number>}
 */
function retainedByOwner(heapProfile, scriptUrls = new Map()) {
  const owners = new Map();
  const add = (owner, bytes) => { if (bytes) owners.set(owner, (owners.get(owner) || 0) + bytes); };
  const todo = [[heapProfile.head, 'node', false]];
  while (todo.length) {
    const [node, below, loaderFrame] = todo.pop();
    const frame = node.callFrame || {};
    const url = frame.url || scriptUrls.get(String(frame.scriptId)) || '';
    const file = fileOfFrame(url);
    let owner = below;
    if (file) owner = isOwnCode(file) ? 'coldstart' : file;
    else if (url && LOADER.test(url) && below !== 'node') owner = 'loader';
    // Without a CPU profile to name it: a module's top-level code Node 20 leaves without its url.
    else if (!url && frame.lineNumber === -1 && loaderFrame) owner = 'unnamed';
    add(owner, node.selfSize);
    for (const child of node.children || []) todo.push([child, owner, Boolean(url && LOADER.test(url))]);
  }
  return owners;
}

/**
 * The report's memory section.
 * @param {{usage: {rss: number, heapTotal: number, heapUsed: number, external: number, arrayBuffers: number},
 *   heapProfile: object|null}} memory what capture took at the ready moment
 * @param {{cpuProfile?: object|null, top?: number}} [options] cpuProfile: the same run's, for the
 *   scripts' urls; top: how many packages to name
 */
function memoryReport(memory, { cpuProfile = null, top = 10 } = {}) {
  const { usage, heapProfile } = memory;
  const report = {
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    heapTotalBytes: usage.heapTotal,
    externalBytes: usage.external,
    arrayBuffersBytes: usage.arrayBuffers,
    sampled: null,
  };
  if (!heapProfile || !heapProfile.head) return report;
  const byPackage = new Map();
  const sampled = { totalBytes: 0, loaderBytes: 0, nodeBytes: 0, coldstartBytes: 0, unnamedBytes: 0, packages: [] };
  const scriptUrls = new Map();
  for (const { callFrame } of (cpuProfile && cpuProfile.nodes) || []) if (callFrame.url) scriptUrls.set(String(callFrame.scriptId), callFrame.url);
  for (const [owner, bytes] of retainedByOwner(heapProfile, scriptUrls)) {
    sampled.totalBytes += bytes;
    if (OWNERS.includes(owner)) sampled[`${owner}Bytes`] += bytes;
    else byPackage.set(packageOf(owner), (byPackage.get(packageOf(owner)) || 0) + bytes);
  }
  sampled.packages = [...byPackage].map(([name, bytes]) => ({ package: name, bytes }))
    .sort((a, b) => b.bytes - a.bytes || (a.package < b.package ? -1 : 1)).slice(0, top);
  report.sampled = sampled;
  return report;
}

module.exports = { memoryReport, retainedByOwner };
