'use strict';
// profile --verify-advice: the lazy-load advice proven, not guessed. The app is started again, in
// alternation (the alternating-runs engine), as it is and with each proposed require made lazy (a
// stand-in that loads the real module at its first touch: lazy-stand-in.cjs), timed to ready
// without instrumentation. A candidate is dropped when the app does not start that way, when
// startup touches the module anyway, or when a request (--request) answers differently; the others
// get the saving measured from the alternating runs: the median shift with its interval, or "noise".
const path = require('path');
const { compareSamples, ENOUGH_RUNS } = require('../stats.js');
const { alternateRuns, STOP, DROP } = require('../measure/alternate-runs.js');
const { LAZY_ENV } = require('../in-app/lazy-stand-in.cjs');
const { differentAnswer } = require('./same-answers.js');

/** Timed starts of each variant: as many as bench and bundle ask for to compare two ways of starting. */
const VERIFY_RUNS = ENOUGH_RUNS;

/**
 * @param {{ report: object, runOptions: object, runs?: number, requests?: Array<{method: string, path: string}>,
 *   max?: number, signal?: AbortSignal, force?: AbortSignal, onProgress?: (text: string) => void }} options
 *   report: report.json of the profile run (its lazy-load advice and root); runOptions: the capture
 *   options of that run (command, cwd, env, until, timeoutMs, esm, stdout, stderr); runs: timed
 *   starts of each variant (VERIFY_RUNS)
 * @returns {Promise<Array<{ subject: string, file: string, line: number|null, verdict: 'confirmed'|'noise'|
 *   'too few runs'|'not verified'|'dropped', measuredMs?: number, low?: number, high?: number, runs?: number,
 *   reason?: string }>>} one per candidate tried, the advice's order
 */
async function verifyLazyAdvice({ report, runOptions, runs = VERIFY_RUNS, requests = [], max = 3, signal, force, onProgress = () => {} }) {
  const { capture } = require('./capture.js');
  const { askOf } = require('./request-driver.js');
  const candidates = report.advice.filter((a) => a.kind === 'lazy-load').slice(0, max);
  const trials = candidates.map((advice) => {
    const trial = { advice, samples: [], outcome: null };
    if (advice.form === 'import') trial.outcome = { verdict: 'not verified', reason: 'an ES module import: coldstart can stand in for require() only' };
    const parent = path.resolve(report.root, advice.file);
    trial.parent = parent;
    trial.env = { ...(runOptions.env || process.env), [LAZY_ENV]: JSON.stringify([{ parent, request: advice.request }]) };
    return trial;
  });
  const live = () => trials.filter((t) => !t.outcome);
  if (!live().length) return trials.map(outcomeOf);

  // With --request, the first round also asks each request once, of the app as it is and with each
  // stand-in; a round runs them in any order, so the answers are compared once both are in.
  const ask = requests.length ? askOf(requests) : null;
  const run = (env, answer) => capture({ ...runOptions, env, timingOnly: true, whileRunning: answer || undefined, signal, force });
  let reference = null;
  const plain = {
    name: 'plain',
    run: async ({ round }) => {
      if (!live().length) return STOP; // every candidate has its outcome
      onProgress(`verifying the advice: run ${round + 1}/${runs} of the app as it is and with ${live().length} require${live().length === 1 ? '' : 's'} made lazy`);
      const base = await run(runOptions.env, round === 0 && ask);
      if (base.partial) return STOP; // interrupted
      if (round === 0) {
        reference = base.whileRunning;
        for (const trial of live()) if ('answer' in trial) dropWhenChanged(trial, trial.answer);
      }
      return base.readyAt;
    },
  };
  // A stand-in whose answer differs from the app's is dropped; until the app has answered, kept.
  const dropWhenChanged = (trial, answer) => {
    const changed = reference ? differentAnswer(reference, answer) : '';
    if (changed) trial.outcome = { verdict: 'dropped', reason: `with it loaded lazily ${changed}` };
  };
  const lazy = (trial, index) => ({
    name: String(index),
    run: async ({ round }) => {
      if (trial.outcome) return { [DROP]: trial.outcome.reason || trial.outcome.verdict }; // dropped after its run
      const first = round === 0;
      let r;
      try {
        r = await run(trial.env, first && ask);
      } catch (err) {
        if (err.exitCode === 130) throw err;
        trial.outcome = { verdict: 'dropped', reason: `the app does not start with it loaded lazily: ${err.message}` };
        return { [DROP]: trial.outcome.reason };
      }
      if (r.partial) return STOP;
      const touch = (r.lazyLoaded || []).find((l) => l.atMs <= r.readyAt);
      if (touch) trial.outcome = touchedAtStartup(touch, trial);
      if (!touch && first && ask) {
        trial.answer = r.whileRunning;
        dropWhenChanged(trial, r.whileRunning);
      }
      return trial.outcome ? { [DROP]: trial.outcome.reason || trial.outcome.verdict } : r.readyAt;
    },
  });
  const measured = await alternateRuns({ variants: [plain, ...trials.map((t, i) => (t.outcome ? null : lazy(t, i))).filter(Boolean)], rounds: runs });
  trials.forEach((trial, i) => { if (!trial.outcome) trial.samples = measured.samples[String(i)] || []; });
  const plainTimes = measured.samples.plain;
  for (const trial of live()) {
    const cmp = compareSamples(plainTimes, trial.samples);
    const measured = { measuredMs: round(-cmp.shift), low: cmp.high == null ? null : round(-cmp.high), high: cmp.low == null ? null : round(-cmp.low), runs: trial.samples.length };
    if (cmp.verdict === 'faster') trial.outcome = { verdict: 'confirmed', ...measured };
    else if (cmp.verdict === 'slower') trial.outcome = { verdict: 'dropped', reason: 'startup was slower with it loaded lazily', ...measured };
    else trial.outcome = { verdict: cmp.verdict, ...measured };
  }
  return trials.map(outcomeOf);
}

const round = (n) => (n == null ? null : Math.round(n * 100) / 100);

function outcomeOf(trial) {
  const { subject, file, line } = trial.advice;
  return { subject, file, line, ...(trial.outcome || { verdict: 'too few runs', runs: trial.samples.length }) };
}

/**
 * Startup touched the stand-in before ready. Where it did tells which: at the require itself (a
 * destructuring `const { x } = require(...)`), the advice stands but only a hand-made change can
 * show it; anywhere else, startup needs the module.
 */
function touchedAtStartup(touch, trial) {
  const { line } = trial.advice;
  if (touch.at && touch.at.file === trial.parent && touch.at.line === line) {
    return { verdict: 'not verified', reason: 'its exports are read where it is required (a destructuring require): move the require into the code that uses them and measure with coldstart check --baseline-cmd' };
  }
  const where = touch.at ? `${path.relative(path.dirname(trial.parent), touch.at.file) || path.basename(touch.at.file)}:${touch.at.line}` : 'an unknown place';
  return { verdict: 'dropped', reason: `startup uses it after all (first touched at ${where}, before ready)` };
}

module.exports = { verifyLazyAdvice, VERIFY_RUNS };
