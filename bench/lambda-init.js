#!/usr/bin/env node
'use strict';
// A Lambda function's cold start in a container, plain and with coldstart's preload serving the
// archive pack made (NODE_OPTIONS=--require coldstart/start): init (from the runtime's spawn to
// its first request for an event) and the first invocation, timed from outside the function by a
// Runtime API in the container (bench/docker/lambda-init.cjs). The image holds fixtures/lambda-app
// (the runtime interface client and the AWS SDK v3 DynamoDB document client from the registry)
// under /var/task with the archive beside it, as docs/lambda.md builds it. Plain and preload
// alternate, n runs each, per runtime; medians with their 95% intervals and the verdict on the
// difference. Needs the engine and base image from .ci/docker-up.sh. Prints markdown.
//
//   node bench/lambda-init.js [--runs 10] [--runtime runc --runtime runsc --runtime runsc-2024] [--handler sdk-handler.js:handler]
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { requireDocker, runContainer, removeImages, runscVersion } = require('../lib/docker.js');
const { alternateRuns } = require('../lib/measure/alternate-runs.js');
const { medianInterval, compareSamples, formatMedianInterval } = require('../lib/stats.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseCount } = require('../lib/options.js');
const { registryFixture } = require('../test/helpers/registry-fixture.js');
const { rm } = require('../test/helpers/app.js');
const { buildLambdaImage } = require('../test/helpers/lambda-image.js');
const { isGvisor } = require('../lib/gvisor.js');

const REPO = path.join(__dirname, '..');

async function main() {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, runtime: { type: 'string', multiple: true }, handler: { type: 'string', default: 'sdk-handler.js:handler' } } });
  const runs = parseCount(values.runs, '--runs', 2);
  const runtimes = values.runtime || ['runc', 'runsc', 'runsc-2024'];
  await requireDocker();
  const t = { diagnostic() {}, skip(why) { throw new Error(why); } };
  const dir = registryFixture(t, 'lambda-app');
  const tag = `coldstart-bench-lambda:${process.pid}`;
  try {
    const { packed } = await buildLambdaImage({ dir, handler: values.handler, tag, baseImage: 'coldstart-node:local', timeoutMs: 600_000 });
    const machine = describeMachine();
    const files = (/packed (\d+) files/.exec(packed) || [])[1];
    const lines = [
      `## A Lambda function's cold start in a container: plain and served by the preload`, '',
      `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${runtimes.filter(isGvisor).map((r) => `${r}: ${runscVersion(r)}`).join(', ')}; load average before: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}.`,
      `Handler \`${values.handler}\` of fixtures/lambda-app (aws-lambda-ric 4.0.2, @aws-sdk/client-dynamodb and lib-dynamodb); the archive holds ${files} files.`,
      `Plain and preload alternated, ${runs} runs each per runtime; ms from the runtime's spawn, timed by a Runtime API inside the container.`, '',
      '| runtime | phase | plain | preload | preload − plain |', '|---|---|---:|---:|---:|',
    ];
    for (const runtime of runtimes) {
      const variant = (name) => ({
        name,
        run: async () => {
          const r = await runContainer({ image: tag, runtime, timeoutMs: 120_000, args: ['node', '/opt/coldstart/bench/docker/lambda-init.cjs', values.handler, 'event.json', name], dockerArgs: ['--volume', `${REPO}:/opt/coldstart:ro`, '--entrypoint', '', '--env', 'NODE_OPTIONS='] });
          const last = r.stdout.trim().split('\n').pop();
          const result = last ? JSON.parse(last) : { error: r.stderr.trim().split('\n').pop() };
          if (result.error) throw new Error(`${runtime} ${name}: ${result.error}`);
          return result;
        },
      });
      const measured = await alternateRuns({ variants: [variant('plain'), variant('preload')], rounds: runs, warmup: 1 });
      for (const phase of ['initMs', 'invokeMs', 'totalMs']) {
        const plain = measured.samples.plain.map((x) => x[phase]);
        const preload = measured.samples.preload.map((x) => x[phase]);
        const cmp = compareSamples(plain, preload);
        const shift = cmp.low == null ? '–' : `${cmp.shift.toFixed(1)} [${cmp.low.toFixed(1)}, ${cmp.high.toFixed(1)}] (${cmp.verdict})`;
        lines.push(`| ${runtime} | ${{ initMs: 'init', invokeMs: 'first invocation', totalMs: 'init + first invocation' }[phase]} | ${formatMedianInterval(medianInterval(plain))} | ${formatMedianInterval(medianInterval(preload))} | ${shift} |`);
      }
    }
    lines.push('', `Load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}.`);
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await removeImages([tag]);
    rm(dir);
  }
}

main().catch((err) => {
  process.stderr.write(`bench/lambda-init: ${err.message}\n`);
  process.exit(1);
});
