'use strict';
// The flags renamed or dropped in this release, in one table: each old spelling still works as
// before for one release, with one warning line saying what to give instead (or that no flag is
// needed any more), and each command's --help lists them. lib/cli.js translates them right after
// parsing, so a command sees only the new spellings. Also read by `coldstart start` on every
// container start: plain data when it loads, what a translation needs loaded only when one runs.

// diff's two spellings of "these are sets of runs", both told from the reports now.
const SETS_OF_RUNS = 'sets of runs are told from the reports given: either side of --, or two directories of reports';

/**
 * old: the old name (one letter: a short flag); commands: where the old name had this meaning;
 * type: how the old one parses (yargs), so it parses exactly as before. Then one of:
 * - new: the flag that takes the old value; lib/cli.js hands it over, unless translate says how.
 *   `instead`: what to give when it is more than the new flag's name.
 * - instead alone: the new form, which takes no value from the old flag as it is (a file name whose
 *   extension now picks the format, a positional).
 * - dropped: no flag replaces it: what the warning says instead (the value now fixed, or what does
 *   the job).
 * translate(value, args, {cwd, set, parsers}): the old value checked as the old flag checked it (its messages),
 * and turned into the new argv: set(name, value) gives a new flag; an effect no flag has any more
 * becomes an internal value (camelCase, named here) that the command hands to the library, so it
 * keeps its effect for the release. Translations run in the table's order, each seeing all old flags.
 * start's own parser maps its two (oldStartFlag).
 */
const DEPRECATED = [
  { old: 'runs', commands: ['diff'], type: 'boolean', dropped: SETS_OF_RUNS, translate: setsOfRuns },
  { old: 'run-sets', commands: ['diff'], type: 'boolean', dropped: SETS_OF_RUNS, translate: setsOfRuns },
  { old: 'top', commands: ['diff'], type: 'string', dropped: 'each list of movers shows the 10 biggest; --json has the same',
    translate: (value, args, { parsers }) => { args.moverCount = parsers.parseCount(value, '--top', 1); } },
  { old: 'docker', new: 'containers', commands: ['bench'], type: 'boolean', instead: '--containers runc,runsc',
    translate: (value, args, { set, parsers }) => { if (value) set('containers', args.runtime ?? parsers.DEFAULT_RUNTIMES); } },
  { old: 'runtime', new: 'containers', commands: ['bench'], type: 'string',
    translate: (value, args) => { if (!args.docker) throw usage('--runtime goes with --docker'); } },
  { old: 'warmup', commands: ['bench'], type: 'string', dropped: 'one warm-up round, not counted, always',
    translate: (value, args, { parsers }) => { args.warmupRounds = parsers.parseCount(value, '--warmup', 0); } },
  { old: 'ready-line', commands: ['bench'], type: 'string', instead: '--until line:/REGEX/', translate: readyLine },
  { old: 'html', commands: ['bench'], type: 'string', instead: '-o FILE.html', translate: alsoWritten('html') },
  { old: 'csv', commands: ['bench'], type: 'string', instead: '-o FILE.csv', translate: alsoWritten('csv') },
  { old: 'scenario', commands: ['bench'], type: 'string', dropped: 'the seed experiment runs with npm run bench -- seed-table in a checkout of coldstart', translate: scenarios },
  { old: 'fixture', commands: ['bench'], type: 'string', dropped: 'node bench/seed-table.js --fixture DIR in a checkout of coldstart runs the seed experiment on another app',
    translate: (value, args) => {
      if (args.scenario === undefined) throw usage('--fixture goes with --scenario (the app the scenarios load)');
      args.fixtureDir = value;
    } },
  { old: 'verify-runs', commands: ['profile'], type: 'string', dropped: '--verify-advice times 7 starts of each variant',
    translate: (value, args, { parsers }) => { if (args.verifyAdvice) args.verifyStarts = parsers.parseCount(value, '--verify-runs', 2); } },
  { old: 'rate', commands: ['profile'], type: 'string', dropped: 'each --request is sent twice a second: give one twice for 4 a second', translate: requestRate },
  { old: 'keep-running', commands: ['profile'], type: 'boolean', dropped: 'the app ends with the capture: --after 10m keeps it running, profiled, for 10 minutes', translate: keepRunning },
  { old: 'min-effect', commands: ['check'], type: 'string', dropped: 'the tolerance is the smallest change that matters',
    translate: (value, args, { parsers }) => { args.minEffectMs = parsers.parseDuration(value, '--min-effect'); } },
  { old: 'max-modules', commands: ['check'], type: 'string', instead: '--budget modules=N',
    translate: budgetItem('modules', 'maxModules', '--max-modules', (value, parsers) => parsers.parseCount(value, '--max-modules', 1)) },
  { old: 'max-advice-ms', commands: ['check'], type: 'string', instead: '--budget advice=DURATION',
    translate: budgetItem('advice', 'maxAdviceMs', '--max-advice-ms', (value, parsers) => `${parsers.parseDuration(value, '--max-advice-ms')}ms`) },
  { old: 'max-runs', commands: ['check'], type: 'string', instead: '--runs N..M', translate: maxRuns },
  { old: 'format', commands: ['check'], type: 'string', dropped: 'under GitHub Actions the verdict goes to $GITHUB_STEP_SUMMARY as Markdown by itself; --json gives JSON', translate: verdictFormat },
  { old: 'check', new: 'verify', commands: ['pack'], type: 'boolean' },
  { old: 'snapshot', new: 'snapshot-blob', commands: ['pack'], type: 'string' },
  { old: 'settle', new: 'after', commands: ['pack'], type: 'string' },
  { old: 'code-cache-run', commands: ['pack'], type: 'boolean', instead: '--code-cache compile for --no-code-cache-run',
    translate: (value, args, { set }) => { if (value === false && args.codeCache === '') set('code-cache', 'compile'); } },
  { old: 'esm', new: 'es-modules', commands: ['fixture'], type: 'boolean' },
  { old: 'n', new: 'modules', commands: ['fixture'], type: 'string' },
  { old: 'max-props', commands: ['fixture'], type: 'string', dropped: 'each package exports 1 to 100 properties',
    translate: generatorOption('maxProps', (value, parsers) => parsers.parseCount(value, '--max-props', 1)) },
  { old: 'seed', commands: ['fixture'], type: 'string', dropped: 'the files come from seed 42', translate: generatorOption('seed', parseSeed) },
  { old: 'depth', commands: ['fixture'], type: 'string', dropped: 'index.js requires every package',
    translate: generatorOption('depth', (value, parsers) => parsers.parseCount(value, '--depth', 1)) },
  { old: 'report', commands: ['view'], type: 'boolean', instead: 'coldstart view .coldstart/report.html (the report as FILE)',
    translate: (value, args) => { if (value) args.findReport = true; } },
  // --serve --no-open (a server, no browser) and --no-serve (a file:// URL, opened) have no flag now.
  { old: 'serve', commands: ['view'], type: 'boolean', instead: '--no-open for a file:// URL and no server', translate: (value, args) => { args.useServer = value; } },
  { old: 'once', commands: ['view'], type: 'boolean', dropped: 'the server runs until Ctrl-C', translate: (value, args) => { args.stopWhenLoaded = value; } },
  // As given: view checks it only where a server starts, as it did (a report or a file:// URL never read it).
  { old: 'port', commands: ['view'], type: 'string', dropped: 'the server takes any free port', translate: (value, args) => { args.serverPort = value; } },
  { old: 'verify', new: 'trust-archive', commands: ['start'], type: 'string', instead: '--trust-archive for --verify none' },
  { old: 'report', new: 'report-file', commands: ['start'], type: 'string' },
];

