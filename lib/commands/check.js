'use strict';
// coldstart check -- <command>: the CI gate. Runs the app to ready n times, alternated with a
// control app (or the baseline command), judges the median's interval against a budget and the
// shift from a saved baseline against a tolerance, names what grew. Exit 0 pass, 1 a breach,
// 3 inconclusive (the runs cannot decide; --strict makes that 1).
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');
const { captureOptions, captureOptionsFromArgv, parseRuns, parseBudget, parseTolerance } = require('../options.js');
const { ensureWritableDir } = require('../output-target.js');
const { readReport } = require('../report/read-report.js');
const { shellWord, splitShellWords } = require('../shell-words.js');
const { warning, showWarnings } = require('../warnings.js');

module.exports = {
  command: 'check [app..]',
  describe: 'CI gate: run the app n times to ready, judge the median and its interval against --budget (time, modules, avoidable work) / a baseline; exit 1 on a breach, 3 when the runs cannot decide',
  builder: (yargs) => captureOptions(yargs)
    .option('runs', { alias: 'n', type: 'string', default: '6', describe: 'timed runs, each followed by a run of a small control app (or of --baseline-cmd): N, going on while the runs cannot decide and more would help, looking at 1.5 times the runs each time, up to 3 times N; N..M: up to M; N..N: exactly N' })
    .option('budget', { type: 'string', array: true, nargs: 1, requiresArg: true, describe: 'limits (repeat, or a,b): 800ms or ready=800ms, the most time to ready; modules=1500, the most modules at startup; advice=50ms, the most avoidable startup time: the advice of coldstart profile (lazy-load candidates, sync work, duplicate packages) added up, from 3 more runs under the profiler with coverage; rss=256MiB and heap=128MiB, the most resident memory and JavaScript heap at the ready moment' })
    .option('baseline', { type: 'string', describe: 'saved baseline to compare with (default: .coldstart/baseline.json when it exists)' })
    .option('tolerance', { type: 'string', describe: 'allowed regression over the baseline: a percentage of its median (10%) or a duration (25ms); default 10%, at least 10 ms. Also the smallest change that matters: a baseline check whose interval is too wide to see one of this size is inconclusive' })
    .option('update-baseline', { type: 'boolean', default: false, describe: 'write this measurement as the baseline (the baseline is not enforced then)' })
    .option('baseline-cmd', { type: 'string', describe: 'start command of the baseline revision, run alternately with the app and compared run against run (no saved baseline), e.g. "node ../main/server.js"' })
    .example('$0 check -n 10 --budget 800ms,modules=1500 -- node server.js', '')
    .example('# record .coldstart/baseline.json', '').example('$0 check -n 10 --update-baseline -- node server.js', '')
    .example('# an inconclusive result fails too (exit 1, not 3)', '').example('$0 check --baseline ci/startup-baseline.json --tolerance 10% --strict -- node server.js', '')
    .example('# against the main branch checked out in ../main', '').example('$0 check -n 10 --baseline-cmd "node ../main/server.js" -- node server.js', '')
    .example('# 10 runs, up to 30 while undecided; under GitHub Actions the verdict also goes to $GITHUB_STEP_SUMMARY', '').example('$0 check -n 10..30 --budget 800ms -- node server.js', ''),
  async run(argv, ctx) {
    const { runOptions, runs, maxRuns, limits, format, baselineCommand, baselineFile, baseline } = checkFlags(argv, ctx);
    // On a terminal only: in a CI log one line per run says nothing the result does not.
    const progress = require('../report/terminal-format.js').progress({ stream: ctx.stderr, quiet: argv.quiet || format !== 'text' || !ctx.stderr.isTTY, env: ctx.env });
    const result = await require('../check/check-app.js').checkApp({
      runOptions, runs, maxRuns, baseline, baselineCommand, updateBaseline: argv.updateBaseline, limits, onProgress: progress.phase,
    }).finally(progress.done);
    ctx.warnings.push(...result.warnings);
    if (argv.updateBaseline) require('../write-atomic.js').writeFileAtomic(baselineFile, JSON.stringify(result.report, null, 2) + '\n');
    printCheck(result, argv, ctx, { format, baselineFile, baseline, baselineCommand });
    // Under --strict the inconclusive check is the one `coldstart: --strict:` line lib/cli.js
    // prints for every command's warnings, and its exit 1: the command itself then ends with 0.
    if (!result.verdict.ok) return 1;
    return result.verdict.inconclusive && !argv.strict ? require('../report/check-summary.js').INCONCLUSIVE_EXIT : 0;
  },
};

