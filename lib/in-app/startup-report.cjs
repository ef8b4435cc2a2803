'use strict';
// A timing-only report of one cold start, from the real environment: COLDSTART_REPORT=stderr
// (one JSON line, which log pipelines such as Cloud Logging keep) or =FILE, set for `coldstart
// start` (or `start --report-file FILE`), or for any app through the preload report-preload.cjs.
// Runs inside the app: Node built-ins only, loaded only when asked for. It times each module
// load (two clock reads per require), says when the app became ready (its first listen) and
// writes the report then, and at exit when the app never listened (or, to a file, when files came
// from disk after the ready moment). With an OTLP endpoint in the environment it also sends the
// report as a trace after the ready moment (otlp-export.cjs).
const fs = require('node:fs');
const Module = require('node:module');
const { onListening, processClock } = require('./ready-moment.cjs');
const { packageOf } = require('../package-name.js');

const SCHEMA = 1;

/**
 * Starts timing module loads and writes the report at the ready moment.
 * @param {{report: string, root?: string, archive?: string, archiveReadyMs?: number,
 *   stats?: {cacheHits: number, cacheRejected: number}}} options
 *   report: 'stderr' or a file; archiveReadyMs: when start had the archive in memory
 * @returns {{fromDisk(rel: string): void}} start tells it of each file that came from disk
 */
function startupReport({ report, root = process.cwd(), archive = null, archiveReadyMs = null, stats = null }) {
  // A file named from the working directory start ran in: the app may change it (Next.js's does).
  if (report !== 'stderr') report = require('node:path').resolve(report);
  const { now } = processClock(); // readyAt's clock, with no pause: in production nothing holds the app
  const loads = []; // [filename, own ms, start, end]: grouped by package only when the report is written
  const fromDisk = [];
  let firstModuleMs = null;
  let readyAt = null;
  let written = false;

  const origLoad = Module.prototype.load;
  const childMs = []; // per load in progress: the time of the loads it made
  Module.prototype.load = function timedLoad(filename) {
    const t0 = now();
    if (firstModuleMs === null) firstModuleMs = t0;
    childMs.push(0);
    try {
      return origLoad.call(this, filename);
    } finally {
      const ms = now() - t0;
      const own = ms - childMs.pop();
      if (childMs.length) childMs[childMs.length - 1] += ms;
      loads.push([filename, own, t0, t0 + ms]);
    }
  };

  onListening(() => {
    if (readyAt !== null) return;
    readyAt = now();
    write();
    written = true;
    // The same as a trace, when an OTLP endpoint is configured: sent after the ready moment.
    if (process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
      require('./otlp-export.cjs').exportStartup(document(), packageWindows());
    }
  });
  // At exit: the report of an app that never listened; a file's report again when files came
  // from disk after the ready moment (stderr keeps its one line).
  process.on('exit', () => {
    if (!written || (report !== 'stderr' && fromDisk.some((f) => f.ms > readyAt))) write();
  });

  const round = (ms) => (ms === null ? null : Math.round(ms * 10) / 10);
  function document() {
    const packages = new Map(); // name -> { ms, modules }
    for (const [filename, ms] of loads) {
      const name = packageOf(typeof filename === 'string' ? filename : '');
      const entry = packages.get(name) || { ms: 0, modules: 0 };
      entry.ms += ms;
      entry.modules += 1;
      packages.set(name, entry);
    }
    return {
      coldstart: 'startup-report',
      schema: SCHEMA,
      node: process.version,
      pid: process.pid,
      root,
      archive,
      readyAt: round(readyAt),
      // ms since the process started, in order
      phases: { archiveReady: round(archiveReadyMs), firstModule: round(firstModuleMs), ready: round(readyAt) },
      modules: loads.length,
      packages: [...packages].map(([name, p]) => ({ name, ms: round(p.ms), modules: p.modules })).sort((a, b) => b.ms - a.ms),
      // esm: ES modules given a code cache through Node's compile cache (V8's verdict is Node's to keep).
      codeCache: stats && (stats.cacheModules || stats.esmCacheModules) ? { hits: stats.cacheHits, rejected: stats.cacheRejected, esm: stats.esmCacheModules || 0 } : null,
      // start's check of the packed files against the disk (null: --trust-archive, or no archive)
      checked: stats && stats.checked ? { files: stats.checked.files, trees: stats.checked.trees } : null,
      fromDisk: fromDisk.map((f) => ({ ...f, ms: round(f.ms), beforeReady: readyAt === null ? null : f.ms <= readyAt })),
    };
  }
  /** Each package's first module load to its last: [{ name, startMs, endMs }], in load order. */
  function packageWindows() {
    const windows = new Map();
    for (const [filename, , startMs, endMs] of loads) {
      const name = packageOf(typeof filename === 'string' ? filename : '');
      const w = windows.get(name);
      if (!w) windows.set(name, { name, startMs, endMs });
      else { w.startMs = Math.min(w.startMs, startMs); w.endMs = Math.max(w.endMs, endMs); }
    }
    return [...windows.values()].sort((a, b) => a.startMs - b.startMs);
  }
  let warned = false;
  function write() {
    const text = JSON.stringify(document());
    try {
      if (report === 'stderr') fs.writeSync(2, `${text}\n`);
      else require('../write-atomic.js').writeFileAtomic(report, `${text}\n`); // never through a planted link
    } catch (err) {
      // A report must never stop the app: one line, once.
      if (!warned && report !== 'stderr') {
        warned = true;
        try { fs.writeSync(2, `coldstart: startup report not written to ${JSON.stringify(report)}: ${err.code || err.message}\n`); } catch { /* no stderr */ }
      }
    }
  }
  return { fromDisk: (rel) => fromDisk.push({ file: rel, ms: now() }) };
}

module.exports = { startupReport };
