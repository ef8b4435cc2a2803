'use strict';
// Every flag's parsing and validation, so each flag means the same thing in every command; the
// capture flags (--until, --timeout, --root, --esm) of the commands that run the app are declared here.
const { UsageError } = require('./errors.js');
const { parseSize } = require('./byte-size.js');

const UNITS = { ms: 1, s: 1000, m: 60000 };
const MAX_TIMER_MS = 2 ** 31 - 1;

/** '5s' | '250ms' | '2m' -> milliseconds; a bare number is refused. */
function parseDuration(value, flag) {
  const text = String(value).trim();
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!m) throw new UsageError(`invalid ${flag} "${value}": use a duration such as 500ms, 5s or 2m`);
  // "--timeout 5" could mean 5 s or 5 ms: a unit is asked for, never guessed.
  if (!m[2]) throw new UsageError(`invalid ${flag} "${value}": give a unit, e.g. ${m[1]}s or ${m[1]}ms`);
  const ms = Number(m[1]) * UNITS[m[2]];
  if (!(ms > 0)) throw new UsageError(`invalid ${flag} "${value}": must be greater than zero`);
  // Node's timers hold at most 2^31 - 1 ms (24.8 days); a longer one fires at once.
  if (ms > MAX_TIMER_MS) throw new UsageError(`invalid ${flag} "${value}": at most 24 days`);
  return ms;
}

/** --esm auto | always | never. */
function parseEsm(value) {
  if (value === undefined) return 'auto';
  if (['auto', 'always', 'never'].includes(value)) return value;
  throw new UsageError(`invalid --esm "${value}": use auto, always or never`);
}

/** --until answer[:/path] | listen | exit | <duration> | http:/path -> { mode, path?, ms?, url? } */
function parseUntil(value) {
  if (value === undefined || value === 'listen' || value === 'tcp') return { mode: 'listen' };
  if (value === 'answer') return { mode: 'answer', path: '/' };
  if (/^answer:/.test(value)) {
    if (!/^answer:\/(?!\/)[^\s#]*$/.test(value)) throw new UsageError(`invalid --until "${value}": a first answer is answer (GET /) or answer:/path`);
    return { mode: 'answer', path: value.slice('answer:'.length) };
  }
  if (value === 'exit') return { mode: 'exit' };
  if (/^http:/.test(value)) return { mode: 'http', url: parseProbe(value) };
  if (/^line:/.test(value)) throw new UsageError(`--until ${value}: a line of output is how bench --containers sees an app in a container become ready; here use listen (or tcp), exit, a duration such as 5s, or a readiness URL such as http:/healthz`);
  try {
    return { mode: 'duration', ms: parseDuration(value, '--until') };
  } catch {
    throw new UsageError(`invalid --until "${value}": use answer (or answer:/path), listen (or tcp), exit, a duration such as 5s, or a readiness URL such as http:/healthz`);
  }
}

/**
 * bench's --until, which also takes line:/REGEX/ (the first line of the app's output that matches,
 * case-insensitive: how a start in a container is seen) -> { mode: 'line', pattern } or parseUntil's.
 */
function parseBenchUntil(value) {
  const m = /^line:\/(.+)\/$/s.exec(String(value));
  if (!m) {
    if (/^line:/.test(String(value))) throw new UsageError(`invalid --until "${value}": a line of output is line:/REGEX/, e.g. line:/listening on port \\d+/`);
    return parseUntil(value);
  }
  try {
    return { mode: 'line', pattern: require('./bounded-regex.js').boundedRegex(new RegExp(m[1], 'i')) };
  } catch (err) {
    throw new UsageError(`invalid --until "${value}": ${err.message}`);
  }
}

/**
 * A readiness probe on loopback: http://:PORT/path, http://127.0.0.1:PORT/path, or http:/path
 * (the port the app listens on). Returned as given, checked.
 */
function parseProbe(value) {
  const m = /^http:(?:\/\/(localhost|127\.0\.0\.1|\[::1\])?:(\d{1,5}))?(\/(?!\/)[^\s#]*)$/.exec(value);
  if (!m || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535))) {
    throw new UsageError(`invalid --until "${value}": a readiness URL is http:/path (the port the app listens on) or http://:PORT/path, on this machine`);
  }
  return value;
}

/** Sampling interval in microseconds, as --cpu-prof-interval takes it. */
function parseInterval(value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1e6) {
    throw new UsageError(`invalid --interval "${value}": a whole number of microseconds from 1 to 1000000`);
  }
  return n;
}

/** A list flag's items, given repeated and/or comma separated (a,b), trimmed, empty ones left out. */
function listItems(value) {
  return [].concat(value == null ? [] : value).flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter(Boolean);
}

function parseCount(value, flag, min = 1) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`invalid ${flag} "${value}": a whole number >= ${min}`);
  return n;
}

