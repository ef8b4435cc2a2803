'use strict';
// coldstart dockerfile: print a Dockerfile fitted to the project in the current directory (entry,
// node flags, package manager, Node major, TypeScript build), with pack and `coldstart start` stages.
const path = require('path');
const { UsageError, CommandError } = require('../errors.js');

// What pack --snapshot-blob would refuse, said before a Dockerfile is written.
function refuseSnapshot(description) {
  if (description.distroless) {
    throw new UsageError('--snapshot with --distroless: the snapshot must be made by the Node of the run image, and a distroless image has no shell to run pack in; leave out one of them');
  }
  if (description.binary) {
    throw new UsageError(`--snapshot: the app starts with the package binary ${description.binary} (scripts.start); a snapshot starts node with an entry file: give it with --entry`);
  }
  const refused = require('../pack/make-snapshot.js').refusedUpFront(description.appCommand, description.root);
  if (refused) throw new UsageError(`--snapshot: ${refused}; leave out --snapshot`);
}

module.exports = {
  command: 'dockerfile',
  describe: 'print a Dockerfile for this project that packs its startup files at build time and runs it with coldstart start',
  builder: (yargs) => yargs
    .option('root', { type: 'string', describe: 'project directory (default: the current directory)' })
    .option('entry', { type: 'string', describe: 'entry file, relative to the root (default: scripts.start, main, index.js/server.js/app.js)' })
    .option('distroless', { type: 'boolean', default: false, describe: 'run in a distroless image (node is its entrypoint)' })
    .option('snapshot', { type: 'boolean', default: false, describe: 'start from a snapshot of the startup modules, evaluated at build (pack --snapshot-blob; docs/snapshot.md)' })
    .option('bundle', { type: 'boolean', default: false, describe: 'start an ncc bundle of the app (coldstart bundle), proven at build to answer GET / as the app does, from an archive with its code cache' })
    .option('choose', { type: 'boolean', default: false, describe: 'make each way to start here (plain node, Node\'s compile cache, coldstart start of the modules, an ncc bundle with either, a startup snapshot), prove each answers as plain node does, time them alternated, and write the fastest; needs --out' })
    .option('runs', { type: 'string', default: '7', describe: 'with --choose: timed starts of each' })
    .option('request', { type: 'string', array: true, describe: 'with --choose: a request each start must answer as plain node does (status and body), e.g. "GET /healthz"; repeatable (default "GET /")' })
    .option('timeout', { type: 'string', default: '60s', describe: 'with --choose: give up on a start not ready after this long' })
    .option('runtime', { type: 'string', requiresArg: true, describe: 'with --choose: time the starts where the app will run, each in fresh containers of the image its Dockerfile builds, under this runtime of the Docker engine (runc, runsc = gVisor, runsc-2024); they are still proven to answer here' })
    .option('base-image', { type: 'string', requiresArg: true, describe: 'with --choose --runtime: the image with node to build the starts on (NODE_IMAGE; default the Dockerfile\'s node:<major>-slim)' })
    .option('lambda', { type: 'string', requiresArg: true, describe: 'a Lambda function\'s container image: its handler (handler.js:fn), started by aws-lambda-ric from node_modules, the preload serving what its init read' })
    .option('event', { type: 'string', requiresArg: true, describe: 'with --lambda: a JSON event whose first invocation pack runs too, so its files are served as well' })
    .example('$0 dockerfile > Dockerfile', '')
    .example('$0 dockerfile --distroless --out Dockerfile', '')
    .example('$0 dockerfile --snapshot > Dockerfile', '')
    .example('$0 dockerfile --bundle --out Dockerfile', '')
    .example('$0 dockerfile --choose --out Dockerfile', '')
    .example('# timed under gVisor, each start in fresh containers of its own image', '').example('$0 dockerfile --choose --runtime runsc --out Dockerfile', '')
    .example('$0 dockerfile --lambda handler.js:handler --event event.json > Dockerfile', '')
    .example('# print what was detected', '').example('$0 dockerfile --entry dist/server.js --json', ''),
  async run(argv, ctx) {
    const { description, way } = dockerfileFlags(argv, ctx);
    let choice = null;
    if (argv.choose) {
      // A bad --out is one line before the app runs; what this made goes when no Dockerfile is written.
      const made = require('../output-target.js').ensureWritableFile(path.resolve(ctx.cwd, argv.out));
      choice = await choose(argv, ctx, description).catch((err) => {
        require('../make-dir.js').removeMadeDirs(made);
        throw err;
      });
    }
    ctx.warnings.push(...description.warnings);

    const out = argv.out ? path.resolve(ctx.cwd, argv.out) : null;
    const fromRoot = out && path.relative(description.root, out);
    const dockerfile = out && (fromRoot.startsWith('..') || path.isAbsolute(fromRoot) ? out : fromRoot.split(path.sep).join('/'));
    const start = choice ? choice.chosen : way || 'modules';
    const text = require('../dockerfile/render-dockerfile.js').renderDockerfile(description, { dockerfile, start });
    if (out) writeDockerfile(out, text, argv);
    if (argv.json) {
      ctx.stdout.write(JSON.stringify(out ? { ...description, out, ...(choice ? { choice } : {}) } : description, null, 2) + '\n');
    } else if (!out) {
      ctx.stdout.write(text);
    } else if (!argv.quiet) {
      const asked = choice ? require('../capture/same-answers.js').describeAnswers(choice.requests) : '';
      ctx.stdout.write(require('../report/dockerfile-summary.js').renderWritten({ shownOut: path.relative(ctx.cwd, out) || out, description, start, choice, asked, color: ctx.color }));
    }
    return 0;
  },
};

