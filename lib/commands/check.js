'use strict';
// coldstart check -- <command>: the CI gate. Runs the app to ready n times, alternated with the
// machine's floor (a bare Node that listens), judges the median's interval against a budget and the
// shift from a saved baseline against a tolerance, names what grew, exits 1 on a breach.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');
const { parseDuration, parseCount, captureOptions, captureOptionsFromArgv } = require('../options.js');
const { ensureWritableDir } = require('../output-target.js');
const { readReport } = require('../report/read-report.js');
const { shellWord, splitShellWords } = require('../shell-words.js');
const { baselineRuns, diffWithBaseline } = require('../check/baseline-runs.js');
const { warning } = require('../warnings.js');

// Profiled runs with coverage for --max-advice-ms: enough to see a finding move with the machine.
const ADVICE_RUNS = 3;

module.exports = {
  command: 'check [command..]',
  describe: 'CI gate: run the app n times to ready, judge the median and its interval against --budget / --max-modules / a baseline; exit 1 on a breach',
  builder: (yargs) => captureOptions(yargs)
    .option('runs', { alias: 'n', type: 'string', default: '6', describe: 'timed runs (each paired with a run of a bare Node that listens, the machine\'s floor)' })
    .option('budget', { type: 'string', describe: 'most time to ready allowed, e.g. 800ms or 1.5s' })
    .option('max-modules', { type: 'string', describe: 'most modules allowed at startup' })
    .option('max-advice-ms', { type: 'string', describe: 'most avoidable startup time allowed: the advice of coldstart profile (lazy-load candidates, sync work, duplicate packages) added up, from 3 more runs under the profiler with coverage, e.g. 50ms' })
    .option('baseline', { type: 'string', describe: 'saved baseline to compare with (default: .coldstart/baseline.json when it exists)' })
    .option('tolerance', { type: 'string', describe: 'allowed regression over the baseline: a percentage of its median (10%) or a duration (25ms); default 10%, at least 10 ms' })
    .option('update-baseline', { type: 'boolean', default: false, describe: 'write this measurement as the baseline (the baseline is not enforced then)' })
    .option('format', { type: 'string', choices: ['text', 'markdown', 'json'], default: 'text', describe: 'how the result is printed: markdown for a pull request or $GITHUB_STEP_SUMMARY; json as --json' })
    .option('baseline-cmd', { type: 'string', describe: 'start command of the baseline revision, run alternately with the app and compared run against run (no saved baseline), e.g. "node ../main/server.js"' })
    .example('$0 check -n 10 --budget 800ms --max-modules 1500 -- node server.js', '')
    .example('# record .coldstart/baseline.json', '').example('$0 check -n 10 --update-baseline -- node server.js', '')
    .example('# an undecided result fails too', '').example('$0 check --baseline ci/startup-baseline.json --tolerance 10% --strict -- node server.js', '')
    .example('# against the main branch checked out in ../main', '').example('$0 check -n 10 --baseline-cmd "node ../main/server.js" -- node server.js', '')
    .example('# the verdict as a CI job summary', '').example('$0 check -n 10 --format markdown -- node server.js >> "$GITHUB_STEP_SUMMARY"', ''),
  async run(argv, ctx) {
    const { parseTolerance, evaluateBudget } = require('../report/budget.js');
    const runs = parseCount(argv.runs, '--runs', 1);
    const budgetMs = argv.budget != null ? parseDuration(argv.budget, '--budget') : null;
    const maxModules = argv.maxModules != null ? parseCount(argv.maxModules, '--max-modules', 1) : null;
    const maxAdviceMs = argv.maxAdviceMs != null ? parseDuration(argv.maxAdviceMs, '--max-advice-ms') : null;
    const tolerance = parseTolerance(argv.tolerance);
    if (argv.json && argv.format === 'markdown') throw new UsageError('give --json or --format markdown, not both');
    const format = argv.json ? 'json' : argv.format;
    // The app's own output is not shown: the runs are measurements.
    const runOptions = { ...captureOptionsFromArgv(argv, ctx), stdout: undefined, stderr: undefined, profile: false };
    if (!argv.appCommand.length) throw new UsageError('missing app command: put it after --, e.g. coldstart check --budget 800ms -- node server.js');

    const baselineCommand = parseBaselineCommand(argv, ctx.cwd);
    const baselineArg = argv.baseline || path.join(argv.out || '.coldstart', 'baseline.json');
    const baselineFile = path.resolve(ctx.cwd, baselineArg);
    let baseline = null;
    if (baselineCommand) {
      // The baseline is measured here, run for run with the app.
    } else if (fs.existsSync(baselineFile)) {
      try {
        baseline = readReport(baselineArg, ctx.cwd);
      } catch (err) {
        if (!argv.updateBaseline) throw err; // a broken baseline is about to be replaced anyway
      }
    } else if (argv.baseline && !argv.updateBaseline) {
      throw new UsageError(`baseline not found: ${argv.baseline} (record one with coldstart check --update-baseline -- <app command>)`);
    }
    if (!argv.updateBaseline && !baselineCommand && budgetMs == null && maxModules == null && maxAdviceMs == null && !baseline) {
      throw new UsageError(`nothing to check: give --budget, --max-modules, --max-advice-ms or a baseline (none at ${baselineArg}; record one with --update-baseline)`);
    }
    if (argv.updateBaseline) ensureWritableDir(path.dirname(baselineFile));

    const { measureRuns } = require('../check/measure-runs.js');
    const showProgress = ctx.stderr.isTTY && !argv.quiet;
    let measured;
    try {
      measured = await measureRuns({
        runOptions, runs, baselineCommand, adviceRuns: maxAdviceMs != null ? ADVICE_RUNS : 0,
        onProgress: showProgress ? (text) => ctx.stderr.write(`\r\u001b[2Kcoldstart check: ${text}`) : undefined,
      });
    } finally {
      if (showProgress) ctx.stderr.write('\r\u001b[2K');
    }
    const { report } = measured;
    if (baselineCommand) baseline = measured.baseline;
    const compared = baseline && !argv.updateBaseline ? baseline : null;
    const verdict = evaluateBudget(
      { samples: report.check.samples, control: report.check.control, modules: report.modules.length, advice: report.adviceCheck },
      { budgetMs, maxModules, maxAdviceMs, tolerance, baseline: compared && { ...baselineRuns(compared), alternated: Boolean(baselineCommand) } },
    );
    // An interval too wide to decide is a warning: it passes, and --strict makes it fail.
    const warnings = verdict.checks.filter((c) => c.verdict === 'undecided')
      .map((c) => warning('CHECK_UNDECIDED', c.message, { check: c.name }));
    ctx.warnings.push(...warnings);
    const ok = verdict.ok && !(argv.strict && warnings.length);
    const against = baseline ? diffWithBaseline(baseline, report) : null;
    const diff = against && against.diff;

    if (argv.updateBaseline) {
      const { writeFileAtomic } = require('../write-atomic.js');
      writeFileAtomic(baselineFile, JSON.stringify(report, null, 2) + '\n');
    }

    const shownBaseline = baselineCommand ? `--baseline-cmd ${shellWord(argv.baselineCmd)}` : path.relative(ctx.cwd, baselineFile) || baselineFile;
    if (format === 'json') {
      const { medianInterval } = require('../stats.js');
      ctx.stdout.write(JSON.stringify({
        ok,
        undecided: verdict.undecided,
        command: report.command,
        readyAt: report.readyAt,
        readyAtInterval: medianInterval(report.check.samples),
        samples: report.check.samples,
        control: report.check.control && { command: report.check.controlCommand, ...medianInterval(report.check.control), samples: report.check.control },
        modules: report.modules.length,
        files: report.files,
        bytes: report.bytes,
        checks: verdict.checks,
        warnings,
        baseline: (baseline && !baselineCommand) || argv.updateBaseline ? shownBaseline : null,
        baselineCommand: baselineCommand ? argv.baselineCmd : null,
        baselineWritten: argv.updateBaseline,
        diff,
        diffScale: against && against.scale,
      }, null, 2) + '\n');
    } else if (format === 'markdown') {
      const { renderCheckMarkdown } = require('../check/markdown-summary.js');
      ctx.stdout.write(renderCheckMarkdown({ report, verdict, ok, against, shownBaseline, updated: argv.updateBaseline }));
    } else if (!argv.quiet || !ok) {
      ctx.stdout.write(renderCheck({ report, verdict, ok, against, ctx, shownBaseline, baseline: compared, updated: argv.updateBaseline }));
    }
    return verdict.ok ? 0 : 1;
  },
};

