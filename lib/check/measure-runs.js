'use strict';
// The runs `coldstart check` judges: the app timed to ready n times, each run paired with the
// machine's floor (a bare Node reaching the same ready moment) or with the baseline command.
const { CommandError } = require('../errors.js');

// Module records come from this many of the runs (each a capture with module hooks but no
// profiler): enough for the interval of a module's shift, cheap enough to do every check.
const DETAIL_RUNS = 5;

/**
 * The command a bare Node runs to reach the same ready moment as the app with nothing loaded:
 * the machine's floor. The same node binary as the app when the app is started with node.
 * @returns {?string[]} null for --until <duration>, where the ready moment is fixed anyway
 */
function floorCommand(appCommand, until) {
  const { isNode } = require('../node-command.js');
  const node = isNode(appCommand[0]) ? appCommand[0] : process.execPath;
  if (until.mode === 'listen') return [node, '-e', "require('net').createServer().listen(0, '127.0.0.1')"];
  if (until.mode === 'exit') return [node, '-e', '0'];
  if (until.mode === 'http') {
    // A bare Node that answers the probe at once, on the probe's port when it names one.
    const port = (/^http:\/\/[^/]*?:(\d+)/.exec(until.url) || [])[1] || 0;
    return [node, '-e', `require('http').createServer((q, s) => s.end()).listen(${port}, '127.0.0.1')`];
  }
  return null;
}

/**
 * n rounds, each: the app to ready timed only (no inspector, no hooks), then the machine's floor,
 * timed the same way; the first DETAIL_RUNS rounds start with a run that records the modules
 * (the first of them also warms the disk cache). With a baseline command, each round runs it
 * right after the app, the same way, instead of the floor: both are then measured alike.
 * With adviceRuns, that many more runs under the profiler with coverage find the avoidable startup
 * work (the advice of coldstart profile): report.adviceCheck = { totals (ms per run), findings }.
 * @param {{runOptions: object, runs: number, baselineCommand: ?string[], adviceRuns?: number, onProgress?: (text: string) => void}} options
 * @returns {Promise<{ report: object, baseline: ?object }>} reports built from the detailed runs,
 *   with every run kept in `check`
 */
async function measureRuns({ runOptions: common, runs, baselineCommand, adviceRuns = 0, onProgress = () => {} }) {
  const { capture } = require('../capture/capture.js');
  const { trapInterrupts } = require('../interrupt.js');
  const traps = trapInterrupts();
  const floor = baselineCommand ? null : floorCommand(common.command, common.until || { mode: 'listen' });
  const subjects = [{ command: common.command, details: [], samples: [], control: [] }];
  const advised = [];
  if (baselineCommand) subjects.push({ command: baselineCommand, details: [], samples: [], control: [] });
  const timed = async (command) => {
    if (traps.interrupted()) throw new CommandError('interrupted', { exitCode: 130 });
    const r = await capture({ ...common, command, timingOnly: true, signal: traps.signal, force: traps.force });
    if (r.partial || !Number.isFinite(r.readyAt)) throw new CommandError('interrupted', { exitCode: 130 });
    return r.readyAt;
  };
  try {
    for (let i = 0; i < runs; i++) {
      for (const subject of subjects) {
        if (i < DETAIL_RUNS) {
          onProgress(`run ${i + 1}/${runs}, loading modules…`);
          const detail = await capture({ ...common, command: subject.command, signal: traps.signal, force: traps.force });
          if (detail.partial) throw new CommandError('interrupted', { exitCode: 130 });
          subject.details.push(detail);
        }
      }
      onProgress(`run ${i + 1}/${runs}…`);
      for (const subject of subjects) {
        subject.samples.push(await timed(subject.command));
        if (floor) subject.control.push(await timed(floor));
      }
    }
    for (let i = 0; i < adviceRuns; i++) {
      onProgress(`looking for avoidable startup work ${i + 1}/${adviceRuns}…`);
      const full = await capture({ ...common, profile: true, coverage: true, signal: traps.signal, force: traps.force });
      if (full.partial) throw new CommandError('interrupted', { exitCode: 130 });
      advised.push(adviceOf(full));
    }
  } finally {
    traps.dispose();
  }
  const [app, base] = subjects.map((subject) => checkReport(subject, runs, floor));
  if (adviceRuns) {
    // The run whose total is the median stands for the others in the report.
    const sorted = [...advised].sort((a, b) => a.totalMs - b.totalMs);
    app.adviceCheck = { totals: advised.map((a) => a.totalMs), findings: sorted[(sorted.length - 1) >> 1].findings };
  }
  return { report: app, baseline: base || null };
}

/** The advice of one profiled run with coverage, and the time it says could be saved in all. */
function adviceOf(result) {
  const { buildReport } = require('../analyze/startup-report.js');
  const { readSource } = require('../report/profile-artifacts.js');
  const findings = buildReport(result, { readSource }).advice;
  return { findings, totalMs: Math.round(findings.reduce((sum, a) => sum + a.estimatedMs, 0) * 100) / 100 };
}

/** A report.json of the detailed runs whose readyAt is the median of the timed runs, every run kept in `check`. */
function checkReport({ details, samples, control }, runs, floor) {
  const { buildReport } = require('../analyze/startup-report.js');
  const { runSamples } = require('../report/run-samples.js');
  const { median } = require('../stats.js');
  const reports = details.map((d) => buildReport(d));
  const round = (n) => Math.round(n * 100) / 100;
  return {
    ...reports[0],
    // The figure compared: the median of the timed runs (module records come from the detailed runs).
    readyAt: round(median(samples)),
    check: {
      runs,
      samples: samples.map(round),
      control: floor ? control.map(round) : null,
      controlCommand: floor,
      detail: runSamples(reports),
    },
  };
}

module.exports = { measureRuns, floorCommand };
