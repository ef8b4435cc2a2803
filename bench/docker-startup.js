#!/usr/bin/env node
'use strict';
// Time to listen of the seed's 1000-module fixture in a container, under runc and gVisor (runsc):
// plain `node index.js`, the seed's shell recipe (tar xf the startup archive, then node), and
// `coldstart start` (in place, and --into a tmpfs). Each sample is a fresh `docker run`, timed
// from the moment the client is started to the app's listening line; a warm-up round is run
// first and left out. Rounds interleave the variants, so drift on a shared machine spreads
// over all of them instead of landing on one.
// Needs the engine and base image from .ci/docker-up.sh. Prints a markdown table on stdout,
// progress on stderr when it is a terminal or with --verbose (usage below).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { performance } = require('node:perf_hooks');
const {
  requireDocker, buildImage, runContainer, stopAllContainers, assembleContext,
} = require('../lib/bench/docker.js');
const { summarize } = require('../lib/bench/stats.js');
const { generateFixture, LISTENING_PATTERN } = require('../lib/fixtures/generate.js');
const { readTarEntries } = require('../lib/pack/tar-reader.js');
const { CommandError, UsageError } = require('../lib/errors.js');
const { writeFileAtomic } = require('../lib/write-atomic.js');

const USAGE = `usage: node bench/docker-startup.js [--runs 10] [--warmup 1] [--runtimes runc,runsc]
  [--variants NAME,...] [--modules 1000] [--seed 42] [--base-image coldstart-node:local]
  [--json FILE] [--keep-image] [--verbose]

Variants (all by default): floor-container, floor-node, plain, seed-tmpfs, seed-inplace,
start-inplace, start-into, start-memory, start-memory-noverify.
`;
const DOCKERFILE = path.join(__dirname, 'docker', 'Dockerfile.startup');
const BASE_IMAGE = 'coldstart-node:local';
const RUNTIMES = ['runc', 'runsc'];
const TMPFS_DIR = '/mnt/tmpfs';
// Cloud Run keeps the container's writable layer in memory; a tmpfs is the local stand-in.
const TMPFS = `${TMPFS_DIR}:rw,exec,size=256m`;
const COLDSTART = 'node_modules/coldstart/bin/coldstart.js';
// `coldstart start` reports once the files are in place: extracted, or indexed in memory.
const START_REPORT = /coldstart: (extracted|serving) (\d+) files, ([\d.]+ [kM]?B)(?: from memory \(\d+ resolutions\))? in (\d+) ms/;
const SHELL_BEGIN = /bench: begin (\d+)/;
const SHELL_EXTRACTED = /bench: extracted (\d+)/;

// The seed's recipe with timestamps around tar: `date` is the only clock dash can read.
// The `echo` lines also give the host the moment each step is reached.
function seedScript(dir) {
  const into = dir ? ` -C ${dir}` : '';
  const cd = dir ? `cd ${dir} && ` : '';
  return `echo "bench: begin $(date +%s%N)" && tar xf /startup.tar${into} && `
    + `echo "bench: extracted $(date +%s%N)" && ${cd}exec node index.js`;
}

/**
 * What is timed. `phases` reads the moments found in a sample's output into named durations;
 * each variant runs in /app (the image's WORKDIR).
 */
