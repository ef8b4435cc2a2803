#!/usr/bin/env node
'use strict';
// What reading the clock costs a Node start in a sandbox. Two parts:
//   1. The probe (bench/docker/clock-probe.cjs) in a fresh container per run, under runc and
//      gVisor (runsc, runsc-2024): the cost of one monotonic clock read and of compiling a small script with its own
//      file name (vm.Script) or without (indirect eval), in the process's first milliseconds and
//      again once a clock read is cheap, and the moment it becomes cheap.
//   2. With --image (an image from `bench/docker-startup.js --keep-image --tag TAG`): a bare node
//      listening, the app's plain start, `coldstart start` with the code cache, the startup
//      snapshot and the ncc bundle, each with the kernel's clock and with clock reads answered in
//      user space (bench/docker/clock-preload.c, built here with cc), runs interleaved; in-process
//      time to listen, the main thread's clock reads, and page faults and CPU time at listen. The
//      difference is what those reads cost the start.
// Needs the engine and base image from .ci/docker-up.sh. Prints markdown on stdout.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { requireDocker, checkRuntimes, docker, runContainer, runscVersion } = require('../lib/docker.js');
const { isGvisor } = require('../lib/gvisor.js');
const { medianInterval, compareSamples, formatSignedMs } = require('../lib/stats.js');
const { formatMs } = require('../lib/report/terminal-format.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { UsageError } = require('../lib/errors.js');
const { parseCount } = require('../lib/options.js');
const { splitShellWords } = require('../lib/shell-words.js');
const { parseContainerBenchArgs, containerBenchMain } = require('./container-main.js');
const { LISTEN_UPTIME_FILE, LISTEN_LINE, RUSAGE_LINE, listenProbeArgs } = require('./in-process-clock.js');

const USAGE = `usage: node bench/sandbox-clock.js [--runs 8] [--runtimes runc,runsc,runsc-2024]
  [--base-image coldstart-node:local] [--image TAG [--command 'node server.js']
  [--variants bare,plain,start,snapshot,bundle]] [--json FILE] [--verbose]

--runtimes: runc and the gVisor builds the engine registers (runsc, runsc-2024); default runc,runsc.
--command: the app's command in the image (default: the image's CMD).
--variants: which starts of the app to run (default all): a bare node listening, plain, \`coldstart
  start\` with the code cache, the snapshot, the ncc bundle.
`;
const HERE = path.join(__dirname, 'docker');
const MOUNT = '/clock-bench';
const PROBE_LINE = /clock-probe (\{.*\})/;
const READS_LINE = /clock-preload reads (\d+)/;
// The paths bench/docker/Dockerfile.startup gives the archive with code cache and the snapshot.
const COLDSTART = 'node_modules/coldstart/bin/coldstart.js';
const ARCHIVE = '/startup-cache.tar';
const SNAPSHOT = '/snapshot/startup.blob';
const BUNDLE_DIR = '/bundle';
const VARIANTS = ['bare', 'plain', 'start', 'snapshot', 'bundle'];

/** A bare node listening (the floor) and the three starts of an image's app, each preloading the listen probe. */
function appVariants(command) {
  const [node, ...rest] = command;
  const probe = listenProbeArgs(`${MOUNT}/${path.basename(LISTEN_UPTIME_FILE)}`);
  return {
    bare: { label: 'a bare node listening (the floor)', args: [node, ...probe, '-e', "require('http').createServer().listen(8080)"] },
    plain: { label: `plain \`${command.join(' ')}\``, args: [node, ...probe, ...rest] },
    start: { label: '`coldstart start --trust-archive`, archive made with `pack --code-cache`',
      args: [node, ...probe, COLDSTART, 'start', '--archive', ARCHIVE, '--trust-archive', '--', ...command] },
    snapshot: { label: '`pack --snapshot-blob`, `COLDSTART_VERIFY=none`',
      args: [node, '--snapshot-blob', SNAPSHOT, ...probe, ...rest], env: { COLDSTART_VERIFY: 'none' } },
    bundle: { label: `ncc bundle (\`coldstart bundle\`), in ${BUNDLE_DIR}`, args: [node, ...probe, ...rest], dockerArgs: ['--workdir', BUNDLE_DIR] },
  };
}

async function imageCommand(image) {
  const out = await docker(['image', 'inspect', '--format', '{{json .Config.Cmd}}', image]);
  const cmd = JSON.parse(out.stdout.trim() || 'null');
  if (!Array.isArray(cmd) || cmd[0] !== 'node') throw new UsageError(`${image}: its CMD is not a node command (${out.stdout.trim()})`);
  return cmd;
}

function buildPreload(dir) {
  const out = path.join(dir, 'clock-preload.so');
  try {
    execFileSync('cc', ['-O2', '-shared', '-fPIC', '-o', out, path.join(HERE, 'clock-preload.c'), '-ldl'], { stdio: 'pipe' });
  } catch (err) {
    throw new UsageError(`--image needs a C compiler (cc) to build bench/docker/clock-preload.c: ${String(err.stderr || err.message).trim().split('\n')[0]}`);
  }
}

async function runProbe({ runs, runtimes, baseImage, mountArgs, onProgress }) {
  const samples = Object.fromEntries(runtimes.map((rt) => [rt, []]));
  for (let round = 0; round < runs; round++) {
    for (const runtime of runtimes) {
      const r = await runContainer({ image: baseImage, runtime, args: ['node', `${MOUNT}/clock-probe.cjs`], dockerArgs: mountArgs, until: PROBE_LINE, timeoutMs: 60_000 });
      const m = PROBE_LINE.exec(r.stdout);
      if (!m) throw new Error(`the clock probe under ${runtime} printed no result (exit ${r.code}):\n${(r.stdout + r.stderr).slice(-2000)}`);
      samples[runtime].push(JSON.parse(m[1]));
    }
    onProgress(`probe round ${round + 1} of ${runs}`);
  }
  return samples;
}

async function runApp({ runs, runtimes, image, command, variants: names = VARIANTS, mountArgs, onProgress }) {
  const all = appVariants(command || await imageCommand(image));
  const variants = Object.fromEntries(names.map((name) => [name, all[name]]));
  const clocks = { kernel: {}, user: { CLOCK_PRELOAD_FAST: '1' } };
  const samples = {};
  for (const rt of runtimes) for (const v of Object.keys(variants)) for (const c of Object.keys(clocks)) samples[`${rt}/${v}/${c}`] = { ms: [], reads: [], rusage: [] };
  // One warm-up round, left out; then every runtime, variant and clock in each round.
  for (let round = 0; round <= runs; round++) {
    for (const runtime of runtimes) {
      for (const [name, variant] of Object.entries(variants)) {
        for (const [clock, clockEnv] of Object.entries(clocks)) {
          const env = { PORT: '8080', LD_PRELOAD: `${MOUNT}/clock-preload.so`, ...variant.env, ...clockEnv };
          const r = await runContainer({ image, runtime, args: variant.args, env, dockerArgs: [...mountArgs, ...(variant.dockerArgs || [])], timeoutMs: 120_000 });
          const listen = LISTEN_LINE.exec(r.stderr);
          const reads = READS_LINE.exec(r.stderr);
          if (!listen || !reads) throw new Error(`${name} (${clock} clock) under ${runtime} did not report (exit ${r.code}):\n${(r.stdout + r.stderr).slice(-2000)}`);
          if (round > 0) {
            samples[`${runtime}/${name}/${clock}`].ms.push(Number(listen[1]));
            samples[`${runtime}/${name}/${clock}`].reads.push(Number(reads[1]));
            const rusage = RUSAGE_LINE.exec(r.stderr);
            if (rusage) samples[`${runtime}/${name}/${clock}`].rusage.push(JSON.parse(rusage[1]));
          }
        }
      }
    }
    onProgress(`app round ${round} of ${runs} (0 is the warm-up)`);
  }
  return { labels: Object.fromEntries(Object.entries(variants).map(([k, v]) => [k, v.label])), samples };
}

async function runBenchmark({ runs, runtimes, baseImage, image, command, variants, onProgress = () => {} }) {
  const engine = await requireDocker();
  await checkRuntimes(runtimes, '--runtimes');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-clock-'));
  const load = [os.loadavg()[0]];
  try {
    fs.copyFileSync(path.join(HERE, 'clock-probe.cjs'), path.join(dir, 'clock-probe.cjs'));
    fs.copyFileSync(LISTEN_UPTIME_FILE, path.join(dir, path.basename(LISTEN_UPTIME_FILE)));
    if (image) buildPreload(dir);
    const mountArgs = ['--volume', `${dir}:${MOUNT}:ro`];
    const probe = await runProbe({ runs, runtimes, baseImage, mountArgs, onProgress });
    const app = image ? await runApp({ runs, runtimes, image, command, variants, mountArgs, onProgress }) : null;
    load.push(os.loadavg()[0]);
    return {
      runs, runtimes, image: image || null, probe, app, load,
      machine: { ...describeMachine(), docker: engine.version, runsc: Object.fromEntries(runtimes.filter(isGvisor).map((rt) => [rt, runscVersion(rt)])) },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => medianInterval(xs).median;
const us = (x) => (x >= 10 ? x.toFixed(0) : x.toFixed(2));

/** `; runsc: VERSION; runsc-2024: VERSION` (a report from before the 2024 build: one string). */
function runscNote(runsc) {
  if (!runsc) return '';
  if (typeof runsc === 'string') return `; ${runsc}`;
  return Object.entries(runsc).map(([rt, v]) => `; ${rt}: ${v}`).join('');
}

function renderMarkdown(report) {
  const lines = [
    `Clock probe, a fresh container per run, ${report.runs} runs: medians, µs per call (a compile is one small \`vm.Script\` with its own file name, or the same source through indirect \`eval\`).`,
    '',
    '| runtime | clock read, first ms | vm.Script, first ms | eval, first ms | a read is cheap from (ms of uptime) | clock read, then | vm.Script, then | eval, then |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const rt of report.runtimes) {
    const s = report.probe[rt];
    const cheap = s.map((x) => x.cheapAtMs).filter((x) => x !== null);
    lines.push(`| ${rt} | ${us(median(s.map((x) => x.early.clockReadUs)))} | ${us(median(s.map((x) => x.early.scriptUs)))} | ${us(median(s.map((x) => x.early.evalUs)))} | ${cheap.length ? formatMs(median(cheap)) : 'never (4 s)'} | ${us(median(s.map((x) => x.late.clockReadUs)))} | ${us(median(s.map((x) => x.late.scriptUs)))} | ${us(median(s.map((x) => x.late.evalUs)))} |`);
  }
  if (report.app) {
    lines.push('', `\`${report.image}\`: in-process time to listen (ms, from process start), median [95% interval], ${report.runs} runs interleaved after one warm-up; the main thread's monotonic clock reads (median); the difference with 95% interval.`, '',
      '| runtime | variant | clock from the kernel | clock in user space | difference | clock reads |',
      '| --- | --- | ---: | ---: | ---: | ---: |');
    const cell = (xs) => { const mi = medianInterval(xs); return mi.low == null ? formatMs(mi.median) : `${formatMs(mi.median)} [${formatMs(mi.low)}–${formatMs(mi.high)}]`; };
    for (const rt of report.runtimes) {
      for (const [v, label] of Object.entries(report.app.labels)) {
        const kernel = report.app.samples[`${rt}/${v}/kernel`];
        const user = report.app.samples[`${rt}/${v}/user`];
        const c = compareSamples(kernel.ms, user.ms);
        const diff = c.low == null ? formatSignedMs(c.shift) : `${formatSignedMs(c.shift)} [${formatSignedMs(c.low)}, ${formatSignedMs(c.high)}] (${c.verdict})`;
        lines.push(`| ${rt} | ${label} | ${cell(kernel.ms)} | ${cell(user.ms)} | ${diff} | ${Math.round(median(kernel.reads))} |`);
      }
    }
    const withRusage = Object.values(report.app.samples).some((s) => s.rusage && s.rusage.length);
    if (withRusage) {
      lines.push('', 'The same starts, clock in user space: what the process had used by the time it listened, as its kernel (runc) or sandbox (gVisor) counts it (`process.resourceUsage()`), medians.', '',
        '| runtime | variant | minor page faults | major page faults | user CPU ms | system CPU ms |',
        '| --- | --- | ---: | ---: | ---: | ---: |');
      for (const rt of report.runtimes) {
        for (const [v, label] of Object.entries(report.app.labels)) {
          const r = report.app.samples[`${rt}/${v}/user`].rusage || [];
          if (!r.length) continue;
          const m = (k) => median(r.map((x) => x[k]));
          lines.push(`| ${rt} | ${label} | ${Math.round(m('minflt'))} | ${Math.round(m('majflt'))} | ${m('userMs').toFixed(0)} | ${m('sysMs').toFixed(0)} |`);
        }
      }
    }
  }
  const m = report.machine;
  lines.push('', `Machine: ${m.cpu}, ${m.cores} cores; node ${m.node}; docker ${m.docker}${runscNote(m.runsc)}; load average ${report.load.map((x) => x.toFixed(1)).join(' → ')}.`, '');
  return lines.join('\n');
}

function parseOptions(argv) {
  const { values, runtimes } = parseContainerBenchArgs(argv, {
    runs: { type: 'string', default: '8' },
    image: { type: 'string' },
    command: { type: 'string' },
    variants: { type: 'string' },
  });
  let command = null;
  try {
    if (values.command) command = splitShellWords(values.command);
  } catch (err) {
    throw new UsageError(`--command: ${err.message}`);
  }
  if (command && command[0] !== 'node') throw new UsageError(`--command must be a node command: ${values.command}`);
  if (command && !values.image) throw new UsageError('--command needs --image');
  const variants = values.variants ? values.variants.split(',').filter(Boolean) : undefined;
  const unknownVariant = (variants || []).find((v) => !VARIANTS.includes(v));
  if (unknownVariant) throw new UsageError(`unknown --variants ${unknownVariant}: ${VARIANTS.join(', ')}`);
  if (variants && !values.image) throw new UsageError('--variants needs --image');
  return {
    help: values.help,
    runs: parseCount(values.runs, '--runs', 1),
    runtimes,
    baseImage: values['base-image'],
    image: values.image,
    command,
    variants,
    json: values.json,
    verbose: values.verbose,
  };
}

async function main(argv = process.argv.slice(2)) {
  return containerBenchMain('sandbox-clock', parseOptions(argv), { usage: USAGE, runBenchmark, renderMarkdown });
}

if (require.main === module) require('./run-as-script.js').runAsScript('sandbox-clock', main);

module.exports = { main, runBenchmark, renderMarkdown, buildPreload };
