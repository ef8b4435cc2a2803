'use strict';
// coldstart diff A B: what changed at startup between two report.json files.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');
const { parseCount } = require('../options.js');

/**
 * Reads a report.json (or a check baseline). A directory stands for the report.json inside it.
 * @param {string} file as the user gave it
 * @param {string} cwd
 * @returns {object} the report
 */
function readReport(file, cwd) {
  let full = path.resolve(cwd, file);
  let text;
  try {
    if (fs.statSync(full).isDirectory()) full = path.join(full, 'report.json');
    text = fs.readFileSync(full, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') throw new UsageError(`report not found: ${file}`);
    throw new UsageError(`cannot read ${file}: ${err.code || err.message}`);
  }
  let report;
  try {
    report = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${err.message}`);
  }
  const valid = report && typeof report === 'object' && Number.isFinite(report.readyAt) &&
    Array.isArray(report.modules) && Array.isArray(report.packages);
  if (!valid) throw new UsageError(`${file} is not a coldstart report (write one with coldstart profile or coldstart check --update-baseline)`);
  return report;
}

module.exports = {
  command: 'diff [before] [after]',
  describe: 'compare two report.json files: time to ready, modules, bytes, packages that appear or vanish, biggest movers',
  builder: (yargs) => yargs
    .positional('before', { type: 'string', describe: 'the older report.json (or a directory holding one)' })
    .positional('after', { type: 'string', describe: 'the newer report.json' })
    .option('top', { type: 'string', default: '10', describe: 'rows in each list of movers' })
    .example('$0 diff main/.coldstart/report.json .coldstart/report.json', '')
    .example('$0 diff .coldstart/baseline.json .coldstart/report.json --json', ''),
  readReport,
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
