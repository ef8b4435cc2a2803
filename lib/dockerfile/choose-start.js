'use strict';
// coldstart dockerfile --choose: the ways a Dockerfile can start the app, made on this machine,
// each proven to answer as plain node does, timed alternated, and the fastest written: plain node,
// Node's compile cache alone, `coldstart start` of the app's modules (the default Dockerfile), an ncc
// bundle with Node's compile cache, `coldstart start` of that bundle (--bundle), and a startup
// snapshot of the modules (--snapshot), where the app can have one. Within the noise of the
// fastest, the first of them in that order: the simpler image (the snapshot last: its modules run
// at build). Timed here by default, where file system calls are cheap, so the gaps are narrower
// than under gVisor; with a runtime, the starts proven here are timed in fresh containers of their
// own images under it (time-in-sandbox.js), and those times decide.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { alternateRuns, DROP } = require('../measure/alternate-runs.js');
const { medianInterval, ratioInterval, compareSamples } = require('../stats.js');
const { CommandError } = require('../errors.js');
const { COLDSTART_BIN } = require('../paths.js');
const { askOf } = require('../capture/request-driver.js');
const { DEFAULT_REQUESTS, differentAnswer, varyingBodies, provenAnswers } = require('../capture/same-answers.js');

/**
 * The starts, in the order the table lists them and ties go: the simpler image first. writes: the
 * Dockerfile that starts the app so (render-dockerfile.js STARTS).
 */
const STARTS = [
  { name: 'plain', label: 'plain node', writes: 'plain' },
  { name: 'compile-cache', label: "Node's compile cache alone", compileCache: true, writes: 'compile-cache' },
  { name: 'start', label: 'coldstart start of the modules', writes: 'modules', archive: 'modules.tar' },
  { name: 'bundle-compile-cache', label: "ncc bundle + Node's compile cache", bundle: true, compileCache: true, writes: 'bundle-compile-cache' },
  { name: 'bundle-start', label: 'coldstart start of the ncc bundle', bundle: true, writes: 'bundle', archive: 'bundle.tar' },
  { name: 'snapshot', label: 'a startup snapshot of the modules', writes: 'snapshot', archive: 'snapshot.tar', snapshot: 'startup.blob' },
];
const AT_READY = path.join(__dirname, '..', 'in-app', 'compile-cache-at-ready.cjs');

/**
 * @param {{root: string, command: string[], env: object, runs: number, requests?: Array<{method: string, path: string}>,
 *   unwritable?: Object<string, string>, until: object, timeoutMs: number, onProgress?: (text: string) => void,
 *   signal?: AbortSignal, force?: AbortSignal, sandbox?: ?{description: object, runtime: string, baseImage?: ?string}}} options
 *   command: `node [flags] entry [args]`, run in root; unwritable: starts timed but not to be written, with why;
 *   sandbox: time the proven starts there instead (here they only answer)
 * @returns {Promise<{chosen: ?string, rows: object[], fastest: ?{name: string, comparison: object},
 *   runs: number, requests: object[], statusOnly: string[], runtime?: string}>} chosen: the Dockerfile to write (render-dockerfile.js STARTS);
 *   rows: one per start, in STARTS order, with its samples (ms to ready), median interval, ratio to
 *   plain, whether it answered as plain did and why not; fastest: the fastest start by its median,
 *   and the chosen one against it when they differ; requests and statusOnly: what was proven (provenAnswers);
 *   runtime: where the starts were timed, with a sandbox
 */