/** --request "GET /path" -> { method, path }: a method and a path on the app, nothing else. */
function parseRequestLine(value) {
  const m = /^\s*([A-Za-z]+)\s+(\/\S*)\s*$/.exec(String(value));
  if (!m) throw new UsageError(`invalid --request "${value}": use a method and a path, such as "GET /" or "POST /api/items"`);
  // A path as a browser sends it: characters outside printable ASCII (/č) percent-encoded.
  return { method: m[1].toUpperCase(), path: m[2].replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c)) };
}

// How often each --request is sent.
const REQUESTS_PER_SECOND = 2;

/** The old --rate: requests per second, more than 0, at most 1000. */
function parseRate(value) {
  const n = Number(value);
  if (!(n > 0) || n > 1000) throw new UsageError(`invalid --rate "${value}": requests per second, more than 0 and at most 1000`);
  return n;
}

/**
 * --after and --request: the window after the ready moment, or null without one. A --request
 * without --after gets a 5 s window; either needs an app that runs on after its ready moment, and
 * --request one that listens. Each --request given is sent twice a second (the requests in turn),
 * unless the old --rate (lib/deprecated-flags.js) sets the pace of them all.
 */
function afterWindowFromArgv(argv) {
  const requests = [].concat(argv.request || []).map(parseRequestLine);
  if (argv.after == null && !requests.length) {
    if (argv.rate != null) throw new UsageError('--rate paces --request: give a --request too');
    return null;
  }
  const until = parseUntil(argv.until);
  if (until.mode === 'exit') throw new UsageError(`${argv.after != null ? '--after' : '--request'} needs an app that runs on after its ready moment: not with --until exit`);
  if (requests.length && until.mode === 'duration') throw new UsageError('--request sends requests to the address the app listens on: use a ready moment that listens (--until answer, listen or http:/path)');
  return {
    ms: argv.after != null ? parseDuration(argv.after, '--after') : 5000,
    requests,
    rate: argv.rate != null ? parseRate(argv.rate) : REQUESTS_PER_SECOND * Math.max(1, requests.length),
  };
}

/** Declares the capture flags on a command's yargs builder. */
function captureOptions(yargs) {
  return yargs
    .option('until', { type: 'string', default: 'answer', describe: 'ready moment: answer (a server\'s first answer to GET / that is not a 5xx, asked from its first listen on; answer:/path for another path; a server that does not speak HTTP is ready when it listens) | listen (or tcp) | exit | <duration> (e.g. 5s) | http:/healthz (the first 2xx of a readiness URL polled every 10 ms from the first listen; http://:PORT/path for another port)' })
    .option('timeout', { type: 'string', default: '60s', describe: 'give up when the app is not ready after this long (a duration with its unit: 30s, 500ms, 2m)' })
    .option('root', { type: 'string', describe: 'app root (default: nearest package.json above the entry, else cwd)' })
    .option('esm', { type: 'string', default: 'auto', describe: 'ES module hooks, an override: auto | always | never (auto: on from Node 22.15; on Node 20 when the entry is ESM or loaders are used)' })
    .option('cpus', { type: 'string', requiresArg: true, describe: 'run the app with this share of one CPU, as a platform gives it (0.5: Cloud Run at half a vCPU); a cgroup made for the run, or the container with --docker' })
    .option('memory', { type: 'string', requiresArg: true, describe: 'run the app under this memory limit (256MiB, 512Mi, 64m; MB = 10^6): over it, it is killed as a platform kills it, exit 1' });
}

