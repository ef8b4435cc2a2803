'use strict';
// coldstart profile -- <command>: capture + analyse + report.
const fs = require('fs');
const path = require('path');
const { parseUntil, parseInterval, parseDuration } = require('../options.js');
const { UsageError } = require('../errors.js');

const captureOptions = (yargs) => yargs
  .option('until', { type: 'string', default: 'listen', describe: 'ready moment: listen | exit | <duration> (e.g. 5s)' })
  .option('timeout', { type: 'string', default: '60s', describe: 'give up when the app is not ready after this long' })
  .option('root', { type: 'string', describe: 'app root (default: nearest package.json above the entry, else cwd)' })
  .option('esm', { choices: ['auto', 'always', 'never'], default: 'auto', describe: 'install ESM loader hooks (auto: when the entry is ESM or loaders are used)' });

module.exports = {
  command: 'profile [command..]',
  describe: 'run an app from process start until it listens; write a CPU profile, the files it read and a require-time report',
  builder: (yargs) => captureOptions(yargs)
    .option('interval', { type: 'string', default: '1000', describe: 'CPU sampling interval in microseconds' })
    .option('keep-running', { type: 'boolean', default: false, describe: 'leave the app running after the capture' })
    .example('$0 profile -- node server.js', '')
    .example('$0 profile --until exit -- node build.js', '')
    .example('$0 profile --json -- npm start', ''),
  captureOptions,
  captureOptionsFromArgv,
  async run(argv, ctx) {
    const interval = parseInterval(argv.interval);
    const outDir = path.resolve(ctx.cwd, argv.out || '.coldstart');
    const options = captureOptionsFromArgv(argv, ctx); // validates before the out dir is made
    ensureWritableDir(outDir);

    const { capture } = require('../capture/capture.js');
    const { withInterrupts } = require('../interrupt.js');
    const result = await withInterrupts((traps) => capture({
      ...options,
      interval,
      keepRunning: argv.keepRunning,
      signal: traps.signal,
      force: traps.force,
    }));

    const { writeProfileArtifacts } = require('../report/profile-artifacts.js');
    const report = writeProfileArtifacts(result, outDir, ctx.cwd);
    if (argv.json) {
      ctx.stdout.write(JSON.stringify(report, null, 2) + '\n');
    } else if (!argv.quiet) {
      const { renderProfileSummary } = require('../report/terminal.js');
      ctx.stdout.write(renderProfileSummary(report, { color: ctx.color, artifacts: report.artifacts }));
    }
    return result.partial ? 130 : 0;
  },
};

/** The capture options every capturing command takes from its flags. */
function captureOptionsFromArgv(argv, ctx) {
  return {
    command: argv.appCommand,
    cwd: ctx.cwd,
    env: ctx.env,
    until: parseUntil(argv.until),
    timeoutMs: parseDuration(argv.timeout, '--timeout'),
    root: argv.root,
    esm: argv.esm,
    // One JSON document on stdout: the app's own output goes to stderr then.
    stdout: argv.json ? ctx.stderr : ctx.stdout,
    stderr: ctx.stderr,
  };
}

/** Fails before the app runs when the output directory cannot be written. */
function ensureWritableDir(dir) {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
    if (!fs.statSync(dir).isDirectory()) throw new Error('not a directory');
  } catch (err) {
    throw new UsageError(`cannot write to --out ${dir}: ${err.code || err.message}`);
  }
}
module.exports.ensureWritableDir = ensureWritableDir;
