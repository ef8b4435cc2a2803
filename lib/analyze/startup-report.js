'use strict';
// The report.json document: everything a person or a later command (view, diff,
// check) needs from one capture, without the raw CPU profile. Pure.
const { packageTotals, topModules } = require('./require-tree.js');
const { relativeInside } = require('../paths.js');
const { isOwnCode } = require('./own-code.js');

const SCHEMA_VERSION = 1;

// Time by category, flat ({ totalMs, resolve, read, ... }); null without a profile.
function categoriesOf(profile) {
  if (!profile) return null;
  const { categorize } = require('./cpuprofile-categories.js');
  const { totalMs, categories } = categorize(profile);
  return { totalMs, ...categories };
}
const round = (n) => (n == null ? n : Math.round(n * 100) / 100);

/**
 * @param {object} result CaptureResult (its CPU profile, when it has one, gives the categories)
 * @param {{ artifacts?: object, readSource?: (file: string) => string|null, verification?: Array<object>|null, floorMs?: number|null,
 *   advice?: Array<object>|null, runs?: { count: number, readyAt: number[], unstable: Array<object> }|null }} [extra]
 *   advice: found across several runs (profile --runs), instead of this run's own
 *   readSource finds the line of a require for the advice (its line is null without it);
 *   verification: what --verify-advice measured of the lazy-load advice (capture/verify-lazy.js)
 */
function buildReport(captured, extra = {}) {
  // coldstart's own modules (start's launcher and loader, when the app runs under it) are not the app's.
  const result = { ...captured, modules: captured.modules.filter((m) => !isOwnCode(m.file)) };
  const show = (file) => (file && relativeInside(result.root, file)) || file;
  const apart = timeApart(result);
  // A kernel that says what the thread waited for a CPU keeps its CPU clock too; one that does not
  // may count the waits as CPU (gVisor does): there the profile's gaps are taken out as well.
  const cpuClockTrusted = Number.isFinite(result.runQueueMs);
  const modules = result.modules.map((m) => {
    const { gcMs, idleMs, gapMs } = apart.get(m.file) || { gcMs: null, idleMs: null, gapMs: null };
    const { selfMs, offCpuMs } = ownTime(m, gcMs || 0, idleMs || 0, cpuClockTrusted ? 0 : gapMs || 0);
    return {
      file: show(m.file),
      package: m.package,
      kind: m.kind,
      parent: m.parent ? show(m.parent) : null,
      startMs: round(m.startMs),
      resolveMs: round(m.resolveMs),
      loadMs: round(m.loadMs),
      // The module's own work: collections, idle time and time off the CPU inside its window are shown apart.
      selfMs: round(selfMs),
      gcMs: round(gcMs),
      idleMs: round(idleMs),
      offCpuMs: round(offCpuMs),
      inclusiveMs: round(m.inclusiveMs),
    };
  });
  const bytes = result.files.reduce((sum, f) => sum + f.bytes, 0);
  const categories = categoriesOf(result.profile);
  const apm = require('./apm-instrumentations.js').apmInstrumentations(result, { readSource: extra.readSource, show });
  const network = result.network ? require('./network-waits.js').networkReport(result.network, result.readyAt, show) : null;
  return {
    schema: SCHEMA_VERSION,
    command: result.command,
    cwd: result.cwd,
    root: result.root,
    node: result.node,
    until: result.until,
    partial: result.partial,
    readyAt: round(result.readyAt),
    // A server's listen, and with --until answer its first answer ({status}; null: ready at its listen, unanswered says why).
    listenAt: result.listenAt == null ? null : round(result.listenAt),
    ...(result.answer !== undefined ? { answer: result.answer, unanswered: result.unanswered || null } : {}),
    attachMs: round(result.attachMs),
    pid: result.pid,
    exitCode: result.exitCode ?? null,
    address: result.address ?? null,
    files: result.files.length,
    bytes,
    filesByVia: countBy(result.files, 'via'),
    outsideRoot: result.outsideRoot,
    categories,
    machine: machineOf(result, categories, extra.floorMs),
    packages: packageTotals(modules, new Map(result.files.map((f) => [f.path, f.bytes]))),
    modules,
    builtins: result.builtins || [],
    network,
    // --cpus/--memory: the CPU share and memory limit the app ran under, and how they were made.
    limits: result.limits || null,
    // Memory at the ready moment (process.memoryUsage()) and the packages that allocated what is alive then.
    memory: result.memory ? require('./memory-at-ready.js').memoryReport(result.memory, { cpuProfile: result.profile }) : null,
    // Under coldstart start: how it served the app (mode, file check, code cache), and its check of
    // every packed file against the disk (container advice).
    served: result.served || null,
    startVerifyMs: result.profile ? require('./container-advice.js').startVerifyMs(result.profile) : null,
    afterReady: result.afterReady ? afterReadyOf(result, network, show) : null,
    // A Lambda function: init and the first invocation apart, as Lambda bills a cold start.
    lambda: result.lambda ? lambdaPhases(result) : null,
    // An APM preload's instrumentations: each one's own load time, and whether what it patches loaded.
    instrumentations: apm.instrumentations,
    ...(extra.runs ? { runs: extra.runs } : {}),
    ...provable(verifiedAdvice(extra.advice || withOriginals([...adviceOf(result, extra.readSource), ...apm.advice], result.root, extra.readSource)
      .sort((a, b) => b.estimatedMs - a.estimatedMs), extra.verification), result.command),
    artifacts: extra.artifacts || {},
  };
}

