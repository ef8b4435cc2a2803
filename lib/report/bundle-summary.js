'use strict';
// The terminal summary of `coldstart bundle` (lib/bundle/bundle-app.js): what was bundled, what was
// kept external and why, the verification's times and answers, and the command to start it.
const path = require('node:path');
const { size, palette } = require('./terminal-format.js');
const { formatMedianInterval, formatComparison, ENOUGH_RUNS } = require('../stats.js');
const { shellWord } = require('../shell-words.js');

/**
 * @param {object} s what lib/bundle/bundle-app.js bundleApp resolves to
 * @param {{cwd: string, color?: boolean, asked?: string}} options paths are shown relative to cwd;
 *   asked: the verification's requests and their answers in a line (same-answers.js describeAnswers)
 * @returns {string}
 */
function renderBundleSummary(s, { cwd, color = false, asked = '' }) {
  const { bold, dim } = palette(color);
  const lines = [];
  const rel = path.relative(cwd, s.out) || '.';
  lines.push(`${bold('coldstart')}: bundled into ${rel.startsWith('..') ? s.out : rel}: ${size(s.bundle.bundleBytes)} bundle, ` +
    `${s.nodeModules} package${s.nodeModules === 1 ? '' : 's'} in node_modules, ${s.bundle.size.files} files, ${size(s.bundle.size.bytes)}`);
  if (s.externals.length) {
    lines.push('', bold('Kept external'));
    for (const e of s.externals) {
      lines.push(`  ${e.name}`);
      for (const r of e.reasons) lines.push(dim(`    ${r.detail}`));
    }
  } else {
    lines.push('', 'Nothing kept external: everything the entry loads is inside the bundle.');
  }
  if (s.hookedBuiltins.length) {
    lines.push(dim(`  hooked built-ins (never bundled): ${s.hookedBuiltins.map((b) => `${b.name} by ${b.by}`).join('; ')}`));
  }
  if (s.preloadPackages.length) {
    lines.push(dim(`  for the preload only: ${s.preloadPackages.length} package${s.preloadPackages.length === 1 ? '' : 's'} (${s.preloadPackages.slice(0, 4).join(', ')}${s.preloadPackages.length > 4 ? ', …' : ''})`));
  }
  if (s.timing) {
    const t = s.timing;
    const cmp = t.comparison;
    const coverage = Math.floor(100 * Math.min(cmp.before.confidence, cmp.after.confidence));
    const what = cmp.before.low === null ? 'median' : `median [${coverage}% interval]`;
    lines.push('', bold('Verified') + dim(` (${what} of ${t.runs} start${t.runs === 1 ? '' : 's'} each, original and bundle alternated, no profiler)`));
    lines.push(`  ready after      ${formatMedianInterval(cmp.before).padStart(10)} original   ${formatMedianInterval(cmp.after).padStart(10)} bundle`);
    const verdict = formatComparison(cmp);
    lines.push(`  bundle           ${cmp.verdict === 'too few runs' ? `${verdict}: use --runs ${ENOUGH_RUNS} or more` : verdict}`);
    if (s.answers) {
      const { statusOnly } = s.answers;
      lines.push(`  answers          as the app's: ${asked}${statusOnly.length ? dim(` (status only for ${statusOnly.join(', ')}: the app's own body differs between starts)`) : ' (status and body)'}`);
    }
    lines.push(`  files read       ${String(s.original.files).padStart(10)} original   ${String(s.bundle.files).padStart(10)} bundle`);
    lines.push(`  bytes read       ${size(s.original.bytes).padStart(10)} original   ${size(s.bundle.bytes).padStart(10)} bundle`);
    lines.push(`  on disk          ${size(s.original.size.bytes).padStart(10)} original   ${size(s.bundle.size.bytes).padStart(10)} bundle`);
  }
  lines.push('', bold('Start it'), `  cd ${rel.startsWith('..') ? s.out : rel} && ${s.start.command.map(shellWord).join(' ')}`);
  return lines.join('\n') + '\n';
}

module.exports = { renderBundleSummary };
