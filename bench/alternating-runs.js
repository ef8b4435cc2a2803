'use strict';
// The loop the overhead benchmarks share: for each app and each Node given, run every series of
// a round once to warm the disk cache, then `runs` rounds, the series alternating within a round.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { parseCount } = require('../lib/options.js');
const { UsageError } = require('../lib/errors.js');

/** -n, --apps and --nodes as every overhead benchmark takes them. */
function parseRunArgs(argv, apps, defaultApps) {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '10' },
      apps: { type: 'string', default: defaultApps },
      nodes: { type: 'string', default: '' },
    },
  });
  const appNames = values.apps.split(',').filter(Boolean);
  for (const a of appNames) if (!apps[a]) throw new UsageError(`unknown app "${a}": use ${Object.keys(apps).join(', ')}`);
  return {
    runs: parseCount(values.runs, '-n'),
    appNames,
    nodeDirs: values.nodes ? values.nodes.split(',').map((d) => path.resolve(d)) : [path.dirname(process.execPath)],
  };
}

/**
 * @param {{ runs: number, appNames: string[], nodeDirs: string[] }} plan
 * @param {object} apps name -> async (scratch) => { name, cwd, command }
 * @param {Record<string, (app, env, scratch) => Promise<number>>} series each run's readyAt
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
        for (const one of Object.values(series)) await one(app, env, scratch);
        const row = { app: app.name, node: version };
        for (const key of Object.keys(series)) row[key] = [];
        for (let i = 0; i < plan.runs; i++) {
          for (const [key, one] of Object.entries(series)) row[key].push(await one(app, env, scratch));
          if (process.stderr.isTTY) process.stderr.write(`\r${app.name} ${version} ${i + 1}/${plan.runs}\x1b[K`);
        }
        rows.push(row);
      }
    }
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    return rows;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

module.exports = { parseRunArgs, alternatingRuns };
