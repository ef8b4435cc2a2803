'use strict';
// coldstart check -- <command>: the CI gate. Runs the app to ready several times, compares the
// median with a budget and/or a saved baseline, prints what grew, exits 1 on a breach.
const fs = require('fs');
const path = require('path');
const { UsageError, CommandError } = require('../errors.js');
const { parseDuration, parseCount } = require('../options.js');
const { captureOptions, captureOptionsFromArgv, ensureWritableDir } = require('./profile.js');
const { readReport } = require('../report/read-report.js');

module.exports = {
  command: 'check [command..]',
  describe: 'CI gate: run the app n times to ready, compare the median with --budget / --max-modules / a baseline; exit 1 on a breach',
  builder: (yargs) => captureOptions(yargs)
    .option('runs', { alias: 'n', type: 'string', default: '5', describe: 'timed runs; their median time to ready is compared' })
    .option('budget', { type: 'string', describe: 'most time to ready allowed, e.g. 800ms or 1.5s' })
    .option('max-modules', { type: 'string', describe: 'most modules allowed at startup' })
    .option('baseline', { type: 'string', describe: 'saved baseline to compare with (default: .coldstart/baseline.json when it exists)' })
    .option('tolerance', { type: 'string', default: '10%', describe: 'allowed regression over the baseline: a percentage (10%) or a duration (25ms)' })
    .option('update-baseline', { type: 'boolean', default: false, describe: 'write this measurement as the baseline (the baseline is not enforced then)' })
    .example('$0 check -n 5 --budget 800ms --max-modules 1500 -- node server.js', '')
    .example('$0 check --update-baseline -- node server.js', 'record .coldstart/baseline.json')
    .example('$0 check --baseline .coldstart/baseline.json --tolerance 10% -- node server.js', ''),
  async run(argv, ctx) {
    const { parseTolerance, evaluateBudget } = require('../report/budget.js');
    const runs = parseCount(argv.runs, '--runs', 1);
    const budgetMs = argv.budget != null ? parseDuration(argv.budget, '--budget') : null;
    const maxModules = argv.maxModules != null ? parseCount(argv.maxModules, '--max-modules', 1) : null;
    const tolerance = parseTolerance(argv.tolerance);
    // The app's own output is not shown: the runs are measurements.
    const runOptions = { ...captureOptionsFromArgv(argv, ctx), stdout: undefined, stderr: undefined, profile: false };
    if (!argv.appCommand.length) throw new UsageError('missing app command: put it after --, e.g. coldstart check --budget 800ms -- node server.js');

    const baselineArg = argv.baseline || path.join(argv.out || '.coldstart', 'baseline.json');
    const baselineFile = path.resolve(ctx.cwd, baselineArg);
    let baseline = null;
    if (fs.existsSync(baselineFile)) {
      try {
        baseline = readReport(baselineFile, ctx.cwd);
      } catch (err) {
        if (!argv.updateBaseline) throw err; // a broken baseline is about to be replaced anyway
      }
    } else if (argv.baseline && !argv.updateBaseline) {
      throw new UsageError(`baseline not found: ${argv.baseline} (record one with coldstart check --update-baseline -- <app command>)`);
    }
    if (!argv.updateBaseline && budgetMs == null && maxModules == null && !baseline) {
      throw new UsageError(`nothing to check: give --budget, --max-modules or a baseline (none at ${baselineArg}; record one with --update-baseline)`);
    }
    if (argv.updateBaseline) ensureWritableDir(path.dirname(baselineFile));

    const measured = await measure({ argv, ctx, runOptions, runs });
    const verdict = evaluateBudget(
      { readyMs: measured.report.readyAt, modules: measured.report.modules.length },
      { budgetMs, maxModules, tolerance, baseline: baseline && !argv.updateBaseline ? { readyMs: baseline.readyAt } : null },
    );
    const { diffReports, renderDiff } = require('../report/diff.js');
    const diff = baseline ? diffReports(baseline, measured.report, { top: 5 }) : null;

    if (argv.updateBaseline) {
      const { writeFileAtomic } = require('../write-atomic.js');
      writeFileAtomic(baselineFile, JSON.stringify(measured.report, null, 2) + '\n');
    }

    const shownBaseline = path.relative(ctx.cwd, baselineFile) || baselineFile;
    if (argv.json) {
      ctx.stdout.write(JSON.stringify({
        ok: verdict.ok,
        command: measured.report.command,
        readyAt: measured.report.readyAt,
        samples: measured.report.check.samples,
        modules: measured.report.modules.length,
        files: measured.report.files,
        bytes: measured.report.bytes,
        checks: verdict.checks,
        baseline: baseline || argv.updateBaseline ? shownBaseline : null,
        baselineWritten: argv.updateBaseline,
        diff,
      }, null, 2) + '\n');
    } else if (!argv.quiet || !verdict.ok) {
      ctx.stdout.write(renderCheck({ measured, verdict, diff, ctx, shownBaseline, updated: argv.updateBaseline, renderDiff }));
    }
    return verdict.ok ? 0 : 1;
  },
};

