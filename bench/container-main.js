'use strict';
// What the container benchmarks share: their common options (--runtimes, --base-image, --json,
// --verbose, --help) and their main once parsed: --help, containers stopped on Ctrl-C, progress
// with --verbose, the markdown on stdout and the report as JSON with --json.
const path = require('node:path');
const { parseArgs } = require('node:util');
const { stopAllContainers } = require('../lib/docker.js');
const { UsageError } = require('../lib/errors.js');
const { isGvisor } = require('../lib/gvisor.js');
const { writeFileAtomic } = require('../lib/write-atomic.js');

const COMMON_OPTIONS = {
  runtimes: { type: 'string', default: 'runc,runsc' },
  'base-image': { type: 'string', default: 'coldstart-node:local' },
  json: { type: 'string' },
  verbose: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
};

/**
 * @param {string[]} argv
 * @param {object} options the script's own options, for util.parseArgs
 * @returns {{ values: object, runtimes: string[] }}
 * @throws {UsageError} an unknown or malformed option, or a runtime other than runc and gVisor's
 *   (runsc, runsc-2024, ...: whether the engine has it is checked when the benchmark runs)
 */
function parseContainerBenchArgs(argv, options) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...options } }));
  } catch (err) {
    throw new UsageError(err.message);
  }
  const runtimes = values.runtimes.split(',').filter(Boolean);
  const unknown = runtimes.find((rt) => rt !== 'runc' && !isGvisor(rt));
  if (unknown) throw new UsageError(`unknown runtime ${unknown}: runc, runsc, runsc-2024 (a gVisor build the engine registers)`);
  return { values, runtimes };
}

/**
 * @param {string} name the script's name, for its stderr lines
 * @param {{ help: boolean, verbose: boolean, json?: string }} options parsed, passed on to runBenchmark
 * @param {{ usage: string, runBenchmark: (o: object) => Promise<object>, renderMarkdown: (r: object) => string }} bench
 * @returns {Promise<number>} the exit code
 */
async function containerBenchMain(name, options, { usage, runBenchmark, renderMarkdown }) {
  if (options.help) {
    process.stdout.write(usage);
    return 0;
  }
  process.once('SIGINT', () => {
    process.stderr.write(`${name}: interrupted, stopping containers\n`);
    stopAllContainers().finally(() => process.exit(130));
  });
  const onProgress = options.verbose ? (line) => process.stderr.write(`${name}: ${line}\n`) : undefined;
  const report = await runBenchmark({ ...options, onProgress });
  process.stdout.write(renderMarkdown(report));
  if (options.json) writeFileAtomic(path.resolve(options.json), JSON.stringify(report, null, 2) + '\n');
  return 0;
}

module.exports = { parseContainerBenchArgs, containerBenchMain };