async function chooseStart({ root, command, env, runs, requests = DEFAULT_REQUESTS, unwritable = {}, until, timeoutMs, onProgress = () => {}, signal, force, sandbox = null }) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-choose-'));
  const quiet = { write: () => true };
  const base = { env, until, timeoutMs, stdout: quiet, stderr: quiet, signal, force };
  try {
    const { where, problems } = await makeStarts({ root, command, base, work, onProgress });
    const made = STARTS.filter((s) => !problems[s.name] && where(s));
    const asked = Object.fromEntries(made.map((s) => [s.name, []]));
    const ask = askOf(requests);
    const variants = made.map((start) => timedStart(start, { run: where(start), base, work, asked, problems, ask, runs, sandbox, count: made.length, onProgress }));
    // With a sandbox, the runs here only ask: plain twice, the others once.
    const measured = await alternateRuns({ variants, rounds: sandbox ? 2 : runs, signal });
    if (measured.partial) throw new CommandError('interrupted: no start chosen', { exitCode: 130 });
    const answers = checkAnswers(made, asked, problems, requests);
    if (!sandbox) return decide({ samples: measured.samples, problems, unwritable, runs, answers });
    const { timeInSandbox } = require('./time-in-sandbox.js');
    const timed = await timeInSandbox({
      ...sandbox, starts: made.filter((s) => !problems[s.name] && !unwritable[s.name]), runs, timeoutMs, onProgress, signal,
    });
    if (timed.partial) throw new CommandError('interrupted: no start chosen', { exitCode: 130 });
    const notTimed = Object.fromEntries(Object.entries(unwritable).map(([name, why]) => [name, `not timed: ${why}`]));
    return { ...decide({ samples: timed.samples, problems: { ...notTimed, ...problems, ...timed.problems }, runs, answers }), runtime: sandbox.runtime };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Each start made in `work`: the ncc bundle, the archives (with their code cache, one with a
 * snapshot), Node's compile cache. where(start): the command and directory it runs from, null where
 * it needs a bundle that could not be made; problems: start name -> why it was not made.
 */
async function makeStarts({ root, command, base, work, onProgress }) {
  const app = { command, cwd: root };
  const problems = {};
  onProgress('bundling the app with ncc');
  let bundled = null;
  try {
    const { bundleApp } = require('../bundle/bundle-app.js');
    const summary = await bundleApp({ ...base, ...app, root, out: path.join(work, 'bundle'), verify: false });
    bundled = { command: summary.start.command, cwd: summary.start.cwd };
  } catch (err) {
    if (err.exitCode === 130) throw err;
    problems['bundle-compile-cache'] = problems['bundle-start'] = `no bundle: ${err.message}`;
  }
  const where = (start) => (start.bundle ? bundled : app);
  for (const start of STARTS.filter((s) => s.archive && where(s))) {
    const why = await packStart(start, where(start), { base, work, onProgress });
    if (why) problems[start.name] = why;
  }
  const canCache = typeof require('node:module').enableCompileCache === 'function';
  for (const start of STARTS.filter((s) => s.compileCache && where(s))) {
    if (!canCache) problems[start.name] = `Node ${process.versions.node} has no compile cache (22.1 and later)`;
    else {
      onProgress(`building Node's compile cache of ${start.bundle ? 'the bundle' : 'the app'}`);
      const why = await buildCompileCache({ ...where(start), env: base.env, dir: path.join(work, start.name), until: base.until, timeoutMs: base.timeoutMs });
      if (why) problems[start.name] = why;
    }
  }
  return { where, problems };
}

/** A start's archive packed (with its code cache, and its snapshot if it has one): why not, or null. */
async function packStart(start, run, { base, work, onProgress }) {
  const { refusedUpFront, refusalText } = require('../pack/make-snapshot.js');
  const refused = start.snapshot && refusedUpFront(run.command, run.cwd);
  if (refused) return `no snapshot: ${refused}`;
  onProgress(start.snapshot ? 'making a startup snapshot of the modules' : `packing ${start.bundle ? 'the bundle' : 'the modules'} with their code cache`);
  try {
    const packed = await require('../pack/pack-app.js').packApp({
      out: path.join(work, start.archive), cwd: run.cwd, capture: { ...base, ...run }, codeCache: 'run', check: false,
      snapshot: start.snapshot && path.join(work, start.snapshot),
    });
    if (start.snapshot && !(packed.snapshot && packed.snapshot.file)) {
      const refusal = packed.snapshot && packed.snapshot.refused;
      return `no snapshot: ${refusal ? refusalText(refusal) : 'pack made none'}`;
    }
    return null;
  } catch (err) {
    if (err.exitCode === 130) throw err;
    return `pack failed: ${err.message}`;
  }
}

/**
 * A start as one variant of the alternated runs: its command where it was made, asked the
 * requests in its first counted run (plain in its first two: a body it gives differently at each
 * start is compared by status only), its time to ready, or dropped with why when it did not start.
 */
function timedStart(start, { run, base, work, asked, problems, ask, runs, sandbox, count, onProgress }) {
  // The snapshot starts in the Node that made it (another refuses it).
  const runCommand = start.snapshot ? [process.execPath, '--snapshot-blob', path.join(work, start.snapshot), ...run.command.slice(1)]
    : start.archive ? [process.execPath, COLDSTART_BIN, 'start', '--quiet', '--archive', path.join(work, start.archive), '--', ...run.command] : run.command;
  const runEnv = start.compileCache ? { ...base.env, NODE_COMPILE_CACHE: path.join(work, start.name) } : base.env;
  const askedRounds = start.name === 'plain' ? 2 : 1;
  const { capture } = require('../capture/capture.js');
  return {
    name: start.name,
    run: async ({ round }) => {
      if (start.name === 'plain') onProgress(sandbox ? `asking each start here, run ${round + 1}/2` : `timing run ${round + 1}/${runs} of ${count} starts`);
      try {
        const r = await capture({ ...base, env: runEnv, command: runCommand, cwd: run.cwd, timingOnly: true, whileRunning: round < askedRounds ? ask : undefined });
        if (round < askedRounds) asked[start.name].push(r.whileRunning);
        return r.readyAt;
      } catch (err) {
        if (err.exitCode === 130) throw err;
        problems[start.name] = `it did not start: ${err.message}`;
        return { [DROP]: problems[start.name] };
      }
    },
  };
}

/** Each start's answers against plain node's (a problem where they differ); the answers proven. */
function checkAnswers(made, asked, problems, requests) {
  const [reference, again] = asked.plain || [];
  if (!reference) throw new CommandError(`plain node did not answer ${requests.map((r) => `${r.method} ${r.path}`).join(', ')}: ${problems.plain || 'it gave no address to ask'}`);
  const varying = varyingBodies(reference, again || null);
  for (const start of made) {
    if (start.name === 'plain' || problems[start.name]) continue;
    const changed = differentAnswer(reference, asked[start.name][0] || null, varying);
    if (changed) problems[start.name] = `it does not answer as plain node does: ${changed}`;
  }
  return provenAnswers(reference, varying);
}

/**
 * The rows of the table and the choice they make (pure): the fastest proven start by its median,
 * or the first start before it in STARTS order within the noise of it.
 */
function decide({ samples, problems, unwritable = {}, runs, answers }) {
  const plain = samples.plain || [];
  const rows = STARTS.map((start) => {
    const own = samples[start.name] || [];
    const proven = !problems[start.name] && own.length > 0;
    return {
      name: start.name, label: start.label, writes: unwritable[start.name] ? null : start.writes, proven,
      problem: problems[start.name] || (unwritable[start.name] ? `timed only: ${unwritable[start.name]}` : null),
      samples: own, median: own.length ? medianInterval(own) : null, ratio: own.length && plain.length ? ratioInterval(plain, own) : null,
    };
  });
  const candidates = rows.filter((r) => r.writes && r.proven);
  if (!candidates.length) return { chosen: null, rows, fastest: null, runs, ...answers };
  const fastest = [...candidates].sort((a, b) => a.median.median - b.median.median)[0];
  // Too few runs to tell is no tie: the fastest median stands.
  const chosen = candidates.find((r) => r === fastest || compareSamples(fastest.samples, r.samples).verdict === 'noise');
  return {
    chosen: chosen.writes,
    rows,
    fastest: chosen === fastest ? { name: fastest.name } : { name: fastest.name, comparison: compareSamples(fastest.samples, chosen.samples) },
    runs,
    ...answers,
  };
}

/**
 * Node's compile cache for a command, built as an image build would: one run with NODE_COMPILE_CACHE
 * up to the ready moment, then a normal exit, when Node writes it. Resolves to why not, or null.
 */
async function buildCompileCache({ command, cwd, env, dir, until, timeoutMs }) {
  const { runInGroup } = require('../pack/run-in-group.js');
  const { UNTIL_ENV } = require('../in-app/ready-moment.cjs');
  const { nodeOptionsWithPreload, readyMomentEnv } = require('../capture/launch.js');
  const node = command[0] === 'node' ? process.execPath : command[0];
  const exit = await runInGroup(node, command.slice(1), {
    cwd, timeoutMs, leftovers: [dir],
    env: { ...env, NODE_COMPILE_CACHE: dir, NODE_OPTIONS: nodeOptionsWithPreload(AT_READY, env.NODE_OPTIONS), [UNTIL_ENV]: readyMomentEnv(until) },
  });
  if (exit.code === 0 && fs.existsSync(dir)) return null;
  const last = exit.stderr.trim().split('\n').pop();
  return `its compile cache could not be built: ${exit.timedOut ? 'not ready in time' : exit.error ? exit.error.message : `exit ${exit.code}${last ? `: ${last}` : ''}`}`;
}

/**
 * The starts an image of this project cannot be written with, each with why (its row says so).
 * @param {{ node: { major: number }, distroless?: boolean }} description detect-project.js's
 * @returns {Record<string, string>}
 */
function unwritableStarts(description) {
  // Node reads NODE_COMPILE_CACHE from 22.1 on: an image of an older Node cannot start that way.
  const noCache = `Node ${description.node.major} in the image has no compile cache`;
  return {
    ...(description.node.major < 22 ? { 'compile-cache': noCache, 'bundle-compile-cache': noCache } : {}),
    // The snapshot is made by the run image's Node, in a shell that a distroless image lacks.
    ...(description.distroless ? { snapshot: 'a distroless image has no shell to make the snapshot in' } : {}),
  };
}

module.exports = { chooseStart, unwritableStarts, decide, STARTS };
