'use strict';
// coldstart pack -- <command>: capture to the ready moment (no profiler), then a
// deterministic tar of the startup files. Or --manifest: pack a saved list.
const path = require('path');
const { UsageError } = require('../errors.js');
const { captureOptions, lambdaOptions, captureOptionsFromArgv, codeCacheMode, settleMs } = require('../options.js');

module.exports = {
  command: 'pack [app..]',
  describe: 'archive the files an app needs to start (run it to listen, or --manifest a saved list)',
  builder: (yargs) => lambdaOptions(captureOptions(yargs))
    .option('manifest', { type: 'string', describe: 'pack the paths listed in this file (startup-files.txt) instead of running the app' })
    .option('code-cache', { type: 'string', describe: 'also store V8 code cache for the CommonJS startup modules, used by start --mode memory (the cache bytes differ from pack to pack): --code-cache alone records it from a second start of the app under coldstart start, up to its ready moment; --code-cache compile compiles the modules without running them, for apps whose start has side effects' })
    .option('after', { type: 'string', describe: 'keep recording this long after the ready moment (e.g. 500ms), for files the app loads just after it (an import() after listen); they are packed, and in the code cache with --code-cache' })
    .option('snapshot-blob', { type: 'string', describe: 'also write a V8 startup snapshot of the CommonJS startup modules (evaluated now, at pack time) to this file, for node --snapshot-blob FILE entry.js; said and skipped when the app cannot have one' })
    .option('verify', { type: 'boolean', default: true, describe: 'start the app once from the archive\'s files alone (extracted into an empty directory) and fail, naming the missing file, when it cannot start (--no-verify skips it)' })
    .example('$0 pack --out /startup.tar -- node dist/index.js', '')
    .example('$0 pack --code-cache compile --out /startup.tar -- node dist/index.js', '')
    .example('$0 pack --manifest .coldstart/startup-files.txt --out startup.tar', ''),
  async run(argv, ctx) {
    const out = path.resolve(ctx.cwd, argv.out || 'startup.tar');
    const { ensureWritableFile } = require('../output-target.js');
    const made = ensureWritableFile(out); // before the app runs: a bad --out is one line, exit 2
    const codeCache = codeCacheMode(argv);
    const snapshot = argv.snapshotBlob != null ? snapshotTarget(argv, ctx, out) : undefined;
    if (snapshot) made.push(...ensureWritableFile(snapshot, '--snapshot-blob'));
    let summary;
    const progress = require('../report/terminal-format.js').progress({ stream: ctx.stderr, quiet: argv.quiet || argv.json, env: ctx.env });
    try {
      checkPackInput(argv, ctx, snapshot);
      const { packApp } = require('../pack/pack-app.js');
      summary = await packApp({
        out,
        manifest: argv.manifest,
        root: argv.root,
        cwd: ctx.cwd,
        capture: argv.manifest ? null : { ...captureOptionsFromArgv(argv, ctx), settleMs: settleMs(argv) },
        // A function's ready moment is the Runtime API's, which a recording under start cannot see.
        codeCache: codeCache === 'run' && argv.lambda != null ? 'compile' : codeCache,
        snapshot,
        check: argv.verify,
        onProgress: progress.phase,
      });
    } catch (err) {
      require('../make-dir.js').removeMadeDirs(made); // a failed pack leaves nothing behind
      throw err;
    } finally {
      progress.done();
    }
    ctx.warnings.push(...summary.warnings);
    if (argv.json) ctx.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else if (!argv.quiet) ctx.stdout.write(require('../report/pack-summary.js').renderPackSummary(summary));
    return 0;
  },
};

/** What is packed: an app run or a manifest, not both; what a snapshot or --lambda cannot take. */
function checkPackInput(argv, ctx, snapshot) {
  if (argv.manifest && argv.appCommand.length) throw new UsageError('give either --manifest or an app command, not both');
  if (snapshot && argv.manifest) throw new UsageError('--snapshot-blob needs the app run, not --manifest: it evaluates the modules the run loaded');
  if (argv.lambda != null && (snapshot || argv.manifest)) {
    throw new UsageError('--lambda packs what a run of the function reads: not with --manifest or --snapshot-blob');
  }
  const refused = snapshot && argv.appCommand.length && require('../pack/make-snapshot.js').refusedUpFront(argv.appCommand, ctx.cwd);
  if (refused) throw new UsageError(`--snapshot-blob: no snapshot for this app: ${refused}; leave out --snapshot-blob`);
}

/** --snapshot-blob FILE, checked before the app runs: a file that can be written, not the archive. */
function snapshotTarget(argv, ctx, out) {
  if (argv.snapshotBlob === '') throw new UsageError('--snapshot-blob needs a file name, e.g. --snapshot-blob /startup.blob');
  const file = path.resolve(ctx.cwd, argv.snapshotBlob);
  if (file === out) throw new UsageError('--snapshot-blob and --out name the same file');
  return file;
}