const usage = (message) => new (require('./errors.js').UsageError)(message);

/** diff --runs, --run-sets: the reports are sets of runs, whatever they look like. */
function setsOfRuns(value, args) {
  if (value) args.setsOfRuns = true;
}

/**
 * bench --ready-line REGEX: the line a container is ready at, for the app commands (readyPattern).
 * Not turned into --until line:/REGEX/: beside --scenario or --until answer the old line still served
 * the app commands, and --until line:/…/ goes with neither.
 */
function readyLine(value, args, { parsers }) {
  let until;
  try {
    until = parsers.parseBenchUntil(args.until);
  } catch {
    return; // bench says what is wrong with --until
  }
  if (until.mode === 'line') {
    if (args.containers == null) return; // bench says a line needs --containers
    throw usage('--ready-line is the old spelling of --until line:/REGEX/: give --until only');
  }
  try {
    args.readyPattern = require('./bounded-regex.js').boundedRegex(new RegExp(value, 'i'));
  } catch (err) {
    throw usage(`invalid --ready-line "${value}": ${err.message}`);
  }
}

/** bench --html FILE, --csv FILE: files written besides -o's (alsoWritten), the samples before the chart. */
function alsoWritten(format) {
  return (value, args, { cwd, parsers }) => {
    const written = { file: parsers.outputFile(value, `--${format}`, cwd), format };
    args.alsoWritten = format === 'csv' ? [written, ...(args.alsoWritten || [])] : [...(args.alsoWritten || []), written];
  };
}

/** bench --scenario a,b: the seed scenarios timed (scenarios), which end by listening and time no app command of --node. */
function scenarios(value, args, { parsers }) {
  args.scenarios = parsers.parseScenarios(value);
  if (args.node !== undefined && args.compare === undefined) throw usage('--node times an app command: use it without --scenario');
  let until;
  try {
    until = parsers.parseBenchUntil(args.until);
  } catch {
    return; // bench says what is wrong with --until
  }
  if (until.mode !== 'listen') throw usage('the scenarios end by listening: use --until listen with --scenario');
}

