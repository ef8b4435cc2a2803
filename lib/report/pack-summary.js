'use strict';
// What `coldstart pack` prints: the archive, its code cache, the check that it starts the app, the
// snapshot and what it left out. Pure: pack's summary in, text out.
const { size, ms } = require('./terminal-format.js');

function renderPackSummary(s) {
  const pct = s.tree.bytes ? ` (${((100 * s.bytes) / s.tree.bytes).toFixed(1)}% of ${s.tree.files} files, ${size(s.tree.bytes)} under the root)` : '';
  const lines = [`coldstart: packed ${s.files} files, ${size(s.bytes)}${pct} into ${s.archive} (${size(s.archiveBytes)}) in ${ms(s.ms)}`];
  if (s.codeCache) {
    const how = s.codeCache.made === 'run' ? 'recorded at the ready moment' : 'compiled without running';
    const { modules, esModules } = s.codeCache;
    const kinds = esModules ? [modules && `${modules} CommonJS modules`, `${esModules} ES modules (Node's compile cache: their top-level code)`].filter(Boolean).join(' and ')
      : `${modules} modules`;
    lines.push(`  code cache: ${kinds}, ${size(s.codeCache.bytes)}, ${how}`);
  }
  if (s.check) lines.push(`  checked: its files alone, in an empty directory, started the app (ready at ${ms(s.check.readyAt)})`);
  if (s.snapshot && s.snapshot.file) {
    lines.push(`  snapshot: ${s.snapshot.modules} modules evaluated, ${size(s.snapshot.bytes)} in ${s.snapshot.file}: start the app with node --snapshot-blob ${s.snapshot.file} <entry>`);
    const { leftOut } = s.snapshot;
    // The modules that could not be evaluated ahead, by their own reason (not those that load them).
    const causes = leftOut.filter((m) => !/, which loads at start$/.test(m.reason));
    if (leftOut.length) lines.push(`    ${leftOut.length} module${leftOut.length === 1 ? '' : 's'} load at start instead, because ${causes.slice(0, 3).map((m) => `${m.file} ${m.reason}`).join('; ')}${causes.length > 3 ? `; and ${causes.length - 3} more (--json lists all)` : ''}`);
  }
  if (s.outsideRoot.length) {
    lines.push(`  not packed, outside the root ${s.root}:`);
    for (const f of s.outsideRoot.slice(0, 10)) lines.push(`    ${f}`);
    if (s.outsideRoot.length > 10) lines.push(`    … ${s.outsideRoot.length - 10} more (--json lists all)`);
  }
  if (s.missing.length) lines.push(`  listed but missing: ${s.missing.length} (e.g. ${s.missing[0]})`);
  return lines.join('\n') + '\n';
}

module.exports = { renderPackSummary };
