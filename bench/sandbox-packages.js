#!/usr/bin/env node
'use strict';
// Where gVisor (runsc) punishes startup, package by package: `coldstart profile` of the same app
// on the host, in a container under runc and under runsc (`profile --docker`), runs alternating,
// and each package's own time (selfMs + gcMs) in the three places. Prints markdown.
//
//   node bench/sandbox-packages.js [-n 3] [--warmup 1] [--apps express,otel] [--out DIR] [--verbose]
//
// Apps: express (fixtures/express-app, `node server.js`) and otel (fixtures/otel-express, express
// traced by OpenTelemetry from `--require ./tracing.js`). Each is assembled once (the fixture plus
// its packages from the repository's node_modules, assembleContext) and built into an image FROM
// coldstart-node:local (WORKDIR /app, CMD the start command), tagged with this process's pid and
// removed at the end. The host runs start from that same assembled directory, so paths and
// node_modules match the image's. Every container runs with --network none (profile --docker does
// that). Needs the engine and base image from .ci/docker-up.sh. --out DIR keeps every report.json
// (DIR/<app>/<place>-<i>.json); otherwise they go with the scratch directory.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const {
  docker, requireDocker, buildImage, assembleContext, removeImages, runscVersion,
} = require('../lib/docker.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { median } = require('../lib/stats.js');
const { parseCount } = require('../lib/options.js');
const { UsageError } = require('../lib/errors.js');
const { CATEGORIES } = require('../lib/analyze/cpuprofile-categories.js');
const { spawnCli } = require('../test/helpers/app.js');
const { APPS: STARTUP_APPS } = require('./docker-startup.js');

const USAGE = `usage: node bench/sandbox-packages.js [-n 3] [--warmup 1] [--apps express,otel] [--out DIR]
  [--base-image coldstart-node:local] [--verbose]
`;
const REPO = path.resolve(__dirname, '..');
const BASE_IMAGE = 'coldstart-node:local';
const PLACES = ['host', 'runc', 'runsc'];
const TOP = 12;

// The container gets none of this machine's environment: the host runs leave out the variables
// that change how Node starts (NODE_EXTRA_CA_CERTS alone adds tens of ms of certificate loading).
const HOST_ONLY_ENV = Object.keys(process.env).filter((key) => /^NODE_/.test(key)).sort();
const CLEAN_ENV = Object.fromEntries(HOST_ONLY_ENV.map((key) => [key, undefined]));

/** The apps: fixture directory, start command (run from the app's directory), label. */
const APPS = {
  express: { fixture: 'express-app', command: ['node', 'server.js'], label: 'express fixture' },
  otel: { fixture: 'otel-express', command: STARTUP_APPS['otel-express'].command, label: 'express + OpenTelemetry (--require)' },
};

const DOCKERFILE = (command) => 'ARG NODE_IMAGE=node:20-slim\nFROM ${NODE_IMAGE}\nWORKDIR /app\nCOPY . .\n'
  + `CMD ${JSON.stringify(command)}\n`;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '3' },
      warmup: { type: 'string', default: '1' },
      apps: { type: 'string', default: 'express,otel' },
      out: { type: 'string' },
      'base-image': { type: 'string', default: BASE_IMAGE },
      verbose: { type: 'boolean', short: 'v', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const apps = values.apps.split(',').map((s) => s.trim()).filter(Boolean);
  for (const a of apps) if (!APPS[a]) throw new UsageError(`unknown app "${a}": use ${Object.keys(APPS).join(', ')}`);
  return {
    help: values.help,
    runs: parseCount(values.runs, '-n', 1),
    warmup: parseCount(values.warmup, '--warmup', 0),
    apps,
    out: values.out ? path.resolve(values.out) : null,
    baseImage: values['base-image'],
    verbose: values.verbose,
  };
}

// ---------------------------------------------------------------------------------------------
// The runs

/**
 * One `coldstart <args>` as a child process; its stdout. Ctrl-C reaches it through `state.child`.
 * @throws {Error} with the end of its stderr when it exits non-zero
 */
async function cli(args, cwd, state) {
  if (state.interrupted) throw new Error('interrupted');
  const run = spawnCli(args, { cwd, env: CLEAN_ENV });
  state.child = run.child;
  state.pids.push(run.child.pid);
  const { code, signal, stdout, stderr } = await run.done;
  state.child = null;
  if (code !== 0) {
    throw new Error(`coldstart ${args.join(' ')} ended with ${code === null ? signal : `exit ${code}`}:\n`
      + stderr.trim().split('\n').slice(-8).join('\n'));
  }
  return stdout;
}

