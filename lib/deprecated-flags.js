'use strict';
// The flags renamed or dropped in this release, in one table: each old spelling still works as
// before for one release, with one warning line saying what to give instead (or that no flag is
// needed any more), and each command's --help lists them. Also read by `coldstart start` on every
// container start: plain data, no dependencies.

// diff's two spellings of "these are sets of runs", both told from the reports now.
const SETS_OF_RUNS = 'sets of runs are told from the reports given: either side of --, or two directories of reports';

/**
 * old: the old name (one letter: a short flag); commands: where the old name had this meaning;
 * type: how the old one parses (yargs), so it parses exactly as before. Then one of:
 * - new: the flag that takes the old value; lib/cli.js hands it over, unless `own`: then the
 *   command maps it itself (two old flags became one); start's own parser maps its two.
 *   `instead`: what to give when it is more than the new flag's name.
 * - instead alone: the new form, which takes no value from the old flag as it is (a file name whose
 *   extension now picks the format, a positional); the command reads the old flag itself.
 * - dropped: no flag replaces it: what the warning says instead (the value now fixed, or what does
 *   the job); the command reads the old flag itself, so it keeps its effect for the release.
 */
const DEPRECATED = [
  { old: 'runs', commands: ['diff'], type: 'boolean', dropped: SETS_OF_RUNS },
  { old: 'run-sets', commands: ['diff'], type: 'boolean', dropped: SETS_OF_RUNS },
  { old: 'top', commands: ['diff'], type: 'string', dropped: 'each list of movers shows the 10 biggest; --json has the same' },
  { old: 'docker', new: 'containers', commands: ['bench'], type: 'boolean', own: true, instead: '--containers runc,runsc' },
  { old: 'runtime', new: 'containers', commands: ['bench'], type: 'string', own: true },
  { old: 'warmup', commands: ['bench'], type: 'string', dropped: 'one warm-up round, not counted, always' },
  { old: 'ready-line', commands: ['bench'], type: 'string', instead: '--until line:/REGEX/' },
  { old: 'html', commands: ['bench'], type: 'string', instead: '-o FILE.html' },
  { old: 'csv', commands: ['bench'], type: 'string', instead: '-o FILE.csv' },
  { old: 'scenario', commands: ['bench'], type: 'string', dropped: 'the seed experiment runs with npm run bench -- seed-table in a checkout of coldstart' },
  { old: 'fixture', commands: ['bench'], type: 'string', dropped: 'node bench/seed-table.js --fixture DIR in a checkout of coldstart runs the seed experiment on another app' },
  { old: 'verify-runs', commands: ['profile'], type: 'string', dropped: '--verify-advice times 7 starts of each variant' },
  { old: 'rate', commands: ['profile'], type: 'string', dropped: 'each --request is sent twice a second: give one twice for 4 a second' },
  { old: 'keep-running', commands: ['profile'], type: 'boolean', dropped: 'the app ends with the capture: --after 10m keeps it running, profiled, for 10 minutes' },
  { old: 'min-effect', commands: ['check'], type: 'string', dropped: 'the tolerance is the smallest change that matters' },
  { old: 'max-modules', commands: ['check'], type: 'string', instead: '--budget modules=N' },
  { old: 'max-advice-ms', commands: ['check'], type: 'string', instead: '--budget advice=DURATION' },
  { old: 'max-runs', commands: ['check'], type: 'string', instead: '--runs N..M' },
  { old: 'format', commands: ['check'], type: 'string', dropped: 'under GitHub Actions the verdict goes to $GITHUB_STEP_SUMMARY as Markdown by itself; --json gives JSON' },
  { old: 'check', new: 'verify', commands: ['pack'], type: 'boolean' },
  { old: 'snapshot', new: 'snapshot-blob', commands: ['pack'], type: 'string' },
  { old: 'settle', new: 'after', commands: ['pack'], type: 'string' },
  { old: 'code-cache-run', commands: ['pack'], type: 'boolean', instead: '--code-cache compile for --no-code-cache-run' },
  { old: 'esm', new: 'es-modules', commands: ['fixture'], type: 'boolean' },
  { old: 'n', new: 'modules', commands: ['fixture'], type: 'string' },
  { old: 'max-props', commands: ['fixture'], type: 'string', dropped: 'each package exports 1 to 100 properties' },
  { old: 'seed', commands: ['fixture'], type: 'string', dropped: 'the files come from seed 42' },
  { old: 'depth', commands: ['fixture'], type: 'string', dropped: 'index.js requires every package' },
  { old: 'report', commands: ['view'], type: 'boolean', instead: 'coldstart view .coldstart/report.html (the report as FILE)' },
  { old: 'serve', commands: ['view'], type: 'boolean', instead: '--no-open for a file:// URL and no server' },
  { old: 'once', commands: ['view'], type: 'boolean', dropped: 'the server runs until Ctrl-C' },
  { old: 'port', commands: ['view'], type: 'string', dropped: 'the server takes any free port' },
  { old: 'verify', new: 'trust-archive', commands: ['start'], type: 'string', instead: '--trust-archive for --verify none' },
  { old: 'report', new: 'report-file', commands: ['start'], type: 'string' },
];

