'use strict';
// The command table. Each command lives in lib/commands/<name>.js and exports
// { command, describe, builder(yargs), run(argv, io) -> exit code }.
const yargs = require('yargs/yargs');
const { isExpected, UsageError } = require('./errors.js');

const COMMANDS = ['profile', 'pack', 'start', 'fixture', 'bench', 'bundle', 'view', 'diff', 'check', 'dockerfile'];

function loadCommands() {
  const out = [];
  for (const name of COMMANDS) {
    try {
      out.push(require(`./commands/${name}.js`));
    } catch (err) {
      if (err.code !== 'MODULE_NOT_FOUND' || !String(err.message).includes(`commands/${name}.js`)) throw err;
    }
  }
  return out;
}

function wantsColor(stream, argv) {
  if (argv.color === false || 'NO_COLOR' in process.env) return false;
  return Boolean(stream && stream.isTTY);
}

/**
 * Runs the CLI in-process. Resolves to the exit code; never calls process.exit.
 * @param {string[]} argv arguments after `coldstart`
 * @param {{stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream, cwd?: string}} io
 */
async function run(argv, io) {
  const { stdout, stderr } = io;
  let result = 0;
  let pending = null;
  let usageMessage = null;

  const parser = yargs(argv)
    .scriptName('coldstart')
    .parserConfiguration({ 'populate--': true, 'unknown-options-as-args': false })
    .usage('$0 <command> [options] -- <app command>')
    .option('out', { alias: 'o', type: 'string', describe: 'output file or directory' })
    .option('json', { type: 'boolean', default: false, describe: 'print one JSON document on stdout' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing but errors' })
    .option('color', { type: 'boolean', describe: 'colour output (--no-color to disable)' })
    .option('strict', { type: 'boolean', default: false, describe: 'treat warnings as errors' })
    .strictCommands()
    .strictOptions()
    .demandCommand(1, 'name a command, e.g. coldstart profile -- node server.js')
    .help()
    .version(require('../package.json').version)
    .wrap(Math.min(110, (stdout && stdout.columns) || 100))
    .exitProcess(false)
    .fail((msg, err) => {
      if (err) throw err;
      usageMessage = msg;
    });

  for (const cmd of loadCommands()) {
    parser.command({
      command: cmd.command,
      describe: cmd.describe,
      builder: cmd.builder,
      handler: (args) => {
        const ctx = {
          stdout,
          stderr,
          cwd: io.cwd || process.cwd(),
          color: wantsColor(stdout, args),
          env: io.env || process.env,
        };
        args.appCommand = [...(args.command || []), ...(args['--'] || [])].map(String);
        // Run only once parsing has fully succeeded: yargs calls handlers before it
        // reports some errors (e.g. an unknown argument), and the app must not start then.
        pending = () => cmd.run(args, ctx);
      },
    });
  }

  let helpText = null;
  try {
    await parser.parseAsync(argv, {}, (err, _argv, output) => {
      if (output && !err) helpText = output;
    });
    if (usageMessage) throw new UsageError(usageMessage);
    if (helpText) stdout.write(helpText + '\n');
    if (pending) result = await pending();
  } catch (err) {
    if (err && err.name === 'YError') err = new UsageError(err.message);
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

module.exports = { run };
