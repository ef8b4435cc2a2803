'use strict';
// `coldstart fixture`: writes the seed experiment's app (N generated packages) to benchmark against.
const path = require('node:path');
const { parseCount } = require('../options.js');
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
  describe: 'write a generated app with N packages in node_modules (the seed benchmark): each package exports one object of 1 to 100 random properties, index.js requires them all and listens; always the same files for the same options (seed 42)',
  builder(yargs) {
    return yargs
      .option('modules', { requiresArg: true, default: 1000, describe: 'number of generated packages' })
      .option('es-modules', { type: 'boolean', default: false, describe: 'ES modules (import) instead of CommonJS (require)' })
      .option('out', { type: 'string', requiresArg: true, default: DEFAULT_OUT, describe: 'directory to create (must not exist or be empty)' })
      .example('# then: cd w1 && node index.js', '').example('$0 fixture --modules 1000 --out ./w1', '');
  },
  async run(argv, ctx) {
    // Lazy: only this command needs the generator. Its defaults make the seed experiment's app;
    // generatorOptions, the internal value of old flags (lib/deprecated-flags.js), can change them.
    const { generateFixture, DEFAULTS } = require('../fixtures/generate.js');
    const { maxProps, seed, depth } = { ...DEFAULTS, ...argv.generatorOptions };
    const options = { modules: parseCount(argv.modules, '--modules', 1), maxProps, seed, depth, esm: Boolean(argv.esModules) };
    const dir = path.resolve(ctx.cwd, argv.out || DEFAULT_OUT);
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