/** `--name`, or `-n` for a one-letter flag. */
function spelled(name) {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

/** The old spellings a command still takes. */
function deprecatedIn(command) {
  return DEPRECATED.filter((r) => r.commands.includes(command));
}

/** What to do instead of an old flag: "use --new", or what a dropped flag's warning says. */
function advice(entry) {
  return entry.dropped || `use ${entry.instead || spelled(entry.new)}`;
}

/** The one warning line of an old spelling, without the `coldstart: warning: ` prefix. */
function deprecationMessage(entry) {
  return `${spelled(entry.old)} is deprecated (${advice(entry)}); it will be removed in the next release`;
}

/** The lines --help adds for a command's old spellings; '' without any. */
function deprecationHelp(command) {
  const entries = deprecatedIn(command);
  if (!entries.length) return '';
  return ['Deprecated, removed in the next release:', ...entries.map((r) => `  ${spelled(r.old)}: ${advice(r)}`)].join('\n');
}

/** Declares a command's old spellings on its yargs builder: hidden, parsed as before, listed by --help. */
function declareDeprecated(yargs, command) {
  for (const r of deprecatedIn(command)) yargs.option(r.old, { type: r.type, hidden: true, ...(r.type === 'string' ? { requiresArg: true } : {}) });
  const help = deprecationHelp(command);
  return help ? yargs.epilogue(help) : yargs;
}

/**
 * The old spellings given to a command (parsed argv), each value handed to its new flag unless the
 * command reads it itself. Returns the entries given; a usage error when both spellings are.
 * @param {object} args yargs' argv, changed in place
 * @param {string[]} words the command line, to tell a flag given from a default
 */
function mapDeprecated(args, command, words) {
  const flags = words.slice(0, words.includes('--') ? words.indexOf('--') : words.length);
  const given = (name) => flags.some((w) => w === `--${name}` || w.startsWith(`--${name}=`) || w === `--no-${name}`);
  const used = deprecatedIn(command).filter((r) => args[r.old] !== undefined);
  for (const r of used) {
    if (!r.new) continue;
    if (given(r.new)) throw new (require('./errors.js').UsageError)(`${spelled(r.old)} is the old spelling of --${r.new}: give --${r.new} only`);
    if (r.own) continue;
    args[r.new] = args[r.old];
    args[r.new.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = args[r.old];
  }
  return used;
}

/**
 * start's --report FILE and --verify size|none as they were, with one warning line each: start parses
 * by hand and loads this file only when it meets one (it loads as little as it can at every cold start).
 */
function oldStartFlag(name, value, options) {
  options.warnings.push(deprecationMessage(deprecatedIn('start').find((r) => name === `--${r.old}`)));
  if (name === '--report') options.report = value;
  else options.verify = value === 'none' ? 'none' : 'size';
}

module.exports = { oldStartFlag, DEPRECATED, deprecatedIn, deprecationMessage, deprecationHelp, spelled, declareDeprecated, mapDeprecated };