// At this share of the profiled time spent waiting for a CPU, the machine inflated the run.
const BUSY_SHARE = 0.1;

/**
 * How much of the profiled time the app's thread was not running though it had work: offCpuMs, the
 * profiled wall time minus the CPU it used minus its waits on the event loop (or the profile's gaps
 * where the CPU time is not known); of that, runQueueMs waiting for a CPU (a busy machine; Linux
 * schedstat), the rest blocked in the kernel (disk reads, page faults). busy: the machine's share
 * (the whole time off the CPU where the wait for a CPU is not known) is 10% or more.
 * floorMs: a bare Node that listens, timed in the same run (profile measures it).
 */
function machineOf(result, categories, floorMs = null) {
  if (!result.machine) return null;
  const totalMs = categories && categories.totalMs > 0 ? categories.totalMs : null;
  let offCpuMs = categories ? categories.offCpu : null;
  if (categories && Number.isFinite(result.cpuMs)) {
    offCpuMs = Math.max(0, categories.totalMs - categories.idle - result.cpuMs, categories.offCpu);
  }
  const runQueueMs = Number.isFinite(result.runQueueMs) ? Math.max(0, result.runQueueMs) : null;
  const share = (ms) => (ms == null || !totalMs ? null : Math.round((ms / totalMs) * 1000) / 1000);
  const machine = {
    offCpuMs: round(offCpuMs),
    offCpuShare: share(offCpuMs),
    runQueueMs: round(runQueueMs),
    runQueueShare: share(runQueueMs),
    loadAverage: result.machine.loadAverage,
    cpus: result.machine.cpus,
    floorMs: floorMs == null ? null : round(floorMs),
  };
  return { ...machine, busy: busyShare(machine) >= BUSY_SHARE };
}

/** The share of the profiled time a busy machine took: waiting for a CPU, else all the time off it. */
function busyShare(machine) {
  return (machine && (machine.runQueueShare ?? machine.offCpuShare)) ?? null;
}

/**
 * A module's own time: the CPU its load used where the agent measured it (a busy machine that
 * kept the thread waiting adds to its wall time, never to this), at most its wall time less the
 * profile's gaps (gapMs, given where the CPU clock counts waits as CPU), else its wall time;
 * collections and waits on the event loop inside its window left out. offCpuMs: the rest of its
 * wall time.
 */
function ownTime(m, gcMs, idleMs, gapMs = 0) {
  const wallMs = Math.max(0, m.selfMs - idleMs);
  const runningMs = Math.max(0, wallMs - gapMs);
  if (m.cpuSelfMs == null) return { selfMs: Math.max(0, runningMs - gcMs), offCpuMs: gapMs ? wallMs - runningMs : null };
  const cpuMs = Math.min(m.cpuSelfMs, runningMs);
  return { selfMs: Math.max(0, cpuMs - gcMs), offCpuMs: wallMs - cpuMs };
}