const VARIANTS = [
  {
    name: 'floor-container',
    label: 'floor: container only (`sh -c echo`)',
    args: ['sh', '-c', 'echo bench: ready'],
    ready: /bench: ready/,
  },
  {
    name: 'floor-node',
    label: 'floor: bare node listening, no app',
    args: ['node', '-e', "const s = require('http').createServer().listen(0, () => console.log('bench: bare node listening'))"],
    ready: /bench: bare node listening/,
  },
  {
    name: 'plain',
    label: 'plain `node index.js`',
    args: ['node', 'index.js'],
    ready: LISTENING_PATTERN,
  },
  {
    name: 'seed-tmpfs',
    label: `seed recipe: \`tar xf -C ${TMPFS_DIR}\` (tmpfs), then node`,
    args: ['sh', '-c', seedScript(TMPFS_DIR)],
    tmpfs: [TMPFS],
    ready: LISTENING_PATTERN,
    marks: { begin: SHELL_BEGIN, filesReady: SHELL_EXTRACTED },
    phases: shellPhases,
  },
  {
    name: 'seed-inplace',
    label: 'seed recipe: `tar xf` over /app (in place), then node',
    args: ['sh', '-c', seedScript(null)],
    ready: LISTENING_PATTERN,
    marks: { begin: SHELL_BEGIN, filesReady: SHELL_EXTRACTED },
    phases: shellPhases,
  },
  {
    name: 'start-inplace',
    label: '`coldstart start --mode extract` (in place)',
    args: ['node', COLDSTART, 'start', '--archive', '/startup.tar', '--mode', 'extract', '--', 'node', 'index.js'],
    ready: LISTENING_PATTERN,
    marks: { filesReady: START_REPORT },
    phases: startPhases,
  },
  {
    name: 'start-into',
    label: `\`coldstart start --into ${TMPFS_DIR}\` (tmpfs)`,
    args: ['node', COLDSTART, 'start', '--archive', '/startup.tar', '--into', TMPFS_DIR, '--', 'node', 'index.js'],
    tmpfs: [TMPFS],
    ready: LISTENING_PATTERN,
    marks: { filesReady: START_REPORT },
    phases: startPhases,
  },
  {
    // No extraction: recorded resolutions and sources served from the archive in memory.
    name: 'start-memory',
    label: '`coldstart start --mode memory`',
    args: ['node', COLDSTART, 'start', '--archive', '/startup.tar', '--mode', 'memory', '--', 'node', 'index.js'],
    ready: LISTENING_PATTERN,
    marks: { filesReady: START_REPORT },
    phases: startPhases,
  },
  {
    // The same without the size check of each served file against the disk.
    name: 'start-memory-noverify',
    label: '`coldstart start --mode memory --verify none`',
    args: ['node', COLDSTART, 'start', '--archive', '/startup.tar', '--mode', 'memory', '--verify', 'none',
      '--', 'node', 'index.js'],
    ready: LISTENING_PATTERN,
    marks: { filesReady: START_REPORT },
    phases: startPhases,
  },
];

const PHASE_LABELS = {
  toFilesReady: '↳ run → files ready',
  archiveWork: '↳ of which extraction / loading',
  afterFilesReady: '↳ files ready → listening',
};

// Host moments: when the line reached the client. `date` stamps: the container's own clock.
function shellPhases(sample) {
  const begin = SHELL_BEGIN.exec(sample.stdout);
  const extracted = SHELL_EXTRACTED.exec(sample.stdout);
  return {
    toFilesReady: sample.marks.filesReady,
    archiveWork: (Number(extracted[1]) - Number(begin[1])) / 1e6,
    afterFilesReady: sample.ms - sample.marks.filesReady,
  };
}

// The launcher's own figure runs from its main() to the files being extracted or indexed.
function startPhases(sample) {
  const line = START_REPORT.exec(sample.stderr);
  return {
    toFilesReady: sample.marks.filesReady,
    archiveWork: Number(line[4]),
    afterFilesReady: sample.ms - sample.marks.filesReady,
  };
}

/**
 * One `docker run` of a variant, until its ready line.
 * @returns {Promise<{ms: number, marks: Record<string, number>, phases: Record<string, number>,
 *   stdout: string, stderr: string}>}
 * @throws {CommandError} when the container never becomes ready or something reports a problem
 */
