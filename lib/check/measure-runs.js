'use strict';
// The runs `coldstart check` judges: the app timed to ready round after round, each run followed
// by the control app (control.js) or by the baseline command, timed the same way; the first
// rounds also record the modules of each side. The rounds go through the one alternating-runs
// engine (lib/measure/alternate-runs.js).
const { CommandError } = require('../errors.js');
const { controlCommand } = require('./control.js');

// Module records come from this many of the rounds at most (each a capture with module hooks but
// no profiler): a package's move is told from noise among all the packages compared only with
// enough runs a side (6 a side can single out one among 20; 10 among thousands).
const DETAIL_RUNS = 10;
// How a start fails without any fault of the check: it hung past --timeout, crashed (killed over
// --memory too), or exited.
const FAILED_START = new Set(['TIMEOUT', 'APP_FAILED', 'EXIT_WITHOUT_LISTEN', 'OUT_OF_MEMORY']);

/**
 * @typedef {{ samples: number[], runQueue: Array<?number>, control?: ?number[], controlRunQueue?: ?Array<?number> }} TimedRuns
 *   times to ready and, run for run, what each run waited for a CPU (baseline-runs.js judgedRuns)
 */

/**
 * n rounds, each: the app to ready timed only (no inspector, no hooks), then the control app,
 * timed the same way, after one uncounted warm-up round of every side; the first DETAIL_RUNS
 * rounds start with a run that records the modules. With a baseline command, each round runs it
 * right after the app, the same way, instead of the control app: both are then measured alike.
 * With `more`, rounds go on one at a time while more.inconclusive(app, baseline) says the runs
 * cannot decide, up to more.atMost.
 * With adviceRuns, that many more runs under the profiler with coverage find the avoidable startup
 * work (the advice of coldstart profile): report.adviceCheck = { totals (ms per run), findings }.
 * @param {{runOptions: object, runs: number, baselineCommand: ?string[], adviceRuns?: number,
 *   more?: { atMost: number, inconclusive: (app: TimedRuns, baseline: ?TimedRuns) => boolean },
 *   onProgress?: (text: string) => void}} options
 * @returns {Promise<{ report: object, baseline: ?object }>} reports built from the detailed runs,
 *   with every run kept in `check`
 */
