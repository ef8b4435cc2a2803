'use strict';
// The loop the overhead benchmarks share: for each app and each Node given, one uncounted round to
// warm the disk cache, then `runs` rounds, one run of every series each, in an order drawn at
// random each round (lib/measure/alternate-runs.js, the engine bench and check measure with).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { parseCount } = require('../lib/options.js');
const { UsageError } = require('../lib/errors.js');
const { alternateRuns } = require('../lib/measure/alternate-runs.js');

/**
 * -n, --apps and --nodes as every overhead benchmark takes them; `flags`: a benchmark's own
 * boolean flags (parseArgs options), their values in the plan's `flags`.
 */
function parseRunArgs(argv, apps, defaultApps, flags = {}) {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '10' },
      apps: { type: 'string', default: defaultApps },
      nodes: { type: 'string', default: '' },
      ...flags,
    },
  });
  const appNames = values.apps.split(',').filter(Boolean);
  for (const a of appNames) if (!apps[a]) throw new UsageError(`unknown app "${a}": use ${Object.keys(apps).join(', ')}`);
  return {
    runs: parseCount(values.runs, '-n'),
    appNames,
    nodeDirs: values.nodes ? values.nodes.split(',').map((d) => path.resolve(d)) : [path.dirname(process.execPath)],
    flags: Object.fromEntries(Object.keys(flags).map((k) => [k, values[k]])),
  };
}

/**
 * @param {{ runs: number, appNames: string[], nodeDirs: string[] }} plan
 * @param {object} apps name -> async (scratch) => { name, cwd, command }
 * @param {Record<string, (app, env, scratch) => Promise<number>>} series each run's readyAt; a
 *   round runs each once, in an order drawn at random
 * @returns {Promise<Array<{ app: string, node: string } & Record<string, number[]>>>} one row per app and Node
 */
async function alternatingRuns(plan, apps, series, tmpPrefix) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  try {
    const rows = [];
    for (const name of plan.appNames) {
      const app = await apps[name](scratch);
      for (const dir of plan.nodeDirs) {
        const env = { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH}` };
        const version = execFileSync(path.join(dir, 'node'), ['--version'], { encoding: 'utf8' }).trim();
        const { samples } = await alternateRuns({
          variants: Object.entries(series).map(([name, one]) => ({ name, run: () => one(app, env, scratch) })),
          rounds: plan.runs,
          warmup: 1,
          onRun: ({ round, warmup }) => {
            if (process.stderr.isTTY) process.stderr.write(`\r${app.name} ${version} ${warmup ? 'warm-up' : `${round + 1}/${plan.runs}`}\x1b[K`);
          },
        });
        rows.push({ app: app.name, node: version, ...samples });
      }
    }
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    return rows;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

module.exports = { parseRunArgs, alternatingRuns };
