'use strict';
// A Lambda function's capture (--lambda): the Runtime API served on 127.0.0.1 decides the ready
// moment (init done, or the answer to a first invocation), and the function's process, the newest
// Node process of the tree (npx and shells come first), ends its recording at that moment.
const { serveRuntimeApi, parseError } = require('./lambda-runtime-api.js');
const { lambdaEnvironment } = require('./lambda-function.js');
const { CommandError } = require('../errors.js');
const { captureResult, resultHead } = require('./capture-result.js');
const { msSinceStart } = require('../in-app/ready-moment.cjs');

/**
 * The Runtime API and the environment Lambda gives a function. It settles the capture's outcome:
 * { type: 'lambda', atUs, initUs, invoke } or { type: 'lambda-init-error', error }.
 * @param {{handler: string, event?: any}} lambda
 * @param {{cwd: string, env: object, settle: (outcome: object) => void}} context
 */
async function serveLambdaRuntime({ event, handler }, { cwd, env, settle }) {
  let initUs = null;
  const api = await serveRuntimeApi({
    event,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME || 'coldstart-function',
    region: env.AWS_REGION || 'us-east-1',
    onInit: (atUs) => {
      initUs = atUs;
      if (event === undefined) settle({ type: 'lambda', atUs, initUs, invoke: null });
    },
    onInvoked: (invoke) => settle({ type: 'lambda', atUs: invoke.endUs, initUs, invoke }),
    onInitError: (error) => settle({ type: 'lambda-init-error', error }),
  });
  return { api, env: lambdaEnvironment({ handler, taskRoot: cwd, runtimeApi: api.address, env }) };
}

/**
 * The result once the Runtime API saw init end (and the first invocation's answer).
 * @param {{atUs: number, initUs: number, invoke: ?object}} what
 * @param {{run: import('./capture-result.js').CaptureRun, tree: object, profile: boolean, timingOnly?: boolean}} context
 */
async function lambdaResult(what, { run, tree, profile, timingOnly }) {
  const invoke = what.invoke && {
    requestId: what.invoke.requestId, ok: what.invoke.ok,
    ms: (what.invoke.endUs - what.invoke.sentUs) / 1000,
    error: what.invoke.ok ? null : parseError(what.invoke.body),
  };
  if (timingOnly) {
    const [pid, startUs] = await tree.newestClock();
    return {
      ...resultHead(run), timingOnly: true,
      pid, readyAt: msSinceStart(what.atUs, startUs), address: null,
      lambda: { initMs: msSinceStart(what.initUs, startUs), invoke },
    };
  }
  const session = await tree.newestSession();
  const payload = await session.finishNow('lambda', what.atUs);
  const covered = await session.takeCoverage().catch(() => null);
  const cpuProfile = profile ? await session.stopProfile() : null;
  if (!payload) throw new CommandError('the function gave no data before it was stopped');
  const result = captureResult(payload, run, { profile: cpuProfile, ancestors: await tree.ancestorsOf(session), covered });
  result.lambda = { handler: run.lambda.handler, initMs: msSinceStart(what.initUs, payload.startUs, payload.pausedUs), invoke };
  return result;
}

module.exports = { serveLambdaRuntime, lambdaResult };
