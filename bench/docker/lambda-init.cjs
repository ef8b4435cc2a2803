'use strict';
// Inside a container of a Lambda function's image (bench/lambda-init.js): one cold start as Lambda
// runs one, timed from outside the function. Serves the Runtime API on 127.0.0.1, starts the
// runtime interface client on the handler (with or without coldstart's preload), and prints one
// JSON line: ms from the spawn to init done (the first request for an event) and to the answer of
// the first invocation.
//   node lambda-init.cjs HANDLER EVENT_FILE plain|preload
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { serveRuntimeApi } = require('/opt/coldstart/lib/capture/lambda-runtime-api.js');
const { lambdaEnvironment, runtimeClient, parseLambdaHandler } = require('/opt/coldstart/lib/capture/lambda-function.js');

const [spec, eventFile, variant] = process.argv.slice(2);
const taskRoot = process.cwd();
const { handler } = parseLambdaHandler(spec, taskRoot);
const hrUs = () => Number(process.hrtime.bigint() / 1000n);
let child;
let spawnedUs;
let initMs;
const done = (result) => {
  process.stdout.write(JSON.stringify({ variant, ...result }) + '\n');
  child.kill('SIGKILL');
  process.exit(0);
};
serveRuntimeApi({
  event: JSON.parse(fs.readFileSync(path.resolve(eventFile), 'utf8')),
  functionName: 'bench',
  region: 'us-east-1',
  onInit: (us) => { initMs = (us - spawnedUs) / 1000; },
  onInvoked: (o) => done({ initMs, invokeMs: (o.endUs - o.sentUs) / 1000, totalMs: (o.endUs - spawnedUs) / 1000, ok: o.ok }),
  onInitError: (e) => done({ error: `${e.errorType}: ${e.errorMessage}` }),
}).then((api) => {
  const env = lambdaEnvironment({ handler, taskRoot, runtimeApi: api.address, env: { PATH: process.env.PATH } });
  if (variant === 'preload') Object.assign(env, { NODE_OPTIONS: '--require coldstart/start', COLDSTART_ARCHIVE: 'startup.tar', COLDSTART_QUIET: '1' });
  spawnedUs = hrUs();
  child = spawn(process.execPath, [runtimeClient(taskRoot), handler], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('exit', (code) => done({ error: `the runtime exited (${code}) before answering` }));
});