/**
 * Each finding's place (and each of its sites) in the source the user wrote, where the file is
 * compiled output with a source map: `original: { file, line, column }` beside the compiled place.
 */
function withOriginals(advice, root, readSource) {
  if (!readSource || !root) return advice;
  const path = require('path');
  const { originalPosition } = require('./source-map-position.js');
  const original = (place) => {
    if (!place.file || !place.line || /(^|\/)node_modules\//.test(place.file)) return null;
    const abs = path.resolve(root, place.file);
    const at = originalPosition(abs, readSource(abs), place.line, place.column, readSource);
    return at && { file: relativeInside(root, at.file) || at.file, line: at.line, column: at.column };
  };
  return advice.map((a) => {
    const at = original(a);
    const sites = a.sites && a.sites.map((s) => ({ ...s, ...(original(s) ? { original: original(s) } : {}) }));
    return { ...a, ...(at ? { original: at } : {}), ...(sites ? { sites } : {}) };
  });
}

/** GC and idle time inside each module's own window; empty without a CPU profile. */
function timeApart(result) {
  if (!result.profile || !result.clock) return new Map();
  const { gcByModule } = require('./module-gc.js');
  return gcByModule(result.modules, result.profile, profileClockOf(result));
}

/** A readyAt-clock time (ms) on the CPU profile's clock (µs); undefined without the app's clock. */
function profileClockOf(result) {
  if (!result.clock) return undefined;
  const { startUs, pausedUs } = result.clock;
  return (ms) => startUs + pausedUs + ms * 1000;
}

/** The window after the ready moment (profile --after): CPU in and outside requests, reuse. */
function afterReadyOf(result, network, show) {
  const { afterReadyReport } = require('./after-ready.js');
  return afterReadyReport(result.afterReady, network, { toProfileUs: profileClockOf(result), show });
}

function countBy(list, key) {
  const out = {};
  for (const item of list) out[item[key]] = (out[item[key]] || 0) + 1;
  return out;
}

/** The few figures a summary shows first. */
function headline(report, n = 5) {
  return {
    topPackages: report.packages.slice(0, n),
    topInclusive: topModules(report.modules, 'inclusiveMs', n),
    topSelf: topModules(report.modules, 'selfMs', n),
  };
}

/**
 * What to change, the largest estimated saving first: lazy-load candidates (with --coverage),
 * packages loaded from several copies, synchronous work on the startup path, and heavy entry
 * points the app uses one part of.
 */
function adviceOf(measured, readSource) {
  const { displayPath } = require('../paths.js');
  // Estimates are CPU the modules used: what a busy machine added to their wall time is nobody's saving.
  const result = { ...measured, modules: measured.modules.map(onCpu) };
  const show = (file) => (result.root ? displayPath(result.root, file) : file);
  const lazy = require('./lazy-candidates.js').lazyCandidates(result, { readSource });
  // A module proposed to load lazily takes its top-level work with it: not a second finding.
  const deferred = (file) => lazy.some((a) => file === a.subject || file.startsWith(`node_modules/${a.subject}/`));
  const sync = require('./sync-work.js').syncWork(result, { readSource, show, toProfileUs: profileClockOf(measured) })
    .filter((a) => !(a.subject === 'top-level code' && deferred(a.file)));
  // A lighter entry point is the second-best fix for a package that could load lazily altogether.
  const lighter = require('./heavy-entry-points.js').heavyEntryPoints(result, { readSource })
    .filter((a) => !lazy.some((l) => l.subject === a.subject));
  return [...lazy, ...require('./duplicate-packages.js').duplicatePackages(result, { readSource, show }), ...sync, ...lighter]
    .sort((a, b) => b.estimatedMs - a.estimatedMs);
}

/**
 * The advice with what verification found: a proposal it confirmed or could not tell from noise
 * carries `verified` (verdict, measuredMs and its interval, runs); one it dropped leaves the advice
 * for `adviceDropped`, with the reason. Without verification, the advice as it is.
 */
function verifiedAdvice(advice, verification) {
  if (!verification) return { advice };
  const key = (a) => `${a.subject}\0${a.file}\0${a.line}`;
  const found = new Map(verification.map((v) => [key(v), v]));
  const kept = [];
  const adviceDropped = [];
  for (const a of advice) {
    const v = a.kind === 'lazy-load' ? found.get(key(a)) : null;
    if (v && v.verdict === 'dropped') adviceDropped.push({ kind: a.kind, subject: a.subject, file: a.file, line: a.line, estimatedMs: a.estimatedMs, reason: v.reason });
    else if (v) {
      const { subject, file, line, ...verified } = v;
      kept.push({ ...a, ...(v.measuredMs != null && v.verdict === 'confirmed' ? { measuredMs: v.measuredMs } : {}), verified });
    } else kept.push(a);
  }
  return { advice: kept, adviceDropped };
}

/** A module's times as the CPU it used, where the agent measured it (each capped at its wall time). */
function onCpu(m) {
  if (m.cpuSelfMs == null) return m;
  return { ...m, selfMs: Math.min(m.selfMs, m.cpuSelfMs), inclusiveMs: Math.min(m.inclusiveMs, m.cpuInclusiveMs ?? m.inclusiveMs) };
}

/** A lazy-load proposal not yet measured carries the command that measures it (profile --verify-advice). */
function provable(verified, command) {
  if (!Array.isArray(command) || !command.length) return verified;
  const { shellLine } = require('../shell-words.js');
  const proof = `coldstart profile --verify-advice -- ${shellLine(command)}`;
  return { ...verified, advice: verified.advice.map((a) => (a.kind === 'lazy-load' && !a.verified ? { ...a, command: proof } : a)) };
}

function lambdaPhases(result) {
  const { handler, initMs, invoke } = result.lambda;
  // Init's last wait: the request for an event on its way to the Runtime API.
  const waitMs = result.profile && result.clock ? require('./init-wait.js').initWaitMs(result.profile, result.modules, profileClockOf(result), initMs) : null;
  return {
    handler,
    initMs: round(initMs),
    ...(waitMs === null ? {} : { initWaitMs: round(waitMs) }),
    invoke: invoke && { ms: round(invoke.ms), requestId: invoke.requestId, ok: invoke.ok, error: invoke.error },
  };
}

/** Modules loaded: a production startup report lists packages only, with their module counts. */
function moduleCount(report) {
  return report.modules.length || (report.packages || []).reduce((n, p) => n + (p.modules || 0), 0);
}

/** How a report names its ready moment: 'listening', a first answer, 'exit', the first 2xx of a readiness URL, a mark. */
function momentOf(until, answer) {
  if (until === 'listen' || (/^answer:/.test(until) && answer === null)) return 'listening'; // a server that does not speak HTTP
  if (/^answer:/.test(until)) return `first answer to GET ${until.slice('answer:'.length)}`;
  if (until === 'exit') return 'exit';
  if (/^http:/.test(until)) return `first 2xx of ${until}`;
  if (until === 'lambda init') return 'Lambda init done: the first request for an event';
  if (until === 'lambda first invocation') return 'Lambda init and the first invocation';
  return `the ${until} mark`;
}

/**
 * A server's listen beside its first answer, as one phrase ('listening at 310 ms, answered 200
 * 42 ms later'); null when the report has no first answer to tell.
 * @param {(n: number) => string} fmt how a duration is written
 */
function listenAndAnswer(report, fmt) {
  if (report.answer === undefined || report.listenAt == null) return null;
  if (!report.answer) return `listening at ${fmt(report.listenAt)}, ready then: ${report.unanswered || 'no HTTP answer'}`;
  return `listening at ${fmt(report.listenAt)}, answered ${report.answer.status} ${fmt(Math.max(0, report.readyAt - report.listenAt))} later`;
}

/**
 * Why a function's first invocation failed, as one phrase (its error's type and message); null
 * when it answered or there was none. Takes a capture's or a report's `lambda`.
 */
function invocationFailure(lambda) {
  const invoke = lambda && lambda.invoke;
  if (!invoke || invoke.ok) return null;
  return invoke.error ? `${invoke.error.errorType}: ${invoke.error.errorMessage}` : 'an error without a body';
}

module.exports = { buildReport, busyShare, BUSY_SHARE, headline, moduleCount, momentOf, listenAndAnswer, invocationFailure };