/** The flags checked and the project detected, before anything runs (one line and exit 2 for a bad one). */
function dockerfileFlags(argv, ctx) {
  if (argv.appCommand.length) {
    throw new UsageError('dockerfile takes no app command: name the entry file with --entry, e.g. --entry server.js');
  }
  if (/[\r\n]/.test(argv.out || '')) throw new UsageError(`--out ${JSON.stringify(argv.out)}: a line break in the path would end the Dockerfile's build-command line`);
  const root = path.resolve(ctx.cwd, argv.root || '.');
  if (argv.event != null && argv.lambda == null) throw new UsageError('--event is the first invocation of a --lambda function: give --lambda handler.js:fn too');
  if (argv.lambda != null) {
    const other = ['entry', 'snapshot', 'distroless', 'bundle', 'choose'].find((name) => argv[name]);
    if (other) throw new UsageError(`--${other} with --lambda: a Lambda image starts the handler through its runtime interface client; leave out --${other}`);
  }
  const description = require('../dockerfile/detect-project.js').detectProject({ root, entry: argv.entry, lambda: argv.lambda, event: argv.event, distroless: argv.distroless });
  if (argv.snapshot && argv.bundle) throw new UsageError('--snapshot with --bundle: each is a way to start the app; leave out one of them');
  if (argv.snapshot) refuseSnapshot(description);
  const way = ['snapshot', 'bundle'].find((name) => argv[name]);
  if (argv.choose && way) throw new UsageError(`--choose with --${way}: --choose picks the way to start; leave out one of them`);
  if (argv.choose && !argv.out) throw new UsageError('--choose writes the Dockerfile it chose: give --out, e.g. --out Dockerfile');
  if (argv.runtime != null && !argv.choose) throw new UsageError('--runtime is where --choose times the starts: give --choose too');
  if (argv.baseImage != null && argv.runtime == null) throw new UsageError('--base-image is what --choose --runtime builds the starts on: give --runtime too');
  if (description.next && (way || argv.choose)) {
    throw new UsageError(`--${argv.choose ? 'choose' : way}: not for a Next.js standalone server (Next has traced and copied what it needs); coldstart dockerfile writes its image without it`);
  }
  if ((argv.bundle || argv.choose) && description.binary) {
    throw new UsageError(`--${argv.bundle ? 'bundle' : 'choose'}: the app starts with the package binary ${description.binary} (scripts.start); a bundle starts node with an entry file: give it with --entry`);
  }
  return { description, way };
}

/** The Dockerfile to --out, whole or not at all. */
function writeDockerfile(out, text, argv) {
  try {
    require('../write-atomic.js').writeFileAtomic(out, text);
  } catch (err) {
    if (['ENOENT', 'EACCES', 'ENOTDIR', 'EROFS', 'EISDIR'].includes(err.code)) {
      throw new UsageError(`cannot write --out ${argv.out}: ${err.code}`);
    }
    throw err;
  }
}

/** --choose: the starts made and timed here (lib/dockerfile/choose-start.js); one line when none can be written. */
async function choose(argv, ctx, description) {
  const { parseCount, parseDuration, parseRequestLine } = require('../options.js');
  const runs = parseCount(argv.runs, '--runs', 2);
  const requests = [].concat(argv.request || []).map(parseRequestLine);
  const timeoutMs = parseDuration(argv.timeout, '--timeout');
  const { chooseStart, unwritableStarts } = require('../dockerfile/choose-start.js');
  const { withInterrupts } = require('../interrupt.js');
  const progress = require('../report/terminal-format.js').progress({ stream: ctx.stderr, quiet: argv.quiet || argv.json, env: ctx.env });
  // With --runtime, the engine and the runtime are asked before anything runs.
  if (argv.runtime != null) await require('../docker.js').checkRuntimes([argv.runtime], '--runtime');
  const sandbox = argv.runtime != null ? { description, runtime: argv.runtime, baseImage: argv.baseImage || null } : null;
  const choice = await withInterrupts((traps) => chooseStart({
    root: description.root, command: description.appCommand, env: ctx.env, runs, requests: requests.length ? requests : undefined, unwritable: unwritableStarts(description),
    until: { mode: 'listen' }, timeoutMs, onProgress: progress.phase, signal: traps.signal, force: traps.force, sandbox,
  })).finally(progress.done);
  if (!choice.chosen) {
    const why = choice.rows.map((r) => `${r.label}: ${r.problem || 'no run'}`).join('; ');
    throw new CommandError(`--choose: no start could be written (${why}); no Dockerfile written`);
  }
  return choice;
}
