'use strict';
// coldstart bundle -- node [--require ./tracing.js] server.js: checks the flags, runs
// lib/bundle/bundle-app.js (capture, externals, ncc, write, verify) and prints what it did.
const path = require('path');
const { builtinModules } = require('module');
const { parseUntil, parseDuration, parseCount, listItems, captureOptions, captureOptionsFromArgv, parseRequestLine } = require('../options.js');
const { UsageError } = require('../errors.js');
const { ENOUGH_RUNS } = require('../stats.js');

const NAME = /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/i;

module.exports = {
  command: 'bundle [app..]',
  describe: 'bundle an app with ncc, keeping what require hooks, native addons and runtime file reads need outside; then start the bundle and compare',
  builder: (yargs) => captureOptions(yargs)
    .option('external', { type: 'string', array: true, nargs: 1, requiresArg: true, describe: 'keep this package out of the bundle (repeat, or a,b)' })
    .option('auto-external', { type: 'boolean', default: true, describe: 'decide externals from what the app does at startup (--no-auto-external: only --external)' })
    .option('verify', { type: 'boolean', default: true, describe: 'start the bundle and compare it with the original (--no-verify to skip)' })
    .option('runs', { type: 'string', default: String(ENOUGH_RUNS), describe: 'timed starts of each, original and bundle (alternated), for the comparison' })
    .option('request', { type: 'string', array: true, describe: 'a request the bundle must answer as the app does (status and body), e.g. "GET /healthz"; repeatable (default "GET /")' })
    .example('$0 bundle --out dist-bundle -- node --require ./tracing.js server.js', '')
    .example('$0 bundle --external sharp -- node dist/index.js', ''),

  async run(argv, ctx) {
    const { runs, requests, externals, out } = bundleFlags(argv, ctx);
    const { bundleApp } = require('../bundle/bundle-app.js');
    const { withInterrupts } = require('../interrupt.js');
    const progress = require('../report/terminal-format.js').progress({ stream: ctx.stderr, quiet: argv.quiet || argv.json, env: ctx.env });
    const summary = await withInterrupts((traps) => bundleApp({
      ...captureOptionsFromArgv(argv, ctx),
      out,
      externals,
      autoExternal: argv.autoExternal,
      verify: argv.verify,
      runs,
      requests,
      signal: traps.signal,
      force: traps.force,
      onProgress: progress.phase,
    })).finally(progress.done);

    if (argv.json) ctx.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else if (!argv.quiet) {
      const asked = summary.answers ? require('../capture/same-answers.js').describeAnswers(summary.answers.requests) : '';
      ctx.stdout.write(require('../report/bundle-summary.js').renderBundleSummary(summary, { cwd: ctx.cwd, color: ctx.color, asked }));
    }
    ctx.warnings.push(...summary.warnings);
    return 0;
  },
};

/** The flags checked before the app runs (one line and exit 2 for a bad one), and what they give. */
function bundleFlags(argv, ctx) {
  if (!['listen', 'answer'].includes(parseUntil(argv.until).mode)) throw new UsageError('bundle verifies a server: only --until answer or listen is supported');
  parseDuration(argv.timeout, '--timeout'); // a bad --timeout fails before anything runs
  const runs = parseCount(argv.runs, '--runs', 1);
  const requests = [].concat(argv.request || []).map(parseRequestLine);
  if (requests.length && argv.verify === false) throw new UsageError('--request is what the verification asks: not with --no-verify');
  const externals = listItems(argv.external);
  for (const name of externals) {
    if (!NAME.test(name)) throw new UsageError(`--external "${name}": give a package name such as express or @grpc/grpc-js`);
    if (builtinModules.includes(name.replace(/^node:/, ''))) throw new UsageError(`--external ${name}: a Node built-in is never bundled`);
  }
  const parsed = require('../bundle/app-command.js').parseAppCommand(argv.appCommand);
  require('../capture/command-check.js').checkCommand(argv.appCommand, ctx.cwd);
  // Refuse a bad --out before the app runs; checked again once the capture knows the root.
  const { findRoot } = require('../node-command.js');
  const out = path.resolve(ctx.cwd, argv.out || 'dist-bundle');
  require('../bundle/output.js').checkOutDir(out, argv.root ? path.resolve(ctx.cwd, argv.root) : findRoot(path.resolve(ctx.cwd, parsed.entry), ctx.cwd));
  return { runs, requests, externals, out };
}
