'use strict';
// The command table. Each command lives in lib/commands/<name>.js and exports
// { command, describe, builder(yargs), run(argv, ctx) -> exit code }; it puts the warnings of
// its run in ctx.warnings, and they are shown (or, under --strict, fail the run) here, also when
// the command throws.
const yargs = require('yargs/yargs');
const { isExpected, UsageError } = require('./errors.js');
const { settleWarnings, showWarnings, warning } = require('./warnings.js');
const { declareDeprecated, deprecatedGiven, translateDeprecated, deprecationMessage } = require('./deprecated-flags.js');
const { wantsColor } = require('./report/terminal-format.js');

// Loaded when the CLI starts: a missing command file is an error, never a missing command.
const COMMANDS = [
  require('./commands/profile.js'),
  require('./commands/pack.js'),
  require('./commands/start.js'),
  require('./commands/fixture.js'),
  require('./commands/bench.js'),
  require('./commands/bundle.js'),
  require('./commands/view.js'),
  require('./commands/diff.js'),
  require('./commands/check.js'),
  require('./commands/dockerfile.js'),
];

/**
 * Runs the CLI in-process. Resolves to the exit code; never calls process.exit.
 * @param {string[]} argv arguments after `coldstart`
 * @param {{stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream, cwd?: string}} io
 */
