'use strict';
// coldstart diff A B: what changed at startup between two report.json files; or between two sets of
// runs (the reports either side of --, or two directories of reports), told apart from noise by the
// statistics of lib/stats.js.
const { UsageError } = require('../errors.js');
const { readReport, holdsRuns, runSets } = require('../report/read-report.js');

module.exports = {
  command: 'diff [reports..]',
  describe: 'compare two report.json files, or two sets of runs (the reports either side of --, or two directories of reports): time to ready, modules, bytes, packages that appear or vanish, the 10 biggest movers beyond noise',
  builder: (yargs) => yargs
    .positional('reports', { type: 'string', describe: 'before and after report.json (a directory with a report.json stands for it); or sets of runs: the reports before, -- and the reports after, or two directories of reports' })
    .example('$0 diff main/.coldstart/report.json .coldstart/report.json', '')
    .example('$0 diff .coldstart/baseline.json .coldstart/report.json --json', '')
    .example('# sets of runs, each a directory with a report.json', '').example('$0 diff before/1 before/2 before/3 before/4 -- after/1 after/2 after/3 after/4', '')
    .example('# two directories of reports', '').example('$0 diff runs-main runs-branch', ''),
  async run(argv, ctx) {
    // setsOfRuns and moverCount: internal values of old flags (lib/deprecated-flags.js).
    const top = argv.moverCount;
    const positional = (argv.reports || []).map(String);
    const afterDash = (argv['--'] || []).map(String);
    const { diffReports, diffRuns, renderDiff } = require('../report/diff.js');
    let diff;
    let labels;
    if (argv.setsOfRuns || afterDash.length || holdsRuns(positional, ctx.cwd)) {
      const [beforeNames, afterNames] = runSets(positional, afterDash, ctx.cwd);
      const before = beforeNames.map((f) => readReport(f, ctx.cwd));
      const after = afterNames.map((f) => readReport(f, ctx.cwd));
      diff = diffRuns(before, after, { top });
      labels = { before: beforeNames, after: afterNames };
    } else {
      // Checked here rather than by yargs, so a missing file name is one clear usage line.
      if (positional.length !== 2) throw new UsageError('diff needs two reports: coldstart diff before/report.json after/report.json');
      const [before, after] = positional.map((f) => readReport(f, ctx.cwd));
      // Reports written by check keep their runs: compare those rather than one figure each.
      const { keptRuns } = require('../report/run-samples.js');
      const kept = [keptRuns(before), keptRuns(after)];
      const samples = kept[0] && kept[1] && kept[0].readyAt.length > 1 && kept[1].readyAt.length > 1 ? { before: kept[0], after: kept[1] } : null;
      diff = diffReports(before, after, { top, samples });
      labels = { before: positional[0], after: positional[1] };
    }
    if (argv.json) {
      ctx.stdout.write(JSON.stringify({ ...labels, ...diff }, null, 2) + '\n');
    } else if (!argv.quiet) {
      const side = (x) => (Array.isArray(x) ? `${x.length} runs (${x[0]} …)` : x);
      ctx.stdout.write(renderDiff(diff, { color: ctx.color, before: side(labels.before), after: side(labels.after) }));
    }
    return 0;
  },
};

