'use strict';
// What `coldstart check` prints: the verdict in the terminal, and the JSON document of --json
// (also what lib/index.js's check() resolves to). Pure: a checkApp result in, text or an object out.
const { medianInterval, formatMedianInterval, median } = require('../stats.js');
const { size, palette, count, formatMs } = require('./terminal-format.js');

/** The exit code of a check the runs could not decide. */
const INCONCLUSIVE_EXIT = 3;

/**
 * The --json document.
 * @param {{ ok: boolean, report: object, verdict: object, warnings: object[], diff: ?object, lessCpuWait: boolean }} result check-app.js checkApp's
 * @param {{ baseline: ?string, baselineCommand: ?string, baselineWritten: boolean }} shown the baseline as the user named it
 */
function checkJson({ ok, report, verdict, warnings, diff, lessCpuWait }, shown) {
  return {
    ok,
    verdict: verdict.ok ? (verdict.inconclusive ? 'inconclusive' : 'pass') : 'fail',
    command: report.command,
    readyAt: report.readyAt,
    readyAtInterval: medianInterval(report.check.samples),
    samples: report.check.samples,
    // What each run waited for a CPU; lessCpuWait: the verdicts judged the times less it.
    runQueue: report.check.runQueue,
    lessCpuWait,
    control: report.check.control && { command: report.check.controlCommand, ...medianInterval(report.check.control), samples: report.check.control },
    runs: report.check.runs,
    modules: report.modules.length,
    files: report.files,
    bytes: report.bytes,
    checks: verdict.checks,
    warnings,
    baseline: shown.baseline,
    baselineCommand: shown.baselineCommand,
    baselineWritten: shown.baselineWritten,
    diff,
  };
}

/**
 * The verdict in the terminal.
 * @param {{ ok: boolean, report: object, verdict: object, diff: ?object, compared: ?object, lessCpuWait: boolean }} result
 * @param {{ color?: boolean, shownBaseline: string, updated: boolean }} how
 */
function renderCheckText({ ok, report, verdict, diff, compared, lessCpuWait }, { color, shownBaseline, updated }) {
  const { renderDiff } = require('./diff.js');
  const { bold, red, green, yellow, dim } = palette(color);
  const check = report.check;
  const mi = medianInterval(check.samples);
  const coverage = mi.low == null ? '' : ` (${Math.floor(mi.confidence * 100)}% interval, order statistics)`;
  const lines = [
    `${bold('coldstart check')}: ${report.command.join(' ')}`,
    `  time to ready: median ${bold(formatMedianInterval(mi))}${coverage} of ${count(mi.n, 'run')}`,
  ];
  const waited = lessCpuWait ? median(check.runQueue) : 0;
  if (waited >= 1) lines.push(`  of which waiting for a CPU (a busy machine): median ${formatMs(waited)} ms a run; the verdicts judge the time less it`);
  if (check.control) {
    const control = medianInterval(check.control);
    const before = compared && compared.check && Array.isArray(compared.check.control) && compared.check.control.length
      ? `; in the baseline ${formatMs(median(compared.check.control))} ms` : '';
    lines.push(dim(`  control app (a dozen modules and an http server, run alternately): median ${formatMedianInterval(control)}${before}`));
  }
  lines.push(
    `  ${count(report.modules.length, 'module')}, ${count(report.packages.length, 'package')}, ${count(report.files, 'file')}, ${size(report.bytes)} read`,
    '',
  );
  const mark = { pass: green('pass'), fail: red('FAIL'), inconclusive: yellow('inconclusive') };
  for (const c of verdict.checks) lines.push(`  ${mark[c.verdict]}  ${c.message}`);
  if (!verdict.checks.length) lines.push('  (no limits checked)');
  if (diff) lines.push('', renderDiff(diff, { color, readyVerdict: false, title: bold(`Against the baseline ${shownBaseline}`) }).trimEnd());
  lines.push('');
  if (updated) lines.push(`Baseline written: ${shownBaseline}`);
  const failed = verdict.checks.filter((c) => c.verdict === 'fail').length;
  const inconclusive = verdict.checks.filter((c) => c.verdict === 'inconclusive').length;
  const checks = count(verdict.checks.length, 'check');
  if (failed) {
    lines.push(red(`coldstart check: FAILED (${failed} of ${checks}${inconclusive ? `, ${inconclusive} inconclusive` : ''})`));
  } else if (!ok) {
    lines.push(yellow(`coldstart check: inconclusive (${inconclusive} of ${checks}): the runs cannot decide; exit ${INCONCLUSIVE_EXIT}, or 1 with --strict`));
  } else {
    lines.push(green(`coldstart check: passed${verdict.checks.length ? ` (${checks})` : ''}`));
  }
  return lines.join('\n') + '\n';
}

module.exports = { checkJson, renderCheckText, INCONCLUSIVE_EXIT };
