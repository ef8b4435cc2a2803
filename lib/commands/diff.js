'use strict';
// coldstart diff A B: what changed at startup between two report.json files.
const { UsageError } = require('../errors.js');
const { parseCount } = require('../options.js');
const { readReport } = require('../report/read-report.js');

module.exports = {
  command: 'diff [before] [after]',
  describe: 'compare two report.json files: time to ready, modules, bytes, packages that appear or vanish, biggest movers',
  builder: (yargs) => yargs
    .positional('before', { type: 'string', describe: 'the older report.json (or a directory holding one)' })
    .positional('after', { type: 'string', describe: 'the newer report.json' })
    .option('top', { type: 'string', default: '10', describe: 'rows in each list of movers' })
    .example('$0 diff main/.coldstart/report.json .coldstart/report.json', '')
    .example('$0 diff .coldstart/baseline.json .coldstart/report.json --json', ''),
  async run(argv, ctx) {
    // Checked here rather than by yargs, so a missing file name is one clear usage line.
    if (!argv.before || !argv.after) throw new UsageError('diff needs two reports: coldstart diff before/report.json after/report.json');
    const top = parseCount(argv.top, '--top', 1);
    const before = readReport(argv.before, ctx.cwd);
    const after = readReport(argv.after, ctx.cwd);
    const { diffReports, renderDiff } = require('../report/diff.js');
    const diff = diffReports(before, after, { top });
    if (argv.json) {
      ctx.stdout.write(JSON.stringify({ before: argv.before, after: argv.after, ...diff }, null, 2) + '\n');
    } else if (!argv.quiet) {
      ctx.stdout.write(renderDiff(diff, { color: ctx.color, before: argv.before, after: argv.after }));
    }
    return 0;
  },
};
