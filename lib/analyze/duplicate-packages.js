'use strict';
// One package loaded at startup from several copies (node_modules/a/node_modules/x beside
// node_modules/x): each copy is loaded, compiled and kept apart. An OpenTelemetry app loaded 17
// copies of @opentelemetry/core. The report lists them instead of merging them under one name.
// Pure: the copies' versions come from readSource, which the caller gives.
const path = require('path');
const { packageName } = require('../package-name.js');

// A copy whose own load time is below this is not worth a line.
const MIN_MS = 1;

/** The directory of the package copy a file lies in: up to node_modules/<name> (or @scope/name). */
function copyDir(file) {
  const parts = file.split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  if (i === -1 || i + 1 >= parts.length) return null;
  const end = parts[i + 1].startsWith('@') ? i + 3 : i + 2;
  return parts.slice(0, end).join('/');
}

/**
 * Advice entries for packages loaded from more than one copy before the ready moment.
 * @param {{root: string, modules: Array<{file: string, package: string, parent: ?string, selfMs: number}>}} result
 *   modules with absolute paths, as the capture gives them
 * @param {{readSource?: (file: string) => ?string, show?: (file: string) => string}} [options]
 * @returns {Array<{kind: 'duplicate-package', subject: string, file: string, line: null, estimatedMs: number,
 *   copies: Array<{dir: string, version: ?string, modules: number, ms: number, pulledBy: ?string}>, evidence: string, fix: string}>}
 */
function duplicatePackages(result, options = {}) {
  const readSource = options.readSource || (() => null);
  const show = options.show || ((file) => file);
  const byName = new Map(); // package -> Map(copy dir -> { modules, ms, first })
  for (const m of result.modules || []) {
    const dir = copyDir(m.file);
    if (!dir) continue;
    if (!byName.has(m.package)) byName.set(m.package, new Map());
    const copies = byName.get(m.package);
    if (!copies.has(dir)) copies.set(dir, { modules: 0, ms: 0, first: m });
    const copy = copies.get(dir);
    copy.modules += 1;
    copy.ms += m.selfMs || 0;
  }
  const advice = [];
  for (const [name, copies] of byName) {
    if (copies.size < 2) continue;
    const list = [...copies].map(([dir, c]) => ({
      dir: show(dir),
      version: versionOf(readSource(path.join(dir, 'package.json'))),
      modules: c.modules,
      ms: Math.round(c.ms * 100) / 100,
      pulledBy: c.first.parent ? show(c.first.parent) : null,
    })).sort((a, b) => b.ms - a.ms || a.dir.localeCompare(b.dir));
    // One copy is needed; the others are what a dedupe could save.
    const estimatedMs = Math.round(list.slice(1).reduce((sum, c) => sum + c.ms, 0) * 100) / 100;
    if (estimatedMs < MIN_MS) continue;
    const versions = [...new Set(list.map((c) => c.version || '?'))];
    advice.push({
      kind: 'duplicate-package',
      subject: name,
      file: list[0].dir,
      line: null,
      estimatedMs,
      copies: list,
      evidence: `${list.length} copies (${versions.join(', ')}): ${list.map((c) => `${c.dir} ${c.version || '?'}, ${c.modules} module${c.modules === 1 ? '' : 's'}, ${c.ms} ms${c.pulledBy ? `, first required by ${c.pulledBy}` : ''}`).join('; ')}`,
      fix: duplicateFix(name, list, versions),
    });
  }
  const follows = new Map(advice.map((entry) => [entry, followsCopiesOf(entry, advice)]));
  for (const [entry, along] of follows) {
    // Two that require each other's copies send the reader in a circle: neither says so.
    if (!along || follows.get(along) === entry) continue;
    entry.fix = `its other copies are required by the copies of ${along.subject}: they go when those are merged (the ${along.subject} line); else ${entry.fix}`;
  }
  return advice.sort((a, b) => b.estimatedMs - a.estimatedMs || a.subject.localeCompare(b.subject));
}

// The other duplicated package whose copies require every extra copy of this one (mime-db 1.52.0
// required by the mime-types 2.1.35 beside mime-types 3): merging that one's copies removes these.
function followsCopiesOf(entry, advice) {
  const extras = entry.copies.slice(1);
  const other = advice.find((o) => o !== entry && extras.every((c) => c.pulledBy
    && o.copies.some((oc) => c.pulledBy.startsWith(`${oc.dir}/`) && !c.pulledBy.slice(oc.dir.length + 1).includes('node_modules/'))));
  return other || null;
}

/** What merges the copies: which fix fits depends on whether their versions can be one. */
function duplicateFix(name, list, versions) {
  const who = `npm ls ${name} shows who asks for each`;
  // The same version only when every copy's version was read and they agree.
  if (versions.length === 1 && versions[0] !== '?') {
    return `the same version installed ${list.length} times: npm dedupe, or where a dependent pins another version at the top, an "overrides" entry (${who})`;
  }
  if (versions.includes('?')) {
    return `npm ls ${name} shows the ${list.length} copies and who asks for each: npm dedupe merges those that can share a version; an "overrides" entry aligns a dependent that pins another`;
  }
  // No range of one semver line takes a version of another (^2.1 never takes 3.0): no dedupe merges them.
  const lines = [...new Set(versions.map(semverLine))];
  if (lines.length > 1) {
    const newest = lines.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
    const older = list.filter((c) => semverLine(c.version) !== newest && c.pulledBy).map(askedBy);
    const asking = older.length ? ` (first required by ${[...new Set(older)].join(', ')})` : '';
    return `versions ${lines.map((l) => `${l}.x`).join(' and ')}, which no dedupe merges: update what asks for the older${asking} to a release that takes ${newest}.x, or an "overrides" entry to ${newest}.x if it works with it (${who})`;
  }
  return `align the versions its dependents ask for (an "overrides" entry where a dependent pins one), then npm dedupe (${who})`;
}

// Who asks for a copy: the file that first required it and, for a copy nested in another
// package's folder, the app's own dependency that brought it (the one to update).
function askedBy(copy) {
  const parts = copy.dir.split('/');
  const first = parts.indexOf('node_modules');
  const nested = first !== -1 && parts.indexOf('node_modules', first + 1) !== -1;
  if (!nested) return copy.pulledBy;
  return `${copy.pulledBy}, in the app's dependency ${packageName(parts.slice(first + 1).join('/'))}`;
}

// The part of a version a caret range keeps: the major, or 0.minor (0.0.patch) below 1.0.0.
function semverLine(version) {
  const [major, minor, patch] = String(version).split(/[.+-]/).map(Number);
  if (major > 0 || !Number.isFinite(minor)) return String(major);
  return minor > 0 ? `0.${minor}` : `0.0.${patch}`;
}

function compareVersions(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0);
  return 0;
}

function versionOf(text) {
  if (!text) return null;
  try {
    const version = JSON.parse(text).version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}

module.exports = { duplicatePackages, copyDir };
