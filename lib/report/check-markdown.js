'use strict';
// check's verdict in Markdown, as a pull request or a CI job summary shows it (under GitHub Actions
// check appends it to $GITHUB_STEP_SUMMARY): the result first, the time to ready with its interval,
// each check, and what grew against the baseline.
const { medianInterval, formatSignedMs } = require('../stats.js');
const { formatMs, count } = require('./terminal-format.js');

const MARK = { pass: '✅ pass', fail: '❌ **FAIL**', inconclusive: '⚠️ inconclusive' };

/** A table cell: pipes and line breaks would end the cell. */
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text) => `\`${String(text).replace(/`/g, "'")}\``;

const msCell = (n) => (n == null ? '–' : `${formatMs(n)} ms`);

function intervalCell(mi) {
  return mi.low == null ? '–' : `${formatMs(mi.low)}–${formatMs(mi.high)} ms (${Math.floor(mi.confidence * 100)}%)`;
}

/**
 * @param {{report: object, verdict: {checks: {name: string, verdict: string, message: string}[]},
 *   ok: boolean, diff: ?object, shownBaseline: string, updated: boolean}} input
 * @returns {string} GitHub-flavoured markdown
 */
function renderCheckMarkdown({ report, verdict, ok, diff, shownBaseline, updated }) {
  const failed = verdict.checks.filter((c) => c.verdict === 'fail').length;
  const inconclusive = verdict.checks.filter((c) => c.verdict === 'inconclusive').length;
  const outcome = failed ? `❌ FAILED (${failed} of ${verdict.checks.length})`
    : !ok ? `⚠️ inconclusive (${inconclusive} of ${verdict.checks.length}): the runs cannot decide` : '✅ passed';
  const check = report.check || {};
  const app = medianInterval(check.samples || [report.readyAt]);
  const lines = [
    `## coldstart check: ${outcome}`,
    '',
    `${code(report.command.join(' '))}: ${count(report.modules.length, 'module')}, ${count(report.packages.length, 'package')}, ${count(report.files, 'file')} at startup`,
    '',
    '| | median | interval | runs |',
    '|---|---:|---:|---:|',
    `| time to ready | **${formatMs(app.median)} ms** | ${intervalCell(app)} | ${app.n} |`,
  ];
  if (Array.isArray(check.control) && check.control.length) {
    const control = medianInterval(check.control);
    lines.push(`| control app (run alternately) | ${formatMs(control.median)} ms | ${intervalCell(control)} | ${control.n} |`);
  }
  lines.push('');
  for (const c of verdict.checks) lines.push(`- ${MARK[c.verdict] || c.verdict} ${c.message}`);
  if (!verdict.checks.length) lines.push('- no limits checked');
  if (updated) lines.push('', `Baseline written: ${code(shownBaseline)}`);
  if (diff) lines.push('', ...grew(diff, shownBaseline));
  return lines.join('\n') + '\n';
}

/** What moved against the baseline, beyond noise. */
function grew(diff, shownBaseline) {
  const lines = [`### Against the baseline ${code(shownBaseline)}`, ''];
  const added = diff.packagesAdded || [];
  const movers = [
    ...(diff.packageMovers || []).map((p) => ({ ...p, what: `package ${code(p.name)}` })),
    ...(diff.moduleMovers || []).map((m) => ({ ...m, what: code(m.file) })),
  ];
  if (!movers.length && !added.length) return [...lines, 'Nothing moved beyond noise.'];
  if (added.length) {
    lines.push(`New at startup: ${added.map((p) => `${code(p.name)} (${count(p.modules, 'module')}, ${formatMs(p.loadMs)} ms)`).join(', ')}`, '');
  }
  if (movers.length) {
    lines.push('| what grew or shrank | before | after | change |', '|---|---:|---:|---:|');
    for (const m of movers) {
      const status = m.status === 'added' ? ' (new)' : m.status === 'removed' ? ' (gone)' : '';
      lines.push(`| ${cell(m.what + status)} | ${msCell(m.before)} | ${msCell(m.after)} | ${formatSignedMs(m.delta)} ms |`);
    }
  }
  return lines;
}

module.exports = { renderCheckMarkdown };