async function run(argv, io) {
  const { stdout, stderr } = io;
  const cwd = io.cwd || process.cwd();
  let result = 0;
  let pending = null;
  let usageMessage = null;
  let settle = () => {};

  const parser = yargs(argv)
    .scriptName('coldstart')
    .parserConfiguration({ 'populate--': true, 'unknown-options-as-args': false })
    .usage('$0 <command> [options] -- <app command>')
    .option('out', { alias: 'o', type: 'string', describe: 'output file or directory' })
    .option('json', { type: 'boolean', default: false, describe: 'print one JSON document on stdout' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing but errors' })
    .option('color', { type: 'boolean', describe: 'colour output (--no-color to disable)' })
    .option('strict', { type: 'boolean', default: false, describe: 'treat warnings as errors' })
    // strict, not strictOptions: yargs 17's strictOptions counts a command's positional
    // (`profile node server.js`, the -- forgotten) as an unknown option.
    .strict()
    .demandCommand(1, 'name a command, e.g. coldstart profile -- node server.js')
    .help()
    .version(require('../package.json').version)
    // The terminal's width; 120 for a pipe or a file, wide enough to keep examples whole.
    .wrap((stdout && stdout.columns) || 120)
    .exitProcess(false)
    .fail((msg, err) => {
      if (err) throw err;
      usageMessage = withSuggestion(msg, parser.getOptions(), argv, COMMANDS.map((c) => c.command.split(' ')[0]));
    });

  /**
   * Right after parsing, before any command code: a flag given twice is refused, and the old
   * spellings given are said (one warning line each) and translated (lib/deprecated-flags.js), so
   * a command sees only the new ones.
   */
  const afterParsing = (args, command, aliases) => {
    // yargs goes on after its own complaint (e.g. an unknown argument): that one is said alone.
    if (usageMessage) return;
    const repeated = givenTwice(args, parser.getOptions());
    if (repeated) throw new UsageError(`--${repeated} is given more than once: give it once`);
    const used = deprecatedGiven(args, command, argv);
    // Said before the run, and no error under --strict: an old spelling works for one more release.
    showWarnings(used.map((r) => warning('FLAG_DEPRECATED', deprecationMessage(r), { flag: r.old, use: r.new || null })), args, stderr);
    translateDeprecated(args, used, { cwd, aliases, parsers: require('./options.js') });
  };

  for (const cmd of COMMANDS) {
    const name = cmd.command.split(' ')[0];
    parser.command({
      command: cmd.command,
      describe: cmd.describe,
      builder: (y) => declareDeprecated(cmd.builder(y) || y, name),
      middlewares: [(args, y) => afterParsing(args, name, y.getOptions().alias)],
      handler: (args) => {
        const ctx = {
          stdout,
          stderr,
          cwd,
          color: wantsColor(stdout, args),
          env: io.env || process.env,
          warnings: [],
        };
        args.appCommand = [...(args.app || []), ...(args['--'] || [])].map(String);
        // Run only once parsing has fully succeeded: yargs calls handlers before it
        // reports some errors (e.g. an unknown argument), and the app must not start then.
        pending = () => cmd.run(args, ctx);
        // A run that already failed keeps its exit code; its warnings are still shown.
        settle = (code) => settleWarnings(ctx.warnings, code ? { ...args, strict: false } : args, stderr);
      },
    });
  }

  let helpText = null;
  try {
    await parser.parseAsync(argv, {}, (err, _argv, output) => {
      if (output && !err) helpText = output;
    });
    if (usageMessage) throw new UsageError(oneLine(usageMessage));
    if (helpText) stdout.write(helpText + '\n');
    if (pending) {
      try {
        result = await pending();
      } catch (err) {
        settle(1); // what the command warned about before it failed, shown before its error
        throw err;
      }
      settle(result);
    }
  } catch (err) {
    // yargs spreads one complaint over lines ("Invalid values:\n  Argument: ..."): one line here.
    if (err && err.name === 'YError') err = new UsageError(oneLine(err.message));
    if (isExpected(err)) {
      stderr.write(`coldstart: ${err.message}\n`);
      if (process.env.DEBUG && /coldstart/.test(process.env.DEBUG)) stderr.write(err.stack + '\n');
      return err.exitCode;
    }
    stderr.write(`coldstart: unexpected error\n${err && err.stack ? err.stack : err}\n`);
    return 1;
  }
  return typeof result === 'number' ? result : 0;
}

/** The first option that takes one value but was given several times (yargs makes it a list). */
function givenTwice(args, options) {
  const lists = new Set([...(options.array || []), '_', '--', 'app', 'appCommand']);
  for (const [key, value] of Object.entries(args)) {
    if (Array.isArray(value) && !lists.has(key) && !key.includes('-') && key !== '$0') return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  }
  return null;
}

/**
 * An unknown command or option with the nearest known one ("did you mean --coverage?"), or, when the app
 * command came without `--` and its own flags were taken for coldstart's, the `--` it needs.
 */
function withSuggestion(msg, options, argv, commands) {
  const unknown = /^Unknown arguments?: (.+)$/.exec(String(msg || ''));
  if (!unknown) return msg;
  const names = unknown[1].split(', ');
  if (!commands.includes(argv[0]) && names[0] === argv[0]) {
    const command = commands.find((c) => editDistance(argv[0], c) <= 2);
    return `unknown command "${argv[0]}"${command ? ` (did you mean ${command}?)` : `: use one of ${commands.join(', ')}`}`;
  }
  const known = Object.keys(options.key || {}).filter((k) => k.length > 1 && !/[A-Z]/.test(k));
  const near = names.map((n) => [n, known.find((k) => editDistance(n, k) <= Math.min(2, Math.floor(k.length / 3)))]).filter(([, k]) => k);
  if (near.length) return `${msg} (did you mean ${near.map(([, k]) => `--${k}`).join(', ')}?)`;
  const command = argv[0];
  const appStart = argv.findIndex((a, i) => i > 0 && !a.startsWith('-') && ['node', 'npm', 'npx', 'yarn', 'pnpm'].includes(a));
  if (!argv.includes('--') && appStart > 0) return `${msg}: put the app command after --, e.g. coldstart ${command} -- ${argv.slice(appStart).join(' ')}`;
  return msg;
}

/** Levenshtein distance, for "did you mean". */
function editDistance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

function oneLine(text) {
  return String(text).replace(/\s*\n\s*/g, ' ').trim();
}

module.exports = { run };