/** One profile of the app in one place; its report.json. */
async function profileOnce({ place, app, image, contextDir, outDir }, state) {
  const args = place === 'host'
    ? ['profile', '--quiet', '--out', outDir, '--', ...app.command]
    : ['profile', '--quiet', '--docker', image, '--runtime', place, '--out', outDir];
  await cli(args, place === 'host' ? contextDir : path.dirname(outDir), state);
  return JSON.parse(fs.readFileSync(path.join(outDir, 'report.json'), 'utf8'));
}

/** Builds the app's image from its assembled context; returns the context directory. */
async function prepareApp(name, { workDir, baseImage, tag, onProgress }) {
  const app = APPS[name];
  const appDir = path.join(workDir, name);
  const assembled = assembleContext({
    app: path.join(REPO, 'fixtures', app.fixture), into: path.join(appDir, 'app'),
    nodeModules: path.join(REPO, 'node_modules'), coldstart: false,
  });
  const dockerfile = path.join(appDir, 'Dockerfile');
  fs.writeFileSync(dockerfile, DOCKERFILE(app.command));
  onProgress(`building ${tag} (${app.fixture}: ${assembled.packages.length} packages)`);
  const built = await buildImage({ context: assembled.dir, dockerfile, tag, buildArgs: { NODE_IMAGE: baseImage }, timeoutMs: 240_000 });
  onProgress(`built ${tag} in ${(built.ms / 1000).toFixed(1)} s`);
  return { contextDir: assembled.dir, packages: assembled.packages.length };
}

/** Containers the CLI children started (named coldstart-run-<their pid>-N), removed if any is left. */
async function removeLeftoverContainers(pids) {
  const names = [];
  for (const pid of pids) {
    const r = await docker(['ps', '-a', '--filter', `name=coldstart-run-${pid}-`, '--format', '{{.Names}}']).catch(() => null);
    if (r) names.push(...r.stdout.trim().split('\n').filter(Boolean));
  }
  if (names.length) await docker(['rm', '--force', ...names], { timeoutMs: 30_000 }).catch(() => {});
  return names;
}

/**
 * Builds the images, then profiles each app `warmup + runs` times in each place, host, runc and
 * runsc alternating within a round; the warm-up rounds are left out.
 * @returns {Promise<{machine: object, loadAtStart: number[], loadAtEnd: number[], seconds: number,
 *   runs: number, warmup: number, apps: {name: string, label: string, command: string[], packages: number,
 *   reports: Record<string, object[]>, diff: ?string}[]}>}
 */