async function measureRuns({ runOptions: common, runs, baselineCommand, adviceRuns = 0, more = null, onProgress = () => {} }) {
  const { capture } = require('../capture/capture.js');
  const { trapInterrupts } = require('../interrupt.js');
  const { alternateRuns, STOP } = require('../measure/alternate-runs.js');
  const traps = trapInterrupts();
  const control = baselineCommand ? null : controlCommand(common.command, common.until || { mode: 'listen' });
  const detailRuns = Math.min(runs, DETAIL_RUNS);
  const details = { app: [], baseline: [] };
  const waits = { app: [], baseline: [], control: [] }; // what each timed run waited for a CPU, run for run
  const advised = [];
  const go = (options) => capture({ ...common, ...options, signal: traps.signal, force: traps.force });
  // A start of the app that hangs or crashes is counted and started again: one start in fifty that
  // never becomes ready is an outage no median shows. More failures than that bound end the check.
  const failed = [];
  let starts = 0;
  const mostFailures = 3 + Math.floor(runs / 10);
  const start = async (name, options) => {
    for (;;) {
      if (name === 'app') starts++;
      try {
        return await go(options);
      } catch (err) {
        if (name !== 'app' || !(err instanceof CommandError) || !FAILED_START.has(err.code) || failed.length >= mostFailures) throw err;
        failed.push({ start: starts, kind: err.code === 'TIMEOUT' ? 'hung' : 'crashed', message: err.message, ...(err.details && err.details.hung ? { hung: err.details.hung } : {}) });
        onProgress(`start ${starts} of the app failed (${failed.length} so far): ${err.message}`);
      }
    }
  };
  const side = (name, command) => ({
    name,
    run: async ({ round, warmup }) => {
      if (traps.interrupted()) return STOP;
      // The warm-up round: each side once with module hooks, uncounted, so no side's first detailed
      // run is the one that finds the disk cache cold (that alone made an unchanged app's entry a mover).
      if (warmup) {
        const r = await start(name, { command });
        return r.partial ? STOP : r.readyAt;
      }
      if (details[name] && round < detailRuns) {
        const detail = await start(name, { command });
        if (detail.partial) return STOP;
        details[name].push(detail);
      }
      const r = await start(name, { command, timingOnly: true });
      if (r.partial || !Number.isFinite(r.readyAt)) return STOP;
      waits[name].push(r.runQueueMs ?? null);
      return r.readyAt;
    },
  });
  const variants = [side('app', common.command)];
  if (baselineCommand) variants.push(side('baseline', baselineCommand));
  if (control) variants.push(side('control', control));
  let measured;
  try {
    measured = await alternateRuns({
      variants,
      rounds: runs,
      warmup: 1,
      more: more && {
        atMost: more.atMost,
        needed: (s) => more.inconclusive(
          { samples: s.app, runQueue: waits.app, control: s.control || null, controlRunQueue: s.control ? waits.control : null },
          s.baseline ? { samples: s.baseline, runQueue: waits.baseline } : null,
        ),
      },
      onRun: ({ round, rounds, warmup }) => onProgress(warmup ? 'warm-up run…' : `run ${round + 1}/${rounds}${round < detailRuns ? ', with module records' : ''}…`),
    });
    if (measured.partial) throw new CommandError('interrupted', { exitCode: 130 });
    for (let i = 0; i < adviceRuns; i++) {
      onProgress(`looking for avoidable startup work ${i + 1}/${adviceRuns}…`);
      const full = await go({ profile: true, coverage: true });
      if (full.partial) throw new CommandError('interrupted', { exitCode: 130 });
      advised.push(adviceOf(full));
    }
  } finally {
    traps.dispose();
  }
  const { samples } = measured;
  const app = checkReport(details.app, { samples: samples.app, runQueue: waits.app }, control && { samples: samples.control, runQueue: waits.control }, control);
  app.check.starts = { attempted: starts, failed };
  const base = baselineCommand ? checkReport(details.baseline, { samples: samples.baseline, runQueue: waits.baseline }, null, null) : null;
  if (adviceRuns) {
    // The run whose total is the median stands for the others in the report.
    const sorted = [...advised].sort((a, b) => a.totalMs - b.totalMs);
    app.adviceCheck = { totals: advised.map((a) => a.totalMs), findings: sorted[(sorted.length - 1) >> 1].findings };
  }
  return { report: app, baseline: base };
}

/** The advice of one profiled run with coverage, and the time it says could be saved in all. */
function adviceOf(result) {
  const { buildReport } = require('../analyze/startup-report.js');
  const { readSource } = require('../report/profile-artifacts.js');
  const findings = buildReport(result, { readSource }).advice;
  return { findings, totalMs: Math.round(findings.reduce((sum, a) => sum + a.estimatedMs, 0) * 100) / 100 };
}

/**
 * A report.json of the detailed runs whose readyAt is the median of the timed runs, every run kept
 * in `check`: its time to ready and what it waited for a CPU (null where Linux does not say).
 */
function checkReport(details, timed, control, controlCommand) {
  const { samples } = timed;
  const { buildReport } = require('../analyze/startup-report.js');
  const { runSamples } = require('../report/run-samples.js');
  const { median } = require('../stats.js');
  const reports = details.map((d) => buildReport(d));
  const round = (n) => Math.round(n * 100) / 100;
  const waits = (xs) => xs.map((x) => (x == null ? null : round(x))); // null: the kernel did not say
  return {
    ...reports[0],
    // The figure compared, the same wherever it is shown: the median of the timed runs as they
    // are kept (module records come from the detailed runs).
    readyAt: median(samples.map(round)),
    check: {
      runs: samples.length,
      samples: samples.map(round),
      runQueue: waits(timed.runQueue),
      control: control ? control.samples.map(round) : null,
      controlRunQueue: control ? waits(control.runQueue) : null,
      controlCommand,
      detail: runSamples(reports),
      // Memory at the ready moment in each detailed run (the timed runs read none).
      memory: reports.filter((r) => r.memory).map((r) => ({ rssBytes: r.memory.rssBytes, heapUsedBytes: r.memory.heapUsedBytes })),
    },
  };
}

module.exports = { measureRuns };
