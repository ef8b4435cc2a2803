'use strict';
// Synchronous work on the startup path, from the CPU profile: time in fs.*Sync, child_process.*Sync,
// zlib's and crypto's *Sync calls made by the app's or a package's own code, and a module's own
// top-level work (JSON.parse of a big file, a loop). Nothing else can run while it does.
// What Node's loader does for require/import (realpath, stat, reading a module or a JSON file) is
// the loading of that module, never sync work; coldstart's own frames are looked through. A finding
// names the call in the caller's source, found by parsing it; a frame whose source has no such call
// gives no line. Pure: sources come from readSource.
const { fileOfUrl, isUserFrame, timedSamples } = require('./cpuprofile-categories.js');
const { isOwnCode } = require('./own-code.js');
const { sourceSitesOf } = require('./source-sites.js');
const { packageOf } = require('../package-name.js');
const { formatMs } = require('../format-units.js');
const { lostTopFrames, isTopLevel } = require('./lost-top-frames.js');

// The evidence a finding needs: this much on-CPU time, in at least this many samples (one sample
// is wherever the thread happened to be; off-CPU gaps never count, see cpuprofile-categories.js).
const MIN_MS = 5;
const MIN_SAMPLES = 5;

const MODULES = {
  'node:fs': { name: 'fs', fix: 'read it asynchronously (fs.promises) once it is needed, or read less at startup' },
  'node:child_process': { name: 'child_process', fix: 'run it asynchronously (execFile or spawn), or once at build time' },
  'node:zlib': { name: 'zlib', fix: 'use the asynchronous zlib API, or do it at build time' },
  'node:crypto': { name: 'crypto', fix: 'use the asynchronous form (crypto.scrypt, crypto.pbkdf2, ...), or do it at build time' },
};
// zlib's *Sync methods all run as one wrapper: any of their names is the call.
const ZLIB_SYNC = ['gzipSync', 'gunzipSync', 'deflateSync', 'inflateSync', 'deflateRawSync', 'inflateRawSync', 'unzipSync',
  'brotliCompressSync', 'brotliDecompressSync', 'zstdCompressSync', 'zstdDecompressSync'];
const TOP_LEVEL_FIX = 'defer this work until it is first needed, or do it at build time';
const TOP_LEVEL = 'top-level code';

/**
 * @param {{profile?: object, modules?: object[]}} result the capture result (its trimmed CPU
 *   profile, its modules' windows)
 * @param {{readSource?: (file: string) => ?string, show?: (file: string) => string,
 *   toProfileUs?: (ms: number) => number}} [options] toProfileUs: the modules' clock on the profile's
 * @returns {Array<{kind: 'sync-work', subject: string, file: string, line: number, column: number, calls?: number[],
 *   estimatedMs: number, samples: number, chain: string[], evidence: string, fix: string}>} largest first
 */
function syncWork(result, options = {}) {
  const profile = result.profile;
  if (!profile || !Array.isArray(profile.nodes)) return [];
  const show = options.show || ((file) => file);
  const readSource = options.readSource || (() => null);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parentOf.set(c, n.id);
  const up = (node) => byId.get(parentOf.get(node.id));
  // A module's top-level frame V8's sampler did not see: the sample is the module's all the same.
  const samples = timedSamples(profile);
  const lostTopLevel = options.toProfileUs ? lostTopFrames(profile, result.modules, options.toProfileUs, samples) : () => null;

  // The calls: (api, caller frame) -> on-CPU µs, samples, the heaviest stack.
  const calls = new Map();
  // A module's own top-level work: its top-level frame's node -> on-CPU µs, samples.
  const topLevel = new Map();
  for (const sample of samples) {
    const leaf = lostTopLevel(sample) || byId.get(sample.id);
    if (!leaf || !sample.onCpu) continue;
    const found = callerOf(leaf, up);
    if (found) {
      const { api, caller } = found;
      const f = caller.callFrame;
      const key = `${api}\0${f.url}\0${f.lineNumber}\0${f.columnNumber}`;
      const entry = calls.get(key) || { api, frame: f, us: 0, samples: 0, stack: caller };
      entry.us += sample.onCpu;
      entry.samples++;
      calls.set(key, entry);
    } else if (isUserFrame(leaf.callFrame) && isTopLevel(leaf.callFrame)) {
      const entry = topLevel.get(leaf.id) || { node: leaf, us: 0, samples: 0 };
      entry.us += sample.onCpu;
      entry.samples++;
      topLevel.set(leaf.id, entry);
    }
  }

  const sitesOf = sourceSitesOf(readSource);
  const advice = [];
  for (const entry of calls.values()) {
    const ms = entry.us / 1000;
    if (ms < MIN_MS || entry.samples < MIN_SAMPLES) continue;
    const file = fileOfUrl(entry.frame.url);
    const sites = sitesOf(file);
    if (!sites) continue;
    const fn = isTopLevel(entry.frame) ? null : sites.functionAt(entry.frame.lineNumber, entry.frame.columnNumber);
    if (!fn && !isTopLevel(entry.frame)) continue;
    const name = entry.api.split('.')[1];
    const found = sites.callsIn(fn, name === '*Sync' ? ZLIB_SYNC : [name]);
    if (!found.length) continue; // the frame's own source makes no such call: not a line to show
    const mod = MODULES[`node:${entry.api.split('.')[0]}`];
    advice.push({
      kind: 'sync-work',
      subject: entry.api,
      file: show(file),
      line: found[0].line,
      column: found[0].column,
      ...(found.length > 1 ? { calls: found.map((c) => c.line) } : {}),
      estimatedMs: round(ms),
      samples: entry.samples,
      chain: chainOf(entry.stack, up, show).concat(entry.api),
      evidence: `${formatMs(ms)} ms on the CPU in ${entry.api} called from ${show(file)}:${found[0].line} before ready (${entry.samples} CPU profile samples)`,
      fix: fixFor(file, mod.fix, show),
    });
  }
  // A package's own top-level work is part of loading it (its load time says so): no line the app can change.
  // Samples weigh the time to the next one, a short wait for the CPU included: never more than the
  // module's own time (its CPU, where the agent measured it).
  const ownMs = new Map((result.modules || []).map((m) => [m.file, m.selfMs]));
  for (const entry of topLevel.values()) {
    const file = fileOfUrl(entry.node.callFrame.url);
    if (packageOf(file) === '(app)') advice.push(...topLevelWork(entry, ownMs.get(file), sitesOf, show, up));
  }
  return advice.sort((a, b) => b.estimatedMs - a.estimatedMs);
}

