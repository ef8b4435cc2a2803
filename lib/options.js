'use strict';
// Every flag's parsing and validation, so each flag means the same thing in every command; the
// capture flags (--until, --timeout, --root, --esm) of the commands that run the app are declared here.
const { UsageError } = require('./errors.js');
const { parseSize } = require('./byte-size.js');
const fs = require('fs');
const path = require('path');
const { splitShellWords } = require('./shell-words.js');

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
  return listWords(value).filter(Boolean);
}

/** A list flag's words, given repeated and/or comma separated (a,b), trimmed. */
function listWords(value) {
  return [].concat(value == null ? [] : value).flatMap((v) => String(v).split(',')).map((s) => s.trim());
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

/**
 * --after and --request: the window after the ready moment, or null without one. A --request
 * without --after gets a 5 s window; either needs an app that runs on after its ready moment, and
 * --request one that listens. Each --request given is sent twice a second (the requests in turn),
 * unless requestRate (lib/deprecated-flags.js) sets the pace of them all.
 */
function afterWindowFromArgv(argv) {
  const requests = [].concat(argv.request || []).map(parseRequestLine);
  if (argv.after == null && !requests.length) return null;
  const until = parseUntil(argv.until);
  if (until.mode === 'exit') throw new UsageError(`${argv.after != null ? '--after' : '--request'} needs an app that runs on after its ready moment: not with --until exit`);
  if (requests.length && until.mode === 'duration') throw new UsageError('--request sends requests to the address the app listens on: use a ready moment that listens (--until answer, listen or http:/path)');
  return {
    ms: argv.after != null ? parseDuration(argv.after, '--after') : 5000,
    requests,
    rate: argv.requestRate ?? REQUESTS_PER_SECOND * Math.max(1, requests.length),
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

// coldstart check

/**
 * --runs N | N..M | N..N -> { runs, maxRuns }: N runs first; while they cannot decide, more up to M
 * (3 times N when only N is given).
 */
function parseRuns(argv) {
  const value = String(argv.runs);
  const m = /^\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?$/.exec(value);
  if (!m) throw new UsageError(`invalid --runs "${value}": give a number of runs N, or N..M to start with N and go on up to M while the runs cannot decide`);
  const runs = Number(m[1]);
  if (runs < 1) throw new UsageError(`invalid --runs "${value}": at least 1 run`);
  if (m[2] !== undefined) {
    if (Number(m[2]) < runs) throw new UsageError(`invalid --runs "${value}": N..M goes on from N runs up to M, so M must be at least N`);
    return { runs, maxRuns: Number(m[2]) };
  }
  // By default a check that cannot decide goes on up to three times the runs asked for.
  return { runs, maxRuns: 3 * runs };
}

// --budget's keys: what each limits, and how its value reads.
const BUDGET_KEYS = {
  ready: { limit: 'budgetMs', parse: (v, flag) => parseDuration(v, flag) },
  modules: { limit: 'maxModules', parse: (v, flag) => parseCount(v, flag, 1) },
  advice: { limit: 'maxAdviceMs', parse: (v, flag) => parseDuration(v, flag) },
  rss: { limit: 'maxRssBytes', parse: (v, flag) => parseSize(v, flag) },
  heap: { limit: 'maxHeapBytes', parse: (v, flag) => parseSize(v, flag) },
};

/**
 * --budget 800ms,modules=1500,advice=50ms (repeatable) -> { budgetMs, maxModules, maxAdviceMs }, null
 * for a limit not given.
 */
function parseBudget(argv) {
  const limits = { budgetMs: null, maxModules: null, maxAdviceMs: null, maxRssBytes: null, maxHeapBytes: null };
  const given = {};
  for (const item of listItems(argv.budget)) {
    const m = /^(?:([^=]*)=)?(.*)$/s.exec(item);
    const key = m[1] === undefined ? 'ready' : m[1].trim();
    const spec = Object.hasOwn(BUDGET_KEYS, key) ? BUDGET_KEYS[key] : null;
    if (!spec) throw new UsageError(`invalid --budget "${item}": unknown limit "${key}"; use a time to ready (800ms or ready=800ms), modules=1500, advice=50ms, rss=256MiB or heap=128MiB`);
    if (given[key]) throw new UsageError(`--budget gives ${key} twice ("${given[key]}", "${item}"): give each limit once`);
    given[key] = item;
    try {
      limits[spec.limit] = spec.parse(m[2].trim(), '--budget');
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      const why = key === 'modules' ? 'a whole number of modules >= 1, e.g. modules=1500'
        : key === 'rss' || key === 'heap' ? `a size with its unit, e.g. ${key}=256MiB (Mi = 2^20 bytes, MB = 10^6)`
          : `a duration such as ${key === 'ready' ? '800ms or 1.5s' : '50ms'}`;
      throw new UsageError(`invalid --budget "${item}": ${key} takes ${why}`);
    }
  }
  return limits;
}

// Without --tolerance: 10% of the baseline's median, and never less than 10 ms. Below that a busy
// machine alone moves a small app's start (measured: a 33 ms app, one core busy, +7.9 ms
// [4.3 … 11.8] over its idle baseline while the bare Node floor did not move).
const DEFAULT_TOLERANCE = { percent: 10, atLeastMs: 10 };

/**
 * --tolerance: '10%' (of the baseline's median) or a duration such as '25ms' (absolute); not
 * given: DEFAULT_TOLERANCE.
 * @param {string|number|undefined} value
 * @returns {{ percent: number, atLeastMs?: number } | { ms: number }}
 */
function parseTolerance(value) {
  if (value === undefined) return DEFAULT_TOLERANCE;
  const text = String(value).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (pct) return { percent: Number(pct[1]) };
  if (/^0+(?:\.0+)?(ms|s)?$/.test(text)) return { ms: 0 };
  if (/^\d+(?:\.\d+)?(ms|s|m)$/.test(text)) return { ms: parseDuration(text, '--tolerance') };
  throw new UsageError(`invalid --tolerance "${value}": use a percentage such as 10% or a duration such as 25ms`);
}

// coldstart bench

const DEFAULT_RUNTIMES = 'runc,runsc';

/** The words of one --compare command line. */
function parseCompareCommand(line) {
  let words;
  try {
    words = splitShellWords(line);
  } catch (err) {
    if (err.unclosed) throw new UsageError(`unterminated ${err.unclosed} quote in --compare "${line}"`);
    throw new UsageError(`invalid --compare "${line}": ${err.message}`);
  }
  if (!words.length) throw new UsageError('empty --compare command');
  return words;
}

/** --containers a,b: names, checked against the engine's runtimes when the containers are about to run. */
function parseRuntimes(value) {
  const names = String(value).split(',').map((s) => s.trim());
  if (names.some((n) => !n)) throw new UsageError(`invalid --containers "${value}": give runtimes of the Docker engine, e.g. runc,runsc`);
  return [...new Set(names)];
}

/** A container's ready moment: --until line:/REGEX/, else `otherwise`, by default a line saying it listens. */
function containerReadyLine(until, otherwise = /listening/i) {
  return until.mode === 'line' ? until.pattern : otherwise;
}

/**
 * bench's seed scenarios by name, comma separated, the flag possibly repeated (the old --scenario,
 * lib/deprecated-flags.js) -> the distinct names in the order given.
 */
function parseScenarios(value) {
  const { SCENARIO_NAMES } = require('./bench/scenarios.js');
  const names = [];
  for (const word of listWords(value)) {
    if (!SCENARIO_NAMES.includes(word)) {
      const shown = word === '' ? 'an empty name' : `"${word}"`;
      throw new UsageError(`unknown --scenario ${shown}: use ${SCENARIO_NAMES.join(', ')} (comma separated)`);
    }
    if (!names.includes(word)) names.push(word);
  }
  return names;
}

// -o FILE: what its extension writes.
const SAVED = { '.html': 'html', '.csv': 'csv', '.json': 'json' };

/** -o FILE: the file and its format, from its extension. */
function savedFromArgv(argv, cwd) {
  if (argv.out === undefined) return null;
  const format = SAVED[path.extname(String(argv.out)).toLowerCase()];
  if (!format) throw new UsageError(`-o ${argv.out}: name a .html file (a chart), .csv (the samples) or .json (the whole result)`);
  return { file: outputFile(argv.out, '-o', cwd), format };
}

/** Fails before any run when an output file could not be written at the end. */
function outputFile(value, flag, cwd) {
  if (value === undefined) return null;
  if (typeof value !== 'string' || !value) throw new UsageError(`${flag} needs a file name`);
  const file = path.resolve(cwd, value);
  const dir = path.dirname(file);
  try {
    if (!fs.statSync(dir).isDirectory()) throw new Error('not a directory');
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw new UsageError(`cannot write ${flag} ${value}: ${dir} ${err.code === 'ENOENT' ? 'does not exist' : 'is not writable'}`);
  }
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) throw new UsageError(`${flag} ${value} is a directory`);
  return file;
}

// coldstart pack

/**
 * --code-cache: 'run' alone (recorded from a second start of the app), 'compile' for --code-cache
 * compile, null without it.
 */
function codeCacheMode(argv) {
  const value = argv.codeCache;
  if (value == null || value === false) return null;
  if (value !== '' && value !== 'compile') {
    throw new UsageError(`invalid --code-cache "${value}": give --code-cache alone (recorded from a second start of the app) or --code-cache compile (compiled without running the app); the app command goes after --`);
  }
  return value === 'compile' ? 'compile' : 'run';
}

/** --after as milliseconds; 0 without it. */
function settleMs(argv) {
  if (argv.after == null) return 0;
  if (argv.until === 'exit') throw new UsageError('--after keeps the app running after its ready moment: not with --until exit');
  return parseDuration(argv.after, '--after');
}

module.exports = {
  afterWindowFromArgv, parseDuration, parseSize, parseLimits, parseUntil, parseBenchUntil, parseInterval, parseCount, listItems, parseEsm, captureOptions, lambdaOptions, captureOptionsFromArgv, parseRequestLine,
  parseRuns, parseBudget, DEFAULT_TOLERANCE, parseTolerance,
  DEFAULT_RUNTIMES, parseCompareCommand, parseRuntimes, containerReadyLine, parseScenarios, savedFromArgv, outputFile,
  codeCacheMode, settleMs,
};
