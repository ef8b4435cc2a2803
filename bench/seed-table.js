#!/usr/bin/env node
'use strict';
// The seed experiment's table, measured on this machine: the 1000-package fixture (seed 42) in
// three scenarios (plain require, regenerate into /tmp then require, 1 s of CPU as the control),
// each in fresh containers under runc and runsc (gVisor). Cells: median and standard deviation
// of `docker run` start -> the app's listening line. Prints a markdown table on stdout.
//
//   node bench/seed-table.js [-n 50] [--fixture DIR] [--html FILE] [--json FILE] [--base-image IMAGE]
//
// The scenarios (lib/bench/scenarios.js) are timed by bench's plan and runner directly: they are
// this benchmark's, not a flag of coldstart bench.
//
// Needs a Docker engine with runsc: run .ci/docker-up.sh first.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { parseCount } = require('../lib/options.js');
const { requireDocker, runscVersion, checkRuntimes } = require('../lib/docker.js');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { writeFileAtomic } = require('../lib/write-atomic.js');
const { runBenchPlan } = require('../lib/bench/bench-plan.js');
const { renderBenchHtml } = require('../lib/bench/chart.js');
const { progress } = require('../lib/report/terminal-format.js');

const ROWS = [['require', 'plain (require)'], ['regenerate', 'regenerate'], ['cpu', 'cpu (control)']];
const RUNTIMES = ['runc', 'runsc'];
const FIXTURE = { modules: 1000, seed: 42 };

function ms(value) {
  return value === null || value === undefined ? '–' : `${Math.round(value)}`;
}

/**
 * The markdown for a bench result of the three scenarios under both runtimes (pure).
 * @param {object} result the JSON document of `coldstart bench --json`
 * @param {{docker: string, runsc: string}} versions
 * @param {string} [fixture] how to name the fixture when it is not the generated one
 * @returns {string}
 */
function renderSeedTable(result, versions, fixture) {
  const find = (scenario, runtime) => result.series.find((s) => s.scenario === scenario && s.runtime === runtime);
  const lines = [];
  lines.push(`| scenario | ${RUNTIMES.map((r) => `${r}${r === 'runsc' ? ' (gVisor)' : ''}`).join(' | ')} |`);
  lines.push(`|---|${RUNTIMES.map(() => '---:').join('|')}|`);
  for (const [scenario, label] of ROWS) {
    const cells = RUNTIMES.map((runtime) => {
      const s = find(scenario, runtime);
      if (!s || !s.outside.length) return '–';
      const st = s.stats.outside;
      return `median ${ms(st.median)} ms, sd ${ms(st.stddev)} ms`;
    });
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  const n = result.series.length ? Math.min(...result.series.map((s) => s.outside.length)) : 0;
  const m = result.machine;
  lines.push('');
  lines.push(`${n} runs per cell after ${result.warmup} warm-up run${result.warmup === 1 ? '' : 's'}, samples interleaved across the six cells; `
    + 'time = `docker run` start to the app\'s listening line on stdout (container creation included), '
    + 'every run a fresh container with `--network none` and `/tmp` on a tmpfs. '
    + `Fixture: ${fixture || `\`coldstart fixture --modules ${FIXTURE.modules}\``}.`);
  lines.push(`Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}; Node ${m.node}; Docker ${versions.docker}; ${versions.runsc}.`);
  if (result.partial) lines.push('**Interrupted**: fewer runs than asked.');
  return lines.join('\n') + '\n';
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '50' },
      fixture: { type: 'string' },
      html: { type: 'string' },
      json: { type: 'string' },
      'base-image': { type: 'string', default: 'coldstart-node:local' },
    },
  });
  const runs = parseCount(values.runs, '-n');
  let docker;
  try {
    docker = await requireDocker();
    await checkRuntimes(RUNTIMES, 'runtime');
  } catch (err) {
    process.stderr.write(`seed-table: ${err.message}\n`);
    return 1;
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-seed-table-'));
  try {
    const fixture = values.fixture
      ? path.resolve(values.fixture)
      : (await generateFixture({ dir: path.join(scratch, 'fixture'), ...FIXTURE })).dir;
    const shown = progress({ stream: process.stderr, env: process.env });
    let result;
    try {
      result = await runBenchPlan({
        commands: [], scenarios: ROWS.map(([s]) => s), fixtureDir: fixture, inDocker: true, runtimes: RUNTIMES,
        baseImage: values['base-image'], cwd: process.cwd(), env: process.env, runs, warmup: 1,
        until: { mode: 'listen' }, timeoutMs: 60_000, onProgress: shown.phase,
      });
    } finally {
      shown.done();
    }
    if (values.json) writeFileAtomic(path.resolve(values.json), JSON.stringify(result, null, 2) + '\n');
    if (values.html) writeFileAtomic(path.resolve(values.html), renderBenchHtml(result));
    process.stdout.write(renderSeedTable(result, { docker: docker.version, runsc: runscVersion() },
      values.fixture && fixture));
    return result.partial ? 130 : 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) require('./run-as-script.js').runAsScript('seed-table', main);

module.exports = { main, renderSeedTable };