/** --cpus 0.5 and --memory 256MiB -> { cpus, memoryBytes }, or null when neither is given. */
function parseLimits(argv) {
  if (argv.cpus == null && argv.memory == null) return null;
  let cpus = null;
  if (argv.cpus != null) {
    cpus = Number(argv.cpus);
    const most = require('os').availableParallelism();
    if (!(cpus >= 0.01 && cpus <= most) || !/^\d*\.?\d+$/.test(String(argv.cpus).trim())) {
      throw new UsageError(`invalid --cpus "${argv.cpus}": a share of CPUs from 0.01 to ${most} (this machine's), such as 0.5 or 1`);
    }
  }
  return { cpus, memoryBytes: argv.memory != null ? parseSize(argv.memory, '--memory') : null };
}

/**
 * --lambda and --event (profile and pack): a Lambda function started by its runtime interface
 * client against a Runtime API coldstart serves.
 */
function lambdaOptions(yargs) {
  return yargs
    .option('lambda', { type: 'string', requiresArg: true, describe: 'a Lambda function\'s handler (handler.js:fn), started by aws-lambda-ric as Lambda starts it (by coldstart\'s own runtime client where it is not installed), against a Runtime API coldstart serves on 127.0.0.1; ready = init done (its first request for an event); no app command needed' })
    .option('event', { type: 'string', requiresArg: true, describe: 'with --lambda: a JSON file, the event of a first invocation; ready = its response, init and the first invocation reported apart (a cold start as Lambda bills it)' });
}

/** The app command and ready moment of --lambda: the runtime client's command unless one is given. */
function lambdaRun(argv, ctx) {
  if (argv.lambda == null) {
    if (argv.event != null) throw new UsageError('--event is the first invocation of a --lambda function: give --lambda handler.js:fn too');
    return null;
  }
  const { parseLambdaHandler, runtimeClient, BUILT_IN_CLIENT, readEvent } = require('./capture/lambda-function.js');
  const { handler } = parseLambdaHandler(argv.lambda, ctx.cwd);
  const event = argv.event != null ? readEvent(argv.event, ctx.cwd) : undefined;
  const given = argv.appCommand || [];
  const client = given.length ? null : runtimeClient(ctx.cwd, { builtIn: true });
  if (client === BUILT_IN_CLIENT && !argv.quiet) {
    ctx.stderr.write('coldstart: aws-lambda-ric is not installed beside the handler: coldstart\'s own runtime client starts it (init and the handler\'s time are the function\'s; the few ms aws-lambda-ric takes to load are not in init)\n');
  }
  return {
    command: given.length ? given : ['node', client, handler],
    lambda: { handler, event },
    until: { mode: 'lambda' },
  };
}

/** The capture options every capturing command takes from its flags (--lambda's among them). */
function captureOptionsFromArgv(argv, ctx) {
  // With --docker the handler is the image's: the capture inside the container finds it.
  const lambda = argv.docker == null ? lambdaRun(argv, ctx) : null;
  return {
    ...captureFlags(argv, ctx),
    ...(lambda || {}),
  };
}

function captureFlags(argv, ctx) {
  return {
    command: argv.appCommand,
    cwd: ctx.cwd,
    env: ctx.env,
    until: parseUntil(argv.until),
    timeoutMs: parseDuration(argv.timeout, '--timeout'),
    root: argv.root,
    esm: parseEsm(argv.esm),
    limits: parseLimits(argv),
    // One JSON document on stdout: the app's own output goes to stderr then.
    stdout: argv.json ? ctx.stderr : ctx.stdout,
    stderr: ctx.stderr,
  };
}

module.exports = { afterWindowFromArgv, parseDuration, parseSize, parseLimits, parseUntil, parseBenchUntil, parseInterval, parseCount, listItems, parseEsm, captureOptions, lambdaOptions, captureOptionsFromArgv, parseRequestLine };
