'use strict';
// Synchronous work on the startup path, from the CPU profile: time in fs.*Sync, child_process.*Sync,
// zlib's and crypto's *Sync calls, and a module's own top-level code (JSON.parse of a big file, a
// loop), each with the app's file and line that did it. Nothing else can run while it does. Pure:
// the lines of a call come from the caller's source, which readSource gives.
const { fileOfUrl } = require('./cpuprofile-categories.js');

// Blocking calls below this are not worth a line.
const MIN_MS = 5;

const MODULES = {
  'node:fs': { name: 'fs', fix: 'read it asynchronously (fs.promises) once it is needed, or read less at startup' },
  'node:child_process': { name: 'child_process', fix: 'run it asynchronously (execFile or spawn), or once at build time' },
  'node:zlib': { name: 'zlib', fix: 'use the asynchronous zlib API, or do it at build time' },
  'node:crypto': { name: 'crypto', fix: 'use the asynchronous form (crypto.scrypt, crypto.pbkdf2, ...), or do it at build time' },
};
const TOP_LEVEL_FIX = 'defer this work until it is first needed, or do it at build time';

/** The app's own code: a file, not Node's internals and not coldstart's agent. */
const isAppFrame = (frame) => /^(file:\/\/|\/)/.test(frame.url) && !/\/lib\/capture\/[\w-]+\.c?js$/.test(frame.url);

/**
 * @param {{profile?: object}} result the capture result (its trimmed CPU profile)
 * @param {{readSource?: (file: string) => ?string, show?: (file: string) => string}} [options]
 * @returns {Array<{kind: 'sync-work', subject: string, file: string, line: ?number, estimatedMs: number, evidence: string, fix: string}>}
 */
function syncWork(result, options = {}) {
  const profile = result.profile;
  if (!profile || !Array.isArray(profile.nodes)) return [];
  const show = options.show || ((file) => file);
  const readSource = options.readSource || (() => null);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parentOf.set(c, n.id);

  const found = new Map(); // key -> { api, file, line, ms }
  const add = (api, file, line, ms) => {
    const key = `${api}\0${file}\0${line}`;
    const entry = found.get(key) || { api, file, line, ms: 0 };
    entry.ms += ms;
    found.set(key, entry);
  };
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] || 0) / 1000;
    const leaf = byId.get(id);
    if (!leaf) return;
    // The outermost call into one of the modules above, and the app's frame that made it.
    let api = null;
    for (let node = leaf; node; node = byId.get(parentOf.get(node.id))) {
      const frame = node.callFrame;
      const mod = MODULES[frame.url];
      if (mod && /Sync$|^syncBufferWrapper$/.test(frame.functionName)) {
        api = `${mod.name}.${frame.functionName === 'syncBufferWrapper' ? '*Sync' : frame.functionName}`;
      } else if (api && isAppFrame(frame)) {
        add(api, fileOfUrl(frame.url), null, ms);
        return;
      } else if (!api && node === leaf && isAppFrame(frame) && frame.functionName === '' && frame.lineNumber === 0) {
        // The leaf is a module's own top-level code: the line most of its samples were on.
        const ticks = (leaf.positionTicks || []).slice().sort((a, b) => b.ticks - a.ticks);
        add('top-level code', fileOfUrl(frame.url), ticks.length ? ticks[0].line : null, ms);
        return;
      }
    }
  });

  const advice = [];
  for (const { api, file, line, ms } of found.values()) {
    if (ms < MIN_MS) continue;
    const topLevel = api === 'top-level code';
    const at = topLevel ? line : callLine(readSource(file), api);
    const mod = topLevel ? null : MODULES[`node:${api.split('.')[0]}`];
    advice.push({
      kind: 'sync-work',
      subject: api,
      file: show(file),
      line: at,
      estimatedMs: Math.round(ms * 100) / 100,
      evidence: topLevel
        ? `${ms.toFixed(1)} ms of the module's own top-level work before ready${at ? `, most of it at line ${at}` : ''} (CPU profile samples)`
        : `${ms.toFixed(1)} ms blocked in ${api} called from ${show(file)} before ready (CPU profile samples)`,
      fix: topLevel ? TOP_LEVEL_FIX : mod.fix,
    });
  }
  return advice.sort((a, b) => b.estimatedMs - a.estimatedMs);
}

/** The first line of the caller's source that calls the API (e.g. `readFileSync(`), or null. */
function callLine(source, api) {
  if (!source) return null;
  const name = api.split('.')[1];
  // zlib's *Sync methods all run as one wrapper: any of their names.
  const pattern = name === '*Sync' ? /\b(?:gzip|gunzip|deflate|inflate|deflateRaw|inflateRaw|unzip|brotli\w+|zstd\w+)Sync\s*\(/ : new RegExp(`\\b${name}\\s*\\(`);
  const lines = source.split('\n');
  const i = lines.findIndex((l) => pattern.test(l));
  return i === -1 ? null : i + 1;
}

module.exports = { syncWork };
