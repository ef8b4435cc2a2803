'use strict';
// Per-module and per-package startup cost from a CaptureResult. Pure.

const round = (n) => Math.round(n * 100) / 100;

/**
 * Per-package totals. `selfMs` sums the package's modules' own time, so the
 * packages partition the module-loading time (they add up to no more than readyAt).
 * `inclusiveMs` is the same partition (time in the package's own files, its
 * dependencies excluded) kept under the name the report schema uses; `gcMs` the garbage
 * collections that fell inside its modules' own windows (null without a CPU profile); `loadMs`
 * is the wall time of loading the package from outside, dependencies included; `bytes` sums
 * the sizes of its module files.
 * @param {Array<object>} modules CaptureResult.modules
 * @param {Map<string, number>} [fileBytes] size of each file, keyed like the modules' `file`
 */
function packageTotals(modules, fileBytes = new Map()) {
  const byName = new Map();
  const byFile = new Map(modules.map((m) => [m.file, m]));
  for (const m of modules) {
    let p = byName.get(m.package);
    if (!p) byName.set(m.package, (p = { name: m.package, modules: 0, selfMs: 0, inclusiveMs: 0, gcMs: null, loadMs: 0, bytes: 0 }));
    p.modules += 1;
    p.selfMs += m.selfMs;
    if (m.gcMs != null) p.gcMs = (p.gcMs || 0) + m.gcMs;
    p.bytes += fileBytes.get(m.file) || 0;
    const parent = m.parent && byFile.get(m.parent);
    // An entry into the package from another package (or the top): its wall time counts.
    if (!parent || parent.package !== m.package) p.loadMs += m.inclusiveMs;
  }
  const out = [...byName.values()].map((p) => ({
    ...p,
    selfMs: round(p.selfMs),
    inclusiveMs: round(p.selfMs),
    gcMs: p.gcMs == null ? null : round(p.gcMs),
    loadMs: round(p.loadMs),
  }));
  return out.sort((a, b) => b.inclusiveMs - a.inclusiveMs || a.name.localeCompare(b.name));
}

/** Top N modules by a field ('inclusiveMs' | 'selfMs'). */
function topModules(modules, field, n = 10) {
  return [...modules].sort((a, b) => b[field] - a[field] || a.file.localeCompare(b.file)).slice(0, n);
}

module.exports = { packageTotals, topModules };
