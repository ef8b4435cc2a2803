// A Lambda runtime client for `--lambda` where aws-lambda-ric is not installed (it builds curl and
// a C++ client at install, which needs a compiler). It does what Lambda's Node runtime does before
// and around the handler: imports the module _HANDLER names from LAMBDA_TASK_ROOT, then asks the
// Runtime API for events and posts each answer. Init and the handler's own time are the
// function's; only aws-lambda-ric's own load (a few ms) is not in init. Usage: node this-file.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [host, port] = process.env.AWS_LAMBDA_RUNTIME_API.split(':');
const spec = process.env._HANDLER;
const root = process.env.LAMBDA_TASK_ROOT || process.cwd();

function call(method, route, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, method, path: `/2018-06-01/runtime/${route}`, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve({ headers: res.headers, text }));
    });
    req.on('error', reject).end(body);
  });
}

const errorBody = (err) => JSON.stringify({ errorType: (err && err.name) || 'Error', errorMessage: String((err && err.message) || err), stack: String((err && err.stack) || '').split('\n') });

async function loadHandler() {
  const dot = spec.lastIndexOf('.');
  const [moduleName, exportPath] = [spec.slice(0, dot), spec.slice(dot + 1)];
  const file = ['.js', '.mjs', '.cjs'].map((ext) => path.resolve(root, moduleName + ext)).find((f) => fs.existsSync(f));
  if (!file) throw Object.assign(new Error(`Cannot find module '${moduleName}'`), { name: 'Runtime.ImportModuleError' });
  const loaded = await import(pathToFileURL(file).href);
  const handler = loaded[exportPath] ?? (loaded.default && loaded.default[exportPath]);
  if (typeof handler !== 'function') throw Object.assign(new Error(`${spec} is undefined or not exported`), { name: 'Runtime.HandlerNotFound' });
  return handler;
}

let handler;
try {
  handler = await loadHandler();
} catch (err) {
  await call('POST', 'init/error', errorBody(err), { 'Lambda-Runtime-Function-Error-Type': err.name || 'Error' });
  process.exit(1);
}

for (;;) {
  const next = await call('GET', 'invocation/next');
  const id = next.headers['lambda-runtime-aws-request-id'];
  const context = { awsRequestId: id, functionName: process.env.AWS_LAMBDA_FUNCTION_NAME, getRemainingTimeInMillis: () => Number(next.headers['lambda-runtime-deadline-ms']) - Date.now() };
  try {
    // A handler of the callback style answers through its third argument.
    const result = await (handler.length >= 3
      ? new Promise((resolve, reject) => handler(JSON.parse(next.text), context, (err, value) => (err ? reject(err) : resolve(value))))
      : handler(JSON.parse(next.text), context));
    await call('POST', `invocation/${encodeURIComponent(id)}/response`, JSON.stringify(result === undefined ? null : result));
  } catch (err) {
    await call('POST', `invocation/${encodeURIComponent(id)}/error`, errorBody(err), { 'Lambda-Runtime-Function-Error-Type': (err && err.name) || 'Error' });
  }
}
