'use strict';
// `--lambda handler.js:fn`: a Lambda function started the way Lambda's Node runtime starts it, by
// the runtime interface client (aws-lambda-ric from the npm registry, as Lambda's container
// images use it) loading the handler named in _HANDLER from LAMBDA_TASK_ROOT, with the
// environment a function gets. Pure but for the checks of the files it names.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');

const EXTENSIONS = ['.js', '.mjs', '.cjs'];

/**
 * @param {string} spec `handler.js:fn`, `src/handler.fn` (Lambda's own form), or `handler:fn`
 * @param {string} cwd the task root: where the function's code is, as /var/task is on Lambda
 * @returns {{ handler: string, file: string, name: string }} handler: the _HANDLER value
 */
function parseLambdaHandler(spec, cwd) {
  const text = String(spec || '').trim();
  const colon = text.lastIndexOf(':');
  const dot = text.lastIndexOf('.');
  // Lambda's own form, file.export, unless what follows the dot is a file's extension (handler.js).
  const lambdaForm = colon < 0 && dot > text.lastIndexOf('/') && !EXTENSIONS.includes(text.slice(dot));
  const cut = colon > 0 ? colon : lambdaForm ? dot : -1;
  const module = cut > 0 ? text.slice(0, cut) : '';
  const name = cut > 0 ? text.slice(cut + 1) : '';
  if (!module || !/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(name)) {
    throw new UsageError(`invalid --lambda "${text}": give the handler as file:export, e.g. --lambda handler.js:handler (or Lambda's own form, handler.handler)`);
  }
  const base = EXTENSIONS.includes(path.extname(module)) ? module.slice(0, -path.extname(module).length) : module;
  // Lambda loads the handler from the task root, as a JavaScript module: nothing else is one.
  const rel = path.relative(cwd, path.resolve(cwd, base));
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new UsageError(`--lambda: the handler ${module} is outside the task root ${cwd}: run coldstart where the function's code is`);
  const file = EXTENSIONS.map((ext) => base + ext).find((f) => isFile(path.resolve(cwd, f)));
  if (!file) throw new UsageError(`--lambda: handler file not found: ${base}.js (or .mjs, .cjs) in ${cwd}`);
  return { handler: `${base.split(path.sep).join('/')}.${name}`, file, name };
}

const isFile = (p) => {
  try { return fs.statSync(p).isFile(); } catch { return false; }
};

// coldstart's own runtime client, for a machine where aws-lambda-ric is not installed.
const BUILT_IN_CLIENT = path.join(__dirname, '..', 'in-app', 'lambda-runtime-client.mjs');

/**
 * The runtime interface client's entry as the function's project installed it; with builtIn,
 * coldstart's own client (lambda-runtime-client.mjs) when the project has none.
 * @returns {string} absolute path of its bin script
 */
function runtimeClient(cwd, { builtIn = false } = {}) {
  let manifestFile;
  try {
    manifestFile = require.resolve('aws-lambda-ric/package.json', { paths: [cwd] });
  } catch {
    if (builtIn) return BUILT_IN_CLIENT;
    throw new UsageError('--lambda: aws-lambda-ric is not installed beside the handler: npm install aws-lambda-ric (the runtime interface client of Lambda\'s Node images), or give the runtime\'s command after --');
  }
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin && manifest.bin['aws-lambda-ric'];
  return path.join(path.dirname(manifestFile), bin || manifest.main || 'index.mjs');
}

/**
 * The environment Lambda gives a function (the variables the runtime interface client requires),
 * the caller's own settings of them kept.
 * @param {{ handler: string, taskRoot: string, runtimeApi: string, env: object }} options
 */
function lambdaEnvironment({ handler, taskRoot, runtimeApi, env }) {
  const functionName = env.AWS_LAMBDA_FUNCTION_NAME || 'coldstart-function';
  return {
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '128',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'coldstart',
    AWS_REGION: 'us-east-1',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs',
    ...env,
    AWS_LAMBDA_RUNTIME_API: runtimeApi,
    LAMBDA_TASK_ROOT: taskRoot,
    _HANDLER: handler,
  };
}

/**
 * --event FILE: the first invocation's event, any JSON document.
 * @returns {any}
 */
function readEvent(file, cwd) {
  let text;
  try {
    // Lambda takes events of up to 6 MB; a FIFO or a device is never waited on.
    text = require('../regular-file.js').readRegularFile(path.resolve(cwd, file), 6 * 1024 * 1024);
  } catch (err) {
    throw new UsageError(`--event: cannot read ${file}: ${err.code === 'ENOTREG' || err.code === 'EFBIG' ? err.message : err.code || err.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--event: ${file} is not JSON: ${err.message}`);
  }
}

module.exports = { parseLambdaHandler, runtimeClient, BUILT_IN_CLIENT, lambdaEnvironment, readEvent };