/** The flags checked before the app runs (one line and exit 2 for a bad one), and the saved baseline read. */
function checkFlags(argv, ctx) {
  const { runs, maxRuns } = parseRuns(argv);
  const budget = parseBudget(argv);
  const limits = { ...budget, tolerance: parseTolerance(argv.tolerance), minEffectMs: argv.minEffectMs };
  // verdictMarkdown: the verdict as Markdown on stdout (lib/deprecated-flags.js).
  const format = argv.json ? 'json' : argv.verdictMarkdown ? 'markdown' : 'text';
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
  if (!argv.updateBaseline && !baselineCommand && Object.values(budget).every((limit) => limit == null) && !baseline) {
    throw new UsageError(`nothing to check: give --budget (e.g. 800ms,modules=1500,advice=50ms,rss=256MiB) or a baseline (none at ${baselineArg}; record one with --update-baseline)`);
  }
  if (argv.updateBaseline) ensureWritableDir(path.dirname(baselineFile));
  return { runOptions, runs, maxRuns, limits, format, baselineCommand, baselineFile, baseline };
}

/** The result as --json, markdown or the terminal summary; under GitHub Actions also to the job summary. */
function printCheck(result, argv, ctx, { format, baselineFile, baseline, baselineCommand }) {
  // The baseline as the user named it (the default one relative to here).
  const shownBaseline = baselineCommand ? `--baseline-cmd ${shellWord(argv.baselineCmd)}` : argv.baseline || path.relative(ctx.cwd, baselineFile) || baselineFile;
  const summary = require('../report/check-summary.js');
  const markdown = () => require('../report/check-markdown.js').renderCheckMarkdown({ ...result, shownBaseline, updated: argv.updateBaseline });
  if (format === 'json') {
    const shown = {
      baseline: (baseline && !baselineCommand) || argv.updateBaseline ? shownBaseline : null,
      baselineCommand: baselineCommand ? argv.baselineCmd : null,
      baselineWritten: argv.updateBaseline,
    };
    ctx.stdout.write(JSON.stringify(summary.checkJson(result, shown), null, 2) + '\n');
  } else if (format === 'markdown') {
    ctx.stdout.write(markdown());
  } else if (!argv.quiet || !result.ok) {
    ctx.stdout.write(summary.renderCheckText(result, { color: ctx.color, shownBaseline, updated: argv.updateBaseline }));
  }
  // Under GitHub Actions the verdict goes to the job summary too, whatever stdout has (a Markdown
  // verdict on stdout is there already, for a `>> "$GITHUB_STEP_SUMMARY"` of its own).
  if (format !== 'markdown') appendStepSummary(ctx, argv, markdown);
}

/**
 * Appends the Markdown verdict to $GITHUB_STEP_SUMMARY (a file GitHub Actions shows as the job's
 * summary) when it is set. A summary that cannot be written is one warning line, never a failed check.
 */
function appendStepSummary(ctx, argv, markdown) {
  const file = ctx.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    require('../regular-file.js').appendRegularFile(path.resolve(ctx.cwd, file), markdown()); // a FIFO never blocks the check
  } catch (err) {
    // Shown here, not a warning of the run: --strict fails a run on its warnings.
    showWarnings([warning('CHECK_STEP_SUMMARY', `could not append the verdict to $GITHUB_STEP_SUMMARY (${file}): ${err.code === 'ENOTREG' ? err.message : err.code || err.message}`)], argv, ctx.stderr);
  }
}

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