/**
 * One run with module records (which also warms the disk cache), then `runs` timed runs with
 * nothing but the ready moment measured: their median is the figure compared.
 */
async function measure({ argv, ctx, runOptions: common, runs }) {
  const { capture } = require('../capture/capture.js');
  const { buildReport } = require('../analyze/startup-report.js');
  const { percentile } = require('../bench/stats.js');
  const { trapInterrupts } = require('../interrupt.js');
  const showProgress = ctx.stderr.isTTY && !argv.quiet;
  const progress = (text) => showProgress && ctx.stderr.write(`\r\u001b[2Kcoldstart check: ${text}`);
  const traps = trapInterrupts();
  let detail;
  const samples = [];
  try {
    progress('loading modules…');
    detail = await capture({ ...common, signal: traps.signal, force: traps.force });
    if (detail.partial) throw new CommandError('interrupted', { exitCode: 130 });
    for (let i = 0; i < runs; i++) {
      progress(`run ${i + 1}/${runs}…`);
      if (traps.interrupted()) throw new CommandError('interrupted', { exitCode: 130 });
      const timed = await capture({ ...common, timingOnly: true, signal: traps.signal, force: traps.force });
      if (timed.partial || !Number.isFinite(timed.readyAt)) throw new CommandError('interrupted', { exitCode: 130 });
      samples.push(timed.readyAt);
    }
  } finally {
    traps.dispose();
    if (showProgress) ctx.stderr.write('\r\u001b[2K');
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (n) => Math.round(n * 100) / 100;
  const report = {
    ...buildReport(detail),
    // The compared figure: median of the timed runs (module records come from the first run).
    readyAt: round(percentile(sorted, 50)),
    check: { runs, samples: samples.map(round), detailReadyAt: round(detail.readyAt) },
  };
  return { report, sorted };
}

function renderCheck({ measured, verdict, diff, ctx, shownBaseline, updated, renderDiff }) {
  const { ms, size, palette, count } = require('../report/terminal.js');
  const { bold, red, green } = palette(ctx.color);
  const { report, sorted } = measured;
  const spread = sorted.length > 1 ? ` (${ms(sorted[0])} to ${ms(sorted[sorted.length - 1])})` : '';
  const lines = [
    `${bold('coldstart check')}: ${report.command.join(' ')}`,
    `  time to ready: median ${bold(ms(report.readyAt))} of ${count(sorted.length, 'run')}${spread}`,
    `  ${count(report.modules.length, 'module')}, ${count(report.packages.length, 'package')}, ${count(report.files, 'file')}, ${size(report.bytes)} read`,
    '',
  ];
  for (const c of verdict.checks) lines.push(`  ${c.ok ? green('pass') : red('FAIL')}  ${c.message}`);
  if (!verdict.checks.length) lines.push('  (no limits checked)');
  if (diff) {
    lines.push('', renderDiff(diff, { color: ctx.color, title: bold(`Against the baseline ${shownBaseline}`) }).trimEnd());
  }
  lines.push('');
  if (updated) lines.push(`Baseline written: ${shownBaseline}`);
  const failed = verdict.checks.filter((c) => !c.ok).length;
  lines.push(verdict.ok
    ? green(`coldstart check: passed${verdict.checks.length ? ` (${count(verdict.checks.length, 'check')})` : ''}`)
    : red(`coldstart check: FAILED (${failed} of ${count(verdict.checks.length, 'check')})`));
  return lines.join('\n') + '\n';
}

