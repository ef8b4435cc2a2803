#!/usr/bin/env node
'use strict';
// How an app's modules could be compiled before they run, in a container under runc and gVisor
// (runsc): one vm.Script per module with its own code cache (what `coldstart start` does with
// `pack --code-cache`), every module a function in one script with one code cache (a "module
// image"), and the modules evaluated at image build into a V8 startup snapshot. The same small
// loader runs all three (bench/docker/module-image.cjs), so only the compile step differs; plain
// `node index.js` and a bare Node that listens frame them. Each sample is a fresh container; the
// figure is the app's own, from process start to its listening line (performance.now() inside).
// Each variant also reports the file a module's stack frame names: its own, or the image's.
// Needs the engine and base image from .ci/docker-up.sh. Prints a markdown table on stdout.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { requireDocker, buildImage, runContainer, removeImages, runscVersion } = require('../lib/docker.js');
const { medianInterval } = require('../lib/stats.js');
const { formatMs } = require('../lib/report/terminal-format.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { parseCount } = require('../lib/options.js');
const { parseContainerBenchArgs, containerBenchMain } = require('./container-main.js');

const USAGE = `usage: node bench/module-image.js [--runs 10] [--runtimes runc,runsc] [--modules 1000]
  [--seed 42] [--base-image coldstart-node:local] [--json FILE] [--keep-image] [--verbose]
`;
const HELPER = path.join(__dirname, 'docker', 'module-image.cjs');
const VARIANTS = {
  bare: { label: 'bare Node that listens', args: ['node', 'module-image.cjs', 'bare'] },
  plain: { label: 'plain `node index.js`', args: ['node', '-r', './module-image.cjs', 'index.js'], env: { MODULE_IMAGE_PLAIN: '1' } },
  'per-module': { label: 'one vm.Script and code cache per module', args: ['node', 'module-image.cjs', 'per-module'] },
  image: { label: 'module image: one script, one code cache', args: ['node', 'module-image.cjs', 'image'] },
  snapshot: { label: 'startup snapshot of the evaluated modules', args: ['node', '--snapshot-blob', '.image/graph.blob'] },
};
const READY = /ready ([\d.]+) frame (\S+)/;

async function prepareImage({ modules, seed, baseImage, tag, onProgress }) {
  const context = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-module-image-'));
  try {
    await generateFixture({ dir: path.join(context, 'app'), modules, seed });
    fs.copyFileSync(HELPER, path.join(context, 'app', 'module-image.cjs'));
    fs.writeFileSync(path.join(context, 'Dockerfile'), [
      'ARG NODE_IMAGE=node:24-slim',
      'FROM ${NODE_IMAGE}',
      'WORKDIR /app',
      'COPY app/ /app/',
      'RUN node module-image.cjs prepare',
      '',
    ].join('\n'));
    onProgress(`building ${tag} (${modules} modules)`);
    await buildImage({ context, tag, buildArgs: { NODE_IMAGE: baseImage } });
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
}

async function sampleOnce(image, runtime, variant) {
  const { args, env = {} } = VARIANTS[variant];
  const r = await runContainer({ image, runtime, args, env, until: READY, timeoutMs: 60_000 });
  const m = READY.exec(r.stdout);
  if (!m) throw new Error(`${variant} under ${runtime} printed no ready line (exit ${r.code}):\n${(r.stdout + r.stderr).slice(-2000)}`);
  return { ms: Number(m[1]), frame: m[2] };
}

async function runBenchmark({ runs, warmup, runtimes, modules, seed, baseImage, keepImage, onProgress = () => {} }) {
  const docker = await requireDocker();
  const tag = `coldstart-module-image:${process.pid}`;
  const variants = Object.keys(VARIANTS);
  const samples = Object.fromEntries(runtimes.map((rt) => [rt, Object.fromEntries(variants.map((v) => [v, []]))]));
  const frames = {};
  const load = [os.loadavg()[0]];
  await prepareImage({ modules, seed, baseImage, tag, onProgress });
  try {
    // Rounds interleave runtimes and variants, so drift spreads over all of them.
    for (let round = 0; round < warmup + runs; round++) {
      for (const runtime of runtimes) {
        for (const variant of variants) {
          const s = await sampleOnce(tag, runtime, variant);
          frames[variant] = s.frame;
          if (round >= warmup) samples[runtime][variant].push(s.ms);
        }
      }
      onProgress(`round ${round + 1} of ${warmup + runs}`);
    }
  } finally {
    if (!keepImage) await removeImages([tag]);
  }
  load.push(os.loadavg()[0]);
  return {
    modules, runs, runtimes, frames, samples, load,
    machine: { ...describeMachine(), docker: docker.version, runsc: runtimes.includes('runsc') ? runscVersion() : null },
  };
}

function renderMarkdown(report) {
  const { runtimes, samples, modules, frames } = report;
  const cell = (xs) => {
    const mi = medianInterval(xs);
    return mi.low == null ? formatMs(mi.median) : `${formatMs(mi.median)} [${formatMs(mi.low)}–${formatMs(mi.high)}]`;
  };
  const perModule = (rt, v) => (v === 'bare' ? '—' : ((medianInterval(samples[rt][v]).median - medianInterval(samples[rt].bare).median) / modules).toFixed(3));
  const head = ['variant', ...runtimes.flatMap((rt) => [`${rt} ms`, `${rt} ms/module`]), 'a module\'s stack frame names'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 || i === head.length - 1 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const v of Object.keys(VARIANTS)) {
    const frame = v === 'bare' ? '—' : `\`${frames[v]}\``;
    lines.push(`| ${VARIANTS[v].label} | ${runtimes.flatMap((rt) => [cell(samples[rt][v]), perModule(rt, v)]).join(' | ')} | ${frame} |`);
  }
  const m = report.machine;
  return [
    `In-process time to listen (ms, from process start): median [95% interval of the median] of ${report.runs} runs, fresh container each; per module: (variant − bare) / ${modules}.`,
    '',
    ...lines,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores; node ${m.node}; docker ${m.docker}${m.runsc ? `; ${m.runsc}` : ''}; load average ${report.load.map((x) => x.toFixed(1)).join(' → ')}.`,
    '',
  ].join('\n');
}

function parseOptions(argv) {
  const { values, runtimes } = parseContainerBenchArgs(argv, {
    runs: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '1' },
    modules: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '42' },
    'keep-image': { type: 'boolean', default: false },
  });
  return {
    help: values.help,
    runs: parseCount(values.runs, '--runs', 1),
    warmup: parseCount(values.warmup, '--warmup', 0),
    runtimes,
    modules: parseCount(values.modules, '--modules', 1),
    seed: parseCount(values.seed, '--seed', 0),
    baseImage: values['base-image'],
    json: values.json,
    keepImage: values['keep-image'],
    verbose: values.verbose,
  };
}

async function main(argv = process.argv.slice(2)) {
  return containerBenchMain('module-image', parseOptions(argv), { usage: USAGE, runBenchmark, renderMarkdown });
}

if (require.main === module) require('./run-as-script.js').runAsScript('module-image', main);

module.exports = { main, runBenchmark, renderMarkdown, VARIANTS };
