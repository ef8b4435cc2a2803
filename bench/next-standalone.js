#!/usr/bin/env node
'use strict';
// A Next.js standalone server in a container, timed to its first answer (Next listens before it
// loads the app, which the first request does): fixtures/next-app installed from the npm registry,
// its image written by `coldstart dockerfile` (Next's own recipe: the build, then the standalone
// tree alone) and built here; started by plain node, by `coldstart start` from the archive, and
// with Node's compile cache made in the image at its first answer (what a user would try first; a
// bundle does not apply: Next has traced the tree itself). Each sample is a fresh container whose
// command is bench/docker/first-answer.js: it starts the server and times GET / to its first 200.
// Rounds interleave the starts. Needs the engine and base image from .ci/docker-up.sh.
// Prints a markdown table on stdout (usage below).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { requireDocker, buildImage, runContainer, assembleContext, dockerBinary, removeImages } = require('../lib/docker.js');
const { medianInterval, ratioInterval, formatMedianInterval } = require('../lib/stats.js');
const { parseCount } = require('../lib/options.js');

const USAGE = 'usage: node bench/next-standalone.js [--runs 10] [--runtimes runc,runsc-2024] [--base-image coldstart-node:local]';
const REPO = path.join(__dirname, '..');
const COMPILE_CACHE = '/compile-cache';
const STARTS = {
  plain: { command: ['node', 'server.js'] },
  'coldstart start': { command: ['node', '/coldstart/bin/coldstart.js', 'start', '--archive', '/startup.tar', '--', 'node', 'server.js'] },
  'compile cache': { command: ['node', 'server.js'], env: { NODE_COMPILE_CACHE: COMPILE_CACHE }, cached: true },
};

async function main() {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, runtimes: { type: 'string', default: 'runc,runsc-2024' }, 'base-image': { type: 'string', default: 'coldstart-node:local' } } });
  const runs = parseCount(values.runs, '--runs', 2);
  const runtimes = values.runtimes.split(',');
  await requireDocker();
  const scratch = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'coldstart-next-'));
  const tag = `coldstart-bench-next:${process.pid}`;
  try {
    const app = path.join(scratch, 'app');
    fs.cpSync(path.join(REPO, 'fixtures', 'next-app'), app, { recursive: true });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel', 'error'], { cwd: app, stdio: 'inherit' });
    const context = assembleContext({ app, into: path.join(scratch, 'context') }).dir;
    fs.writeFileSync(path.join(context, 'Dockerfile'), execFileSync(process.execPath, [path.join(REPO, 'bin', 'coldstart.js'), 'dockerfile', '--quiet'], { cwd: context }));
    fs.copyFileSync(path.join(__dirname, 'docker', 'first-answer.js'), path.join(context, 'first-answer.js'));
    fs.appendFileSync(path.join(context, 'Dockerfile'), 'COPY first-answer.js /first-answer.js\n');
    const built = await buildImage({ context, dockerfile: path.join(context, 'Dockerfile'), tag, buildArgs: { NODE_IMAGE: values['base-image'] }, timeoutMs: 900_000, noCache: true });
    const packed = /coldstart: packed (\d+) files.*\n.*code cache: (\d+) modules/.exec(built.output);
    // Node's compile cache made in the image, by a first start up to its first answer.
    const cached = `${tag}-cc`;
    const name = `coldstart-bench-next-cc-${process.pid}`;
    const preload = '/coldstart/lib/in-app/compile-cache-at-ready.cjs';
    execFileSync(dockerBinary(), ['run', '--name', name, '--network', 'none', '-e', 'COLDSTART_UNTIL=answer:/', '-e', `NODE_COMPILE_CACHE=${COMPILE_CACHE}`, '-e', `NODE_OPTIONS=--require=${preload}`, '-e', 'HOSTNAME=127.0.0.1', tag, 'node', 'server.js'], { stdio: 'ignore', timeout: 120_000 });
    execFileSync(dockerBinary(), ['commit', name, cached], { stdio: 'ignore' });
    execFileSync(dockerBinary(), ['rm', name], { stdio: 'ignore' });

    const samples = {};
    for (let round = 0; round < runs; round++) {
      for (const runtime of runtimes) {
        for (const [start, how] of Object.entries(STARTS)) {
          const r = await runContainer({ image: how.cached ? cached : tag, runtime, env: how.env || {}, args: ['node', '/first-answer.js', ...how.command], timeoutMs: 120_000 });
          const m = /^first-answer ([\d.]+)$/m.exec(r.stdout);
          if (!m) throw new Error(`${start} under ${runtime} gave no first answer: ${r.stdout.slice(-300)} ${r.stderr.slice(-300)}`);
          (samples[`${runtime}\t${start}`] = samples[`${runtime}\t${start}`] || []).push(Number(m[1]));
        }
      }
      process.stderr.write(`round ${round + 1}/${runs}\n`);
    }
    const lines = [
      `Next.js ${require(path.join(app, 'node_modules', 'next', 'package.json')).version} standalone, ${runs} runs each, alternated; ` +
        `time from the container's node start to the first 200 of GET /; load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}; ` +
        `pack: ${packed ? `${packed[1]} files, code cache for ${packed[2]} modules` : 'see the build'}`,
      '', '| runtime | start | median [95% interval] | factor to plain [interval] |', '|---|---|---:|---:|',
    ];
    for (const runtime of runtimes) {
      for (const start of Object.keys(STARTS)) {
        const own = samples[`${runtime}\t${start}`];
        const f = ratioInterval(samples[`${runtime}\tplain`], own);
        lines.push(`| ${runtime} | ${start} | ${formatMedianInterval(medianInterval(own))} | ${start === 'plain' ? '1' : `${f.ratio.toFixed(2)} [${f.low.toFixed(2)}–${f.high.toFixed(2)}]`} |`);
      }
    }
    process.stdout.write(lines.join('\n') + '\n');
    await removeImages([tag, cached]);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv.includes('--help')) process.stdout.write(USAGE + '\n');
else main().catch((err) => { process.stderr.write(`next-standalone: ${err.message}\n`); process.exitCode = 1; });
