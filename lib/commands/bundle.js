'use strict';
// coldstart bundle -- node [--require ./tracing.js] server.js: checks the flags, runs
// lib/bundle/bundle-app.js (capture, externals, ncc, write, verify) and prints what it did.
const path = require('path');
const { builtinModules } = require('module');
const { parseUntil, parseDuration, parseCount, listItems, captureOptions, captureOptionsFromArgv, parseRequestLine } = require('../options.js');
const { UsageError } = require('../errors.js');
const { shellWord } = require('../shell-words.js');
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
    if (!['listen', 'answer'].includes(parseUntil(argv.until).mode)) throw new UsageError('bundle verifies a server: only --until answer or listen is supported');
    parseDuration(argv.timeout, '--timeout'); // a bad --timeout fails before anything runs
    const runs = parseCount(argv.runs, '--runs', 1);
    const requests = [].concat(argv.request || []).map(parseRequestLine);
    if (requests.length && argv.verify === false) throw new UsageError('--request is what the verification asks: not with --no-verify');
    const user = listItems(argv.external);
    for (const name of user) {
      if (!NAME.test(name)) throw new UsageError(`--external "${name}": give a package name such as express or @grpc/grpc-js`);
      if (builtinModules.includes(name.replace(/^node:/, ''))) throw new UsageError(`--external ${name}: a Node built-in is never bundled`);
    }
    const { parseAppCommand } = require('../bundle/app-command.js');
    const { checkCommand } = require('../capture/command-check.js');
    const parsed = parseAppCommand(argv.appCommand);
    checkCommand(argv.appCommand, ctx.cwd);
    // Refuse a bad --out before the app runs; checked again once the capture knows the root.
    const { findRoot } = require('../capture/startup-files.js');
    const { checkOutDir } = require('../bundle/output.js');
    const out = path.resolve(ctx.cwd, argv.out || 'dist-bundle');
    checkOutDir(out, argv.root ? path.resolve(ctx.cwd, argv.root) : findRoot(path.resolve(ctx.cwd, parsed.entry), ctx.cwd));

    const { bundleApp } = require('../bundle/bundle-app.js');
    const { withInterrupts } = require('../interrupt.js');
    const progress = require('../report/terminal-format.js').progress({ stream: ctx.stderr, quiet: argv.quiet || argv.json, env: ctx.env });
    const summary = await withInterrupts((traps) => bundleApp({
      ...captureOptionsFromArgv(argv, ctx),
      out,
      externals: user,
      autoExternal: argv.autoExternal,
      verify: argv.verify,
      runs,
      requests,
      signal: traps.signal,
      force: traps.force,
      onProgress: progress.phase,
    })).finally(progress.done);

    if (argv.json) ctx.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else if (!argv.quiet) ctx.stdout.write(renderBundleSummary(summary, ctx));
    ctx.warnings.push(...summary.warnings);
    return 0;
  },
};

function renderBundleSummary(s, ctx) {
  const { size, palette } = require('../report/terminal-format.js');
  const { bold, dim } = palette(ctx.color);
  const lines = [];
  const rel = path.relative(ctx.cwd, s.out) || '.';
  lines.push(`${bold('coldstart')}: bundled into ${rel.startsWith('..') ? s.out : rel}: ${size(s.bundle.bundleBytes)} bundle, ` +
    `${s.nodeModules} package${s.nodeModules === 1 ? '' : 's'} in node_modules, ${s.bundle.size.files} files, ${size(s.bundle.size.bytes)}`);
  if (s.externals.length) {
    lines.push('', bold('Kept external'));
    for (const e of s.externals) {
      lines.push(`  ${e.name}`);
      for (const r of e.reasons) lines.push(dim(`    ${r.detail}`));
    }
  } else {
    lines.push('', 'Nothing kept external: everything the entry loads is inside the bundle.');
  }
  if (s.hookedBuiltins.length) {
    lines.push(dim(`  hooked built-ins (never bundled): ${s.hookedBuiltins.map((b) => `${b.name} by ${b.by}`).join('; ')}`));
  }
  if (s.preloadPackages.length) {
    lines.push(dim(`  for the preload only: ${s.preloadPackages.length} package${s.preloadPackages.length === 1 ? '' : 's'} (${s.preloadPackages.slice(0, 4).join(', ')}${s.preloadPackages.length > 4 ? ', …' : ''})`));
  }
  if (s.timing) {
    const { formatMedianInterval, formatComparison } = require('../stats.js');
    const t = s.timing;
    const cmp = t.comparison;
    const coverage = Math.floor(100 * Math.min(cmp.before.confidence, cmp.after.confidence));
    const what = cmp.before.low === null ? 'median' : `median [${coverage}% interval]`;
    lines.push('', bold('Verified') + dim(` (${what} of ${t.runs} start${t.runs === 1 ? '' : 's'} each, original and bundle alternated, no profiler)`));
    lines.push(`  ready after      ${formatMedianInterval(cmp.before).padStart(10)} original   ${formatMedianInterval(cmp.after).padStart(10)} bundle`);
    const verdict = formatComparison(cmp);
    lines.push(`  bundle           ${cmp.verdict === 'too few runs' ? `${verdict}: use --runs ${ENOUGH_RUNS} or more` : verdict}`);
    if (s.answers) {
      const { requests, statusOnly } = s.answers;
      const asked = require('../capture/same-answers.js').describeAnswers(requests);
      lines.push(`  answers          as the app's: ${asked}${statusOnly.length ? dim(` (status only for ${statusOnly.join(', ')}: the app's own body differs between starts)`) : ' (status and body)'}`);
    }
    lines.push(`  files read       ${String(s.original.files).padStart(10)} original   ${String(s.bundle.files).padStart(10)} bundle`);
    lines.push(`  bytes read       ${size(s.original.bytes).padStart(10)} original   ${size(s.bundle.bytes).padStart(10)} bundle`);
    lines.push(`  on disk          ${size(s.original.size.bytes).padStart(10)} original   ${size(s.bundle.size.bytes).padStart(10)} bundle`);
  }
  lines.push('', bold('Start it'), `  cd ${rel.startsWith('..') ? s.out : rel} && ${s.start.command.map(shellWord).join(' ')}`);
  return lines.join('\n') + '\n';
}