async function runBenchmark(options, state) {
  const { runs, warmup, apps, out, baseImage, onProgress = () => {} } = options;
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const engine = await requireDocker();
  const machine = { ...describeMachine(), docker: engine.version, runsc: runscVersion(), kernel: os.release() };
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-sandbox-'));
  const tags = [];
  try {
    const prepared = {};
    for (const name of apps) {
      if (state.interrupted) throw new Error('interrupted');
      const tag = `coldstart-bench-sandbox-${name}:${process.pid}`;
      tags.push(tag);
      prepared[name] = { tag, ...(await prepareApp(name, { workDir, baseImage, tag, onProgress })) };
    }
    const results = [];
    for (const name of apps) {
      const app = APPS[name];
      const { tag, contextDir, packages } = prepared[name];
      const reports = Object.fromEntries(PLACES.map((p) => [p, []]));
      const dirs = Object.fromEntries(PLACES.map((p) => [p, []]));
      for (let round = 0; round < warmup + runs; round++) {
        const kept = round >= warmup;
        for (const place of PLACES) {
          const outDir = path.join(workDir, name, 'out', `${place}-${kept ? round - warmup + 1 : `warmup${round + 1}`}`);
          const report = await profileOnce({ place, app, image: tag, contextDir, outDir }, state);
          onProgress(`${name} ${kept ? `run ${round - warmup + 1}/${runs}` : 'warm-up'} ${place}: ready at ${report.readyAt.toFixed(1)} ms`);
          if (!kept) continue;
          reports[place].push(report);
          dirs[place].push(outDir);
          if (out) {
            fs.mkdirSync(path.join(out, name), { recursive: true });
            fs.copyFileSync(path.join(outDir, 'report.json'), path.join(out, name, `${place}-${reports[place].length}.json`));
          }
        }
      }
      // The tool's own side-by-side, as an example: the first kept host run against the first runsc one.
      const diff = name === 'express'
        ? await cli(['diff', ...[dirs.host[0], dirs.runsc[0]].map((d) => path.basename(d))], path.dirname(dirs.host[0]), state)
        : null;
      results.push({ name, label: app.label, command: app.command, packages, reports, diff });
    }
    return { machine, loadAtStart, loadAtEnd: os.loadavg(), seconds: (Date.now() - started) / 1000, runs, warmup, apps: results };
  } finally {
    const left = await removeLeftoverContainers(state.pids);
    if (left.length) process.stderr.write(`sandbox-packages: removed ${left.length} leftover container(s): ${left.join(', ')}\n`);
    await removeImages(tags);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The figures

const ownMs = (p) => (Number(p.selfMs) || 0) + (Number(p.gcMs) || 0);

/**
 * Each package's own time in each place over the runs (ms per run; a run that did not load it
 * contributes nothing), its module count, and the median of each.
 * @param {Record<string, object[]>} reports place -> report.json documents
 */
function packageFigures(reports) {
  const byName = new Map();
  for (const place of PLACES) {
    for (const report of reports[place]) {
      for (const p of report.packages || []) {
        if (!byName.has(p.name)) byName.set(p.name, { name: p.name, modules: {}, own: Object.fromEntries(PLACES.map((x) => [x, []])) });
        const row = byName.get(p.name);
        row.own[place].push(ownMs(p));
        (row.modules[place] = row.modules[place] || []).push(p.modules || 0);
      }
    }
  }
  return [...byName.values()].map((row) => {
    const med = Object.fromEntries(PLACES.map((x) => [x, row.own[x].length ? median(row.own[x]) : null]));
    const counts = [...new Set(Object.values(row.modules).flat())].sort((a, b) => a - b);
    return { name: row.name, modules: counts, runs: Object.fromEntries(PLACES.map((x) => [x, row.own[x].length])), own: med };
  });
}

/** Total own time of all packages, per run, then its median in each place. */
function totalOwn(reports) {
  return Object.fromEntries(PLACES.map((place) => [place, median(reports[place].map((r) => (r.packages || []).reduce((s, p) => s + ownMs(p), 0)))]));
}

/** Spearman's rank correlation of two equally long lists (average ranks for ties). */
function spearman(xs, ys) {
  const rank = (v) => {
    const order = v.map((x, i) => [x, i]).sort((a, b) => a[0] - b[0]);
    const r = new Array(v.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
      for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  const [a, b] = [rank(xs), rank(ys)];
  const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
  const [ma, mb] = [mean(a), mean(b)];
  let num = 0; let da = 0; let db = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i] - ma) * (b[i] - mb);
    da += (a[i] - ma) ** 2;
    db += (b[i] - mb) ** 2;
  }
  return da && db ? num / Math.sqrt(da * db) : null;
}

const f1 = (n) => (n == null ? '–' : n.toFixed(1));
const f2 = (n) => (n == null ? '–' : n.toFixed(2));
const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
const spread = (values) => `${f1(median(values))} (${f1(Math.min(...values))}–${f1(Math.max(...values))})`;

/** The markdown (pure). */
function renderMarkdown(result) {
  const { machine, runs, warmup } = result;
  const lines = [];
  lines.push(`### Time to ready (readyAt, ms): median (min–max) of ${runs} runs`, '',
    '| app | host | runc | runsc | runsc / host |', '|---|---:|---:|---:|---:|');
  for (const app of result.apps) {
    const ready = Object.fromEntries(PLACES.map((p) => [p, app.reports[p].map((r) => r.readyAt)]));
    lines.push(`| ${app.label} | ${PLACES.map((p) => spread(ready[p])).join(' | ')} | ×${f1(median(ready.runsc) / median(ready.host))} |`);
  }
  lines.push('', 'readyAt: process start to listen, measured inside the app by the profiler (the attach pause left out); in a '
    + 'container that is inside the container, so creating it and starting the sandbox are not in it.');

  const shown = CATEGORIES.filter((k) => result.apps.some((app) => PLACES.some((p) => app.reports[p].some((r) => r.categories && r.categories[k] > 0))));
  lines.push('', `### By category (CPU profile, ms): median of ${runs} runs`, '',
    `| app | place | ${shown.join(' | ')} | profiled in all |`, `|---|---|${shown.map(() => '---:|').join('')}---:|`);
  for (const app of result.apps) {
    for (const place of PLACES) {
      const of = (key) => median(app.reports[place].map((r) => (r.categories && r.categories[key]) || 0));
      lines.push(`| ${app.label} | ${place} | ${shown.map((k) => f1(of(k))).join(' | ')} | ${f1(of('totalMs'))} |`);
    }
  }

  for (const app of result.apps) {
    const rows = packageFigures(app.reports);
    const both = rows.filter((r) => r.own.host != null && r.own.runsc != null);
    const top = [...both].sort((a, b) => b.own.runsc - a.own.runsc).slice(0, TOP);
    const modules = (r) => r.modules.join('/');
    const perModule = (r, place) => (r.modules.length ? r.own[place] / r.modules[r.modules.length - 1] : null);
    lines.push('', `### ${app.label}: \`${app.command.join(' ')}\`, top ${top.length} of ${both.length} packages by own time under runsc`, '',
      '| package | modules | host own ms | runc own ms | runsc own ms | runsc / host | ms per module, host → runsc |',
      '|---|---:|---:|---:|---:|---:|---:|');
    for (const r of top) {
      const factor = r.own.host > 0 ? `×${f1(r.own.runsc / r.own.host)}` : '–';
      lines.push(`| ${r.name} | ${modules(r)} | ${f1(r.own.host)} | ${f1(r.own.runc)} | ${f1(r.own.runsc)} | ${factor} | ${f2(perModule(r, 'host'))} → ${f2(perModule(r, 'runsc'))} |`);
    }
    const total = totalOwn(app.reports);
    const allModules = median(app.reports.runsc.map((r) => (r.packages || []).reduce((s, p) => s + (p.modules || 0), 0)));
    lines.push(`| all ${both.length} packages | ${allModules} | ${f1(total.host)} | ${f1(total.runc)} | ${f1(total.runsc)} | ×${f1(total.runsc / total.host)} | ${f2(total.host / allModules)} → ${f2(total.runsc / allModules)} |`);
    const counted = both.filter((r) => r.modules.length);
    const rho = spearman(counted.map((r) => r.modules[r.modules.length - 1]), counted.map((r) => r.own.runsc - r.own.host));
    const rhoFactor = spearman(counted.map((r) => r.modules[r.modules.length - 1]), counted.map((r) => (r.own.host > 0 ? r.own.runsc / r.own.host : 0)));
    lines.push('', `Over all ${counted.length} packages: Spearman rank correlation of module count with the added time (runsc − host) ${f2(rho)}, `
      + `with the factor ${f2(rhoFactor)}. ${app.packages} packages in node_modules.`);
  }

  const example = result.apps.find((a) => a.diff);
  if (example) {
    lines.push('', `### \`coldstart diff\` of one host report against one runsc report (${example.label})`, '', '```text',
      example.diff.replace(/\s+$/, ''), '```');
  }
  lines.push('',
    `Own time: selfMs + gcMs of the report's \`packages[]\` entries (the time spent in the package's own files), median over ${runs} runs per place; `
    + `modules: files the package loaded (two figures when the places differ). Each run is a separate \`coldstart profile\` command `
    + `(host: in the assembled app directory; runc and runsc: \`profile --docker IMAGE --runtime …\`, a fresh container, --network none), `
    + `host, runc and runsc alternating within a round, after ${warmup} warm-up round${warmup === 1 ? '' : 's'} left out.`,
    `Host runs without ${HOST_ONLY_ENV.length ? HOST_ONLY_ENV.join(', ') : 'any NODE_* variable (none set)'}, as the container has none of the host's environment. `
    + `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, kernel ${machine.kernel}; node ${machine.node} (host and image); `
    + `docker ${machine.docker}; ${machine.runsc}.`,
    `Load average at the start ${load(result.loadAtStart)}, at the end ${load(result.loadAtEnd)}; ${Math.round(result.seconds)} s in all.`, '');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The command line

async function main(argv = process.argv.slice(2)) {
  const options = parseOptions(argv);
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const showProgress = options.verbose || (process.stderr.isTTY && !process.env.CI);
  const onProgress = showProgress ? (line) => process.stderr.write(`sandbox-packages: ${line}\n`) : undefined;
  const state = { child: null, pids: [], interrupted: false };
  // Ctrl-C: the running coldstart stops its container; the finally of runBenchmark removes the images.
  process.once('SIGINT', () => {
    state.interrupted = true;
    process.stderr.write('sandbox-packages: interrupted, stopping\n');
    if (state.child) state.child.kill('SIGINT');
  });
  try {
    const result = await runBenchmark({ ...options, onProgress }, state);
    process.stdout.write(renderMarkdown(result));
    return 0;
  } catch (err) {
    if (state.interrupted) return 130;
    throw err;
  }
}

if (require.main === module) require('./run-as-script.js').runAsScript('sandbox-packages', main);

module.exports = { main, runBenchmark, renderMarkdown, packageFigures, spearman, removeLeftoverContainers, APPS };