async function sampleOnce(image, runtime, variant, timeoutMs) {
  const marks = {};
  const wanted = Object.entries(variant.marks || {});
  // runContainer starts its clock synchronously after this call begins: the offset is microseconds.
  const t0 = performance.now();
  const r = await runContainer({
    image,
    runtime,
    args: variant.args,
    tmpfs: variant.tmpfs || [],
    timeoutMs,
    until: (out, err) => {
      for (const [key, pattern] of wanted) {
        if (marks[key] === undefined && (pattern.test(out) || pattern.test(err))) marks[key] = performance.now() - t0;
      }
      return variant.ready.test(out) || variant.ready.test(err);
    },
  });
  const describe = () => `${variant.name} under ${runtime}: exit ${r.code}, `
    + `${r.timedOut ? 'timed out' : `${Math.round(r.ms)} ms`}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
  if (!r.matched) throw new CommandError(`never ready: ${describe()}`, { code: 'BENCH_NOT_READY' });
  if (/coldstart: warning/.test(r.stderr)) throw new CommandError(`coldstart warned: ${describe()}`, { code: 'BENCH_WARNING' });
  const missing = wanted.map(([key]) => key).filter((key) => marks[key] === undefined);
  if (missing.length) throw new CommandError(`no ${missing.join(', ')} line: ${describe()}`, { code: 'BENCH_NO_MARK' });
  const sample = { ms: r.ms, marks, stdout: r.stdout, stderr: r.stderr };
  sample.phases = variant.phases ? variant.phases(sample) : {};
  return sample;
}

// ---------------------------------------------------------------------------------------------
// The image

function libraries(programs) {
  const out = execFileSync('ldd', programs, { encoding: 'utf8' });
  const found = new Set();
  for (const line of out.split('\n')) {
    const linked = /=>\s+(\/\S+)/.exec(line);
    const loader = /^\s*(\/\S+)\s+\(/.exec(line);
    if (linked) found.add(linked[1]);
    else if (loader) found.add(loader[1]);
  }
  return [...found].sort();
}

/**
 * GNU tar and date from the host, with their libraries, as a root tree to COPY over the base
 * image (node and dash only): the seed's recipe needs tar, and date stamps the extraction.
 */
function copyTools(into) {
  const programs = ['tar', 'date'].map((name) => {
    for (const dir of ['/usr/bin', '/bin']) {
      if (fs.existsSync(path.join(dir, name))) return fs.realpathSync(path.join(dir, name));
    }
    throw new CommandError(`${name} is not installed on this machine: the seed recipe needs it`, { code: 'BENCH_NO_TOOL' });
  });
  // The base image keeps dash in /bin and PATH=/usr/local/bin:/bin.
  for (const program of programs) {
    fs.mkdirSync(path.join(into, 'bin'), { recursive: true });
    fs.copyFileSync(program, path.join(into, 'bin', path.basename(program)));
    fs.chmodSync(path.join(into, 'bin', path.basename(program)), 0o755);
  }
  for (const lib of libraries(programs)) {
    const target = path.join(into, lib);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(fs.realpathSync(lib), target);
  }
}

/**
 * Generates the fixture, assembles the build context (fixture + coldstart in its node_modules,
 * tools) and builds the image, whose first stage runs `coldstart pack`.
 * @returns {Promise<{tag: string, buildMs: number, fixture: object,
 *   archive: {files: number, bytes: number, archiveBytes: number}}>}
 */
async function prepareImage({ workDir, modules, seed, baseImage, tag, onProgress }) {
  const fixtureDir = path.join(workDir, 'fixture');
  const fixture = await generateFixture({ dir: fixtureDir, modules, seed });
  const context = path.join(workDir, 'context');
  assembleContext({ app: fixtureDir, into: path.join(context, 'app'), nodeModules: path.join(fixtureDir, 'node_modules') });
  copyTools(path.join(context, 'tools'));
  onProgress(`building ${tag} (fixture: ${fixture.modules} modules, ${fixture.files} files)`);
  const built = await buildImage({
    context, dockerfile: DOCKERFILE, tag, buildArgs: { NODE_IMAGE: baseImage }, timeoutMs: 900_000,
  });
  return { tag, buildMs: built.ms, fixture, archive: describeArchive(tag, workDir) };
}

// What the pack stage archived, read from the image itself: a cached build prints no pack line.
function describeArchive(tag, workDir) {
  const docker = process.env.COLDSTART_DOCKER || '/usr/bin/docker';
  const copy = path.join(workDir, 'startup.tar');
  const id = execFileSync(docker, ['create', '--network', 'none', tag], { encoding: 'utf8' }).trim();
  try {
    execFileSync(docker, ['cp', `${id}:/startup.tar`, copy], { stdio: 'ignore' });
  } finally {
    execFileSync(docker, ['rm', id], { stdio: 'ignore' });
  }
  const buffer = fs.readFileSync(copy);
  let files = 0;
  let bytes = 0;
  for (const entry of readTarEntries(buffer)) {
    if (entry.type === 'dir') continue;
    files += 1;
    bytes += entry.data.length;
  }
  return { files, bytes, archiveBytes: buffer.length };
}

// ---------------------------------------------------------------------------------------------
// The run

/**
 * Builds the image and times every variant under every runtime.
 * @param {{runs?: number, warmup?: number, runtimes?: string[], variants?: string[], modules?: number,
 *   seed?: number, baseImage?: string, keepImage?: boolean, timeoutMs?: number,
 *   onProgress?: (line: string) => void}} [options]
 * @returns {Promise<{machine: object, image: object, runs: number, warmup: number, runtimes: string[],
 *   results: {variant: string, label: string, runtime: string, total: object, phases: Record<string, object>,
 *   samples: number[], startReport: ?string}[]}>} total and phases are summarize() outputs (ms);
 *   startReport is what `coldstart start` said it did, e.g. 'extracted 2003 files, 1.7 MB'
 */
async function runBenchmark(options = {}) {
  const {
    runs = 10, warmup = 1, runtimes = RUNTIMES, modules = 1000, seed = 42, baseImage = BASE_IMAGE,
    keepImage = false, timeoutMs = 120_000, onProgress = () => {},
  } = options;
  const variants = selectVariants(options.variants);
  for (const runtime of runtimes) {
    if (!RUNTIMES.includes(runtime)) throw new UsageError(`unknown runtime ${runtime}: use ${RUNTIMES.join(', ')}`);
  }
  const docker = await requireDocker();
  const machine = describeMachine(docker.version);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-docker-'));
  const tag = `coldstart-bench-startup:${process.pid}`;
  let image = null;
  try {
    image = await prepareImage({ workDir, modules, seed, baseImage, tag, onProgress });
    onProgress(`built in ${Math.round(image.buildMs / 1000)} s; archive: ${describeSize(image.archive)}`);
    const collected = new Map(); // `${runtime} ${variant}` -> samples
    for (let round = 0; round < warmup + runs; round++) {
      const kept = round >= warmup;
      for (const runtime of runtimes) {
        for (const variant of variants) {
          const sample = await sampleOnce(tag, runtime, variant, timeoutMs);
          const key = `${runtime} ${variant.name}`;
          if (kept) {
            if (!collected.has(key)) collected.set(key, []);
            collected.get(key).push(sample);
          }
          onProgress(`${kept ? `run ${round - warmup + 1}/${runs}` : 'warm-up'} ${runtime} ${variant.name}: `
            + `${Math.round(sample.ms)} ms${describePhases(sample.phases)}`);
        }
      }
    }
    const results = [];
    for (const variant of variants) {
      for (const runtime of runtimes) {
        const samples = collected.get(`${runtime} ${variant.name}`) || [];
        const phases = {};
        for (const key of Object.keys(samples[0] ? samples[0].phases : {})) {
          phases[key] = summarize(samples.map((s) => s.phases[key]));
        }
        const line = samples.length ? START_REPORT.exec(samples[0].stderr) : null;
        results.push({
          variant: variant.name,
          label: variant.label,
          runtime,
          total: summarize(samples.map((s) => s.ms)),
          phases,
          samples: samples.map((s) => Math.round(s.ms * 10) / 10),
          startReport: line ? `${line[1]} ${line[2]} files, ${line[3]}` : null,
        });
      }
    }
    return {
      machine,
      image: { fixture: { modules: image.fixture.modules, files: image.fixture.files, bytes: image.fixture.bytes },
        archive: image.archive, buildMs: Math.round(image.buildMs) },
      runs, warmup, runtimes, results,
    };
  } finally {
    await stopAllContainers();
    if (image && !keepImage) removeImage(tag);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function selectVariants(names) {
  if (!names) return VARIANTS;
  return names.map((name) => {
    const variant = VARIANTS.find((v) => v.name === name);
    if (!variant) throw new UsageError(`unknown variant ${name}: use ${VARIANTS.map((v) => v.name).join(', ')}`);
    return variant;
  });
}

function describePhases(phases) {
  const parts = Object.entries(phases).map(([key, ms]) => `${key} ${Math.round(ms)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function describeSize(archive) {
  const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
  return `${archive.files} files, ${mb(archive.bytes)} (tar ${mb(archive.archiveBytes)})`;
}

function removeImage(tag) {
  try {
    execFileSync(process.env.COLDSTART_DOCKER || '/usr/bin/docker', ['image', 'rm', '--force', tag], { stdio: 'ignore' });
  } catch {
    // an image left behind is not worth failing a finished benchmark for
  }
}

function firstLine(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0].trim();
  } catch {
    return 'unknown';
  }
}