/** profile --rate N: the requests' pace (requestRate), more than 0 and at most 1000 a second. */
function requestRate(value, args) {
  if (args.after == null && !(args.request || []).length) throw usage('--rate paces --request: give a --request too');
  const n = Number(value);
  if (!(n > 0) || n > 1000) throw usage(`invalid --rate "${value}": requests per second, more than 0 and at most 1000`);
  args.requestRate = n;
}

/** profile --keep-running: the one app profiled is left running (keepAppRunning), on this machine. */
function keepRunning(value, args, { parsers }) {
  if (!value) return;
  if (parsers.parseCount(args.runs, '--runs', 1) > 1) throw usage('--keep-running leaves one app running: give it without --runs');
  if (args.docker != null) throw usage('--keep-running does not work with --docker: the container ends with the capture');
  args.keepAppRunning = true;
}

/** check --max-modules, --max-advice-ms: one more --budget item, refused beside a --budget that sets the same limit. */
function budgetItem(key, limit, flag, parse) {
  return (value, args, { set, parsers }) => {
    if (parsers.parseBudget(args)[limit] != null) throw usage(`${flag} and --budget ${key}= both give the ${key} limit: give --budget ${key}=… only`);
    set('budget', [...(args.budget || []), `${key}=${parse(value, parsers)}`]);
  };
}

/** check --max-runs M: --runs N..M, M at least N. */
function maxRuns(value, args, { set, parsers }) {
  const { runs } = parsers.parseRuns(args);
  if (String(args.runs).includes('..')) throw usage('--max-runs is the old spelling of --runs N..M: give --runs N..M only');
  set('runs', `${runs}..${parsers.parseCount(value, '--max-runs', runs)}`);
}

/** check --format: json is --json, text the default; markdown prints the verdict as Markdown (verdictMarkdown). */
function verdictFormat(value, args, { set }) {
  if (!['text', 'markdown', 'json'].includes(value)) throw usage(`invalid --format "${value}": text, markdown or json`);
  if (args.json && value === 'markdown') throw usage('give --json or --format markdown, not both');
  if (value === 'json') set('json', true);
  if (value === 'markdown') args.verdictMarkdown = true;
}

/** fixture --max-props, --seed, --depth: the generator's options (generatorOptions) instead of the seed experiment's. */
function generatorOption(key, parse) {
  return (value, args, { parsers }) => {
    args.generatorOptions = { ...args.generatorOptions, [key]: parse(value, parsers) };
  };
}

function parseSeed(value, parsers) {
  const seed = parsers.parseCount(value, '--seed', 0);
  if (seed > 0xffffffff) throw usage(`invalid --seed "${value}": at most 4294967295`);
  return seed;
}

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
 * The old spellings given to a command (parsed argv); a usage error when a renamed one is given
 * with its new spelling too.
 * @param {string[]} words the command line, to tell a flag given from a default
 */
function deprecatedGiven(args, command, words) {
  const flags = words.slice(0, words.includes('--') ? words.indexOf('--') : words.length);
  const given = (name) => flags.some((w) => w === `--${name}` || w.startsWith(`--${name}=`) || w === `--no-${name}`);
  const used = deprecatedIn(command).filter((r) => args[r.old] !== undefined);
  const both = used.find((r) => r.new && given(r.new));
  if (both) throw usage(`${spelled(both.old)} is the old spelling of --${both.new}: give --${both.new} only`);
  return used;
}

/**
 * The old spellings given (deprecatedGiven) turned into the new argv, in place; then gone from it.
 * @param {{cwd: string, aliases?: Record<string, string[]>, parsers: object}} at the directory file
 *   names are relative to; the aliases of the command's flags, set with them; the CLI's flag parsers
 *   (lib/options.js), handed in by lib/cli.js: start reads this table, and its own package
 *   (lib/start-package.js) must not carry them
 */
function translateDeprecated(args, used, { cwd, aliases = {}, parsers }) {
  const keys = (name) => [name, name.replace(/-([a-z])/g, (_, c) => c.toUpperCase()), ...(aliases[name] || [])];
  const set = (name, value) => {
    for (const key of keys(name)) args[key] = value;
  };
  for (const r of used) {
    if (r.translate) r.translate(args[r.old], args, { cwd, set, parsers });
    else set(r.new, args[r.old]);
  }
  for (const r of used) for (const key of keys(r.old)) delete args[key];
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

module.exports = { oldStartFlag, DEPRECATED, deprecatedIn, deprecationMessage, deprecationHelp, spelled, declareDeprecated, deprecatedGiven, translateDeprecated };
