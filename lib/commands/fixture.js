'use strict';
// `coldstart fixture`: writes the seed experiment's app (N generated packages) to benchmark against.
const path = require('node:path');
const { parseCount } = require('../options.js');
const { UsageError } = require('../errors.js');
const { size } = require('../report/terminal-format.js');

const DEFAULT_OUT = './coldstart-fixture';


// Show the directory the way the user would type it: relative when under cwd.
function displayPath(dir, cwd) {
  const rel = path.relative(cwd, dir);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? dir : `.${path.sep}${rel}`;
}

module.exports = {
  command: 'fixture',
  describe: 'write a generated app with N packages in node_modules (the seed benchmark)',
  builder(yargs) {
    return yargs
      .option('modules', { requiresArg: true, default: 1000, describe: 'number of generated packages' })
      .option('max-props', { requiresArg: true, default: 100, describe: 'each package exports 1..max-props random properties' })
      .option('seed', { requiresArg: true, default: 42, describe: 'PRNG seed: the same options give identical files' })
      .option('depth', { requiresArg: true, default: 1, describe: 'levels of packages requiring packages (1 = index.js requires all)' })
      .option('es-modules', { type: 'boolean', default: false, describe: 'ES modules (import) instead of CommonJS (require)' })
      .option('out', { type: 'string', requiresArg: true, default: DEFAULT_OUT, describe: 'directory to create (must not exist or be empty)' })
      .example('# then: cd w1 && node index.js', '').example('$0 fixture --modules 1000 --out ./w1', '');
  },
  async run(argv, ctx) {
    const options = {
      modules: parseCount(argv.modules, '--modules', 1),
      maxProps: parseCount(argv['max-props'], '--max-props', 1),
      seed: parseCount(argv.seed, '--seed', 0),
      depth: parseCount(argv.depth, '--depth', 1),
      esm: Boolean(argv.esModules),
    };
    if (options.seed > 0xffffffff) throw new UsageError(`invalid --seed "${argv.seed}": at most 4294967295`);
    const dir = path.resolve(ctx.cwd, argv.out || DEFAULT_OUT);
    // Lazy: only this command needs the generator.
    const { generateFixture } = require('../fixtures/generate.js');
    const summary = await generateFixture({ dir, ...options });

    if (argv.json) {
      ctx.stdout.write(JSON.stringify({ ...summary, ...options }) + '\n');
    } else if (!argv.quiet) {
      const shown = displayPath(summary.dir, ctx.cwd);
      const kind = options.esm ? 'ESM' : 'CommonJS';
      ctx.stdout.write(
        `fixture: ${summary.modules} ${kind} packages (depth ${options.depth}, seed ${options.seed}), ` +
          `${summary.files} files, ${size(summary.bytes)} in ${shown}; run it: cd ${shown} && node index.js\n`,
      );
    }
    return 0;
  },
};