function describeMachine(dockerVersion) {
  const cpus = os.cpus();
  return {
    cpu: cpus.length ? cpus[0].model : 'unknown',
    cores: cpus.length,
    node: process.version,
    docker: dockerVersion,
    runsc: firstLine('runsc', ['--version']),
    kernel: os.release(),
  };
}

// ---------------------------------------------------------------------------------------------
// The report

function cell(stats, key) {
  return stats && stats[key] !== null && stats[key] !== undefined ? String(Math.round(stats[key])) : '–';
}

/**
 * The results as a markdown table (ms): one row per variant, indented rows for its phases.
 * @param {Awaited<ReturnType<typeof runBenchmark>>} report
 * @returns {string}
 */
function renderMarkdown(report) {
  const { machine, runtimes } = report;
  const header = ['variant', ...runtimes.flatMap((r) => [`${r} median`, `${r} stddev`])];
  const lines = [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
  ];
  const names = [...new Set(report.results.map((r) => r.variant))];
  for (const name of names) {
    const rows = report.results.filter((r) => r.variant === name);
    const byRuntime = (runtime) => rows.find((r) => r.runtime === runtime);
    const first = rows[0];
    lines.push(`| ${first.label} | ${runtimes.flatMap((rt) => [cell(byRuntime(rt).total, 'median'), cell(byRuntime(rt).total, 'stddev')]).join(' | ')} |`);
    for (const phase of Object.keys(first.phases)) {
      lines.push(`| &nbsp;&nbsp;${PHASE_LABELS[phase]} | ${runtimes.flatMap((rt) => {
        const stats = byRuntime(rt).phases[phase];
        return [cell(stats, 'median'), cell(stats, 'stddev')];
      }).join(' | ')} |`);
    }
  }
  const n = report.results[0] ? report.results[0].total.n : 0;
  const said = [...new Set(report.results.filter((r) => r.startReport).map((r) => r.startReport.split(',')[0]))];
  return [
    `Time to listen (ms), \`docker run\` to the app's listening line; median and sample stddev of ${n} runs`
      + ` per cell, fresh container each, ${report.warmup} warm-up round left out.`,
    '',
    ...lines,
    '',
    `Fixture: ${report.image.fixture.modules} modules, ${report.image.fixture.files} files;`
      + ` archive: ${describeSize(report.image.archive)}${said.length ? `; coldstart start: ${said.join(', ')}` : ''}.`,
    'Phases: "run → files ready" is when the line saying so reached the client (tar: an `echo` after it;'
      + ' start: its `extracted …` or `serving …` line); "of which extraction / loading" is measured inside'
      + ' the container (tar: two `date +%s%N` stamps, each `date` costing a fork and exec; start: its own'
      + ' figure, from its main() on); "files ready → listening" is the rest.',
    `Machine: ${machine.cpu}, ${machine.cores} cores, kernel ${machine.kernel}; node ${machine.node};`
      + ` docker ${machine.docker}; ${machine.runsc} (ptrace platform).`,
  ].join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// The command line

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '1' },
      runtimes: { type: 'string', default: RUNTIMES.join(',') },
      variants: { type: 'string' },
      modules: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '42' },
      'base-image': { type: 'string', default: BASE_IMAGE },
      json: { type: 'string' },
      'keep-image': { type: 'boolean', default: false },
      verbose: { type: 'boolean', short: 'v', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const count = (flag, min) => {
    const value = Number(values[flag]);
    if (!Number.isInteger(value) || value < min) throw new UsageError(`--${flag} must be a whole number >= ${min}`);
    return value;
  };
  const list = (text) => text.split(',').map((s) => s.trim()).filter(Boolean);
  return {
    help: values.help,
    runs: count('runs', 1),
    warmup: count('warmup', 0),
    modules: count('modules', 1),
    seed: count('seed', 0),
    runtimes: list(values.runtimes),
    variants: values.variants ? list(values.variants) : undefined,
    baseImage: values['base-image'],
    json: values.json,
    keepImage: values['keep-image'],
    verbose: values.verbose,
  };
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`docker-startup: ${err.message}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    process.stderr.write('docker-startup: interrupted, stopping containers\n');
    stopAllContainers().finally(() => process.exit(130));
  });
  try {
    // Progress on a terminal (or with --verbose); quiet in CI and when stderr is a log.
    const showProgress = options.verbose || (process.stderr.isTTY && !process.env.CI);
    const onProgress = showProgress ? (line) => process.stderr.write(`docker-startup: ${line}\n`) : undefined;
    const report = await runBenchmark({ ...options, onProgress });
    process.stdout.write(renderMarkdown(report));
    if (options.json) writeFileAtomic(path.resolve(options.json), JSON.stringify(report, null, 2) + '\n');
    return 0;
  } catch (err) {
    if (interrupted) return 130;
    if (err instanceof CommandError || err instanceof UsageError) {
      process.stderr.write(`docker-startup: ${err.message}\n`);
      return err instanceof UsageError ? 2 : 1;
    }
    throw err;
  }
}

if (require.main === module) {
  main().then((code) => { process.exitCode = code; });
}

module.exports = { main, runBenchmark, renderMarkdown, VARIANTS };