/** The module whose sync API a frame is in: crypto's *Sync functions live in node:internal/crypto/*. */
function moduleOfFrame(url) {
  return MODULES[url] || (url.startsWith('node:internal/crypto/') ? MODULES['node:crypto'] : null);
}

/**
 * The sync API a sample's stack is in and the frame of the app's or a package's code that called
 * it; null when there is none, or when Node's own code (the module loader) made the call.
 */
function callerOf(leaf, up) {
  let api = null;
  let apiUrl = null;
  for (let node = leaf; node; node = up(node)) {
    const frame = node.callFrame;
    if (isOwnCode(frame.url)) continue; // coldstart's wrappers: look through them
    const mod = moduleOfFrame(frame.url);
    if (mod && /Sync$|^syncBufferWrapper$/.test(frame.functionName)) {
      api = `${mod.name}.${frame.functionName === 'syncBufferWrapper' ? '*Sync' : frame.functionName}`;
      apiUrl = frame.url;
      continue; // the outermost such frame is the call that was made
    }
    if (!api) continue;
    if (frame.url === apiUrl || frame.url === '') continue; // the API's own helpers and natives
    return isUserFrame(frame) ? { api, caller: node } : null;
  }
  return null;
}

/** The stack to a frame, outermost first: the app's and packages' frames only, as `name file:line`. */
function chainOf(node, up, show) {
  const frames = [];
  for (let at = node; at; at = up(at)) {
    const f = at.callFrame;
    if (!isUserFrame(f)) continue;
    const where = `${show(fileOfUrl(f.url))}:${f.lineNumber + 1}`;
    frames.unshift(isTopLevel(f) ? `(top level) ${where}` : `${f.functionName || '(anonymous)'} ${where}`);
  }
  return frames.slice(-8);
}

/**
 * A module's own top-level work, per line (V8's per-line ticks of the frame), where the line holds
 * a call (JSON.parse has no frame of its own: its time is the line's); ownMs, the module's own
 * time, bounds the lines' total.
 */
function topLevelWork(entry, ownMs, sitesOf, show, up) {
  const frame = entry.node.callFrame;
  const sampledMs = entry.us / 1000;
  const totalMs = ownMs >= 0 ? Math.min(sampledMs, ownMs) : sampledMs;
  // Node 26's V8 gives a line one entry per position in it: the line's ticks are their sum.
  const ticks = new Map();
  for (const t of entry.node.positionTicks || []) ticks.set(t.line, (ticks.get(t.line) || 0) + t.ticks);
  const total = [...ticks.values()].reduce((sum, n) => sum + n, 0);
  if (!total) return [];
  const file = fileOfUrl(frame.url);
  const out = [];
  for (const [line, n] of ticks) {
    const ms = totalMs * (n / total);
    const samples = Math.round(entry.samples * (n / total));
    // The samples V8 stopped short of (lost-top-frames.js) go to the lines the others were on: a
    // line seen once is no place to put them.
    if (ms < MIN_MS || samples < MIN_SAMPLES || n < 2) continue;
    const sites = sitesOf(file);
    const call = sites && sites.topLevelCallOnLine(line);
    if (!call || call.callee === 'require') continue; // no call there (or a require: the loader's)
    out.push({
      kind: 'sync-work',
      subject: TOP_LEVEL,
      file: show(file),
      line,
      column: call.column,
      estimatedMs: round(ms),
      samples,
      chain: chainOf(entry.node, up, show),
      evidence: `${formatMs(ms)} ms on the CPU in the module's own top-level code at line ${line}, \`${call.callee}(…)\` (${samples} CPU profile samples)`,
      fix: fixFor(file, TOP_LEVEL_FIX, show),
    });
  }
  return out;
}

/** The fix for the app's own code, or what the app can do about a package's. */
function fixFor(file, fix, show) {
  const pkg = packageOf(file);
  if (pkg === '(app)') return fix;
  return `this is ${pkg}'s own code (${show(file)}): if the app can start without ${pkg}, load it when first needed; else look for a version or option of it that does not do this at startup`;
}

const round = (n) => Math.round(n * 100) / 100;

module.exports = { syncWork, MIN_MS, MIN_SAMPLES };