/**
 * --baseline-cmd: the baseline revision's start command, one line split into words as a shell
 * would (it is started directly, as the app is, so both start alike).
 * @returns {?string[]} null without --baseline-cmd
 */
function parseBaselineCommand(argv, cwd) {
  if (argv.baselineCmd == null) return null;
  const line = String(argv.baselineCmd);
  let words;
  try {
    words = splitShellWords(line);
  } catch (err) {
    throw new UsageError(`invalid --baseline-cmd ${JSON.stringify(line)}: ${err.message}; give a start command such as "node ../main/server.js" (a script for anything more)`);
  }
  if (!words.length) throw new UsageError('invalid --baseline-cmd "": give the start command of the baseline revision, e.g. --baseline-cmd "node ../main/server.js"');
  if (argv.updateBaseline) throw new UsageError('--baseline-cmd runs the baseline here and now: there is no baseline to --update-baseline');
  if (argv.baseline) throw new UsageError('give --baseline (a saved baseline) or --baseline-cmd (a command to run alongside), not both');
  return require('../capture/command-check.js').checkCommand(words, cwd);
}

function renderCheck({ report, verdict, ok, against, ctx, shownBaseline, baseline, updated }) {
  const { size, palette, count } = require('../report/terminal.js');
  const { renderDiff } = require('../report/diff.js');
  const { medianInterval, formatMedianInterval, median, formatMs } = require('../stats.js');
  const { bold, red, green, yellow, dim } = palette(ctx.color);
  const check = report.check;
  const mi = medianInterval(check.samples);
  const coverage = mi.low == null ? '' : ` (${Math.floor(mi.confidence * 100)}% interval, order statistics)`;
  const lines = [
    `${bold('coldstart check')}: ${report.command.join(' ')}`,
    `  time to ready: median ${bold(formatMedianInterval(mi))}${coverage} of ${count(mi.n, 'run')}`,
  ];
  if (check.control) {
    const floor = medianInterval(check.control);
    const before = baseline && baseline.check && Array.isArray(baseline.check.control) && baseline.check.control.length
      ? `; the baseline's ${formatMs(median(baseline.check.control))} ms` : '';
    lines.push(dim(`  machine floor (a bare Node that listens, run alternately): median ${formatMedianInterval(floor)}${before}`));
  }
  lines.push(
    `  ${count(report.modules.length, 'module')}, ${count(report.packages.length, 'package')}, ${count(report.files, 'file')}, ${size(report.bytes)} read`,
    '',
  );
  const mark = { pass: green('pass'), fail: red('FAIL'), undecided: yellow('undecided') };
  for (const c of verdict.checks) lines.push(`  ${mark[c.verdict]}  ${c.message}`);
  if (!verdict.checks.length) lines.push('  (no limits checked)');
  if (against) {
    lines.push('', renderDiff(against.diff, { color: ctx.color, title: bold(`Against the baseline ${shownBaseline}`) }).trimEnd());
    if (against.scale != null) lines.push(dim(`Times of this run are shown at the baseline's machine floor (× ${against.scale.toFixed(2)}).`));
  }
  lines.push('');
  if (updated) lines.push(`Baseline written: ${shownBaseline}`);
  const failed = verdict.checks.filter((c) => c.verdict === 'fail').length;
  const undecided = verdict.checks.filter((c) => c.verdict === 'undecided').length;
  const checks = count(verdict.checks.length, 'check');
  if (failed) {
    lines.push(red(`coldstart check: FAILED (${failed} of ${checks}${undecided ? `, ${undecided} undecided` : ''})`));
  } else if (!ok) {
    // --strict: the failure itself is the one `coldstart: --strict:` line lib/cli.js prints, as in every command.
    lines.push(yellow(`coldstart check: ${undecided} of ${checks} undecided`));
  } else if (undecided) {
    lines.push(yellow(`coldstart check: passed, ${undecided} of ${checks} undecided (--strict fails on that)`));
  } else {
    lines.push(green(`coldstart check: passed${verdict.checks.length ? ` (${checks})` : ''}`));
  }
  return lines.join('\n') + '\n';
}
