'use strict';
// The terminal summary of a profile. Reads only the report; returns a string.
const path = require('path');
const { isGvisor } = require('../gvisor.js');
const { INSTALL_DIR } = require('../paths.js');
const { headline, momentOf, listenAndAnswer, invocationFailure, BUSY_SHARE } = require('../analyze/startup-report.js');
const { CATEGORIES } = require('../analyze/cpuprofile-categories.js');
const { ms, size, count, palette, table, shorten } = require('./terminal-format.js');
const { formatLimit } = require('../byte-size.js');

/**
 * @param {object} report report.json content
 * @param {{ color?: boolean, artifacts?: {profile?, files?, report?} }} [opts]
 */
/** The limits a run had: "--cpus 0.5 --memory 64 MiB". */
function limitsText({ cpus, memoryBytes }) {
  return [cpus ? `--cpus ${cpus}` : '', memoryBytes ? `--memory ${formatLimit(memoryBytes)}` : ''].filter(Boolean).join(' ');
}

/** Memory at the ready moment, and the packages that allocated most of the heap alive then. */
function memoryLine(memory) {
  const sampled = memory.sampled || { packages: [] };
  const held = sampled.packages.filter((p) => p.bytes >= 1e6).slice(0, 3);
  // Besides the packages: the loaded modules' sources and compiled code, and the agent's own records.
  const apart = [[sampled.loaderBytes, 'module sources and code'], [sampled.coldstartBytes, 'coldstart\'s own records']].filter(([bytes]) => bytes >= 1e6);
  return `memory at ready: ${size(memory.rssBytes)} resident, heap ${size(memory.heapUsedBytes)} used of ${size(memory.heapTotalBytes)}, ` +
    `${size(memory.externalBytes)} outside it${held.length ? `; held most by ${held.map((p) => `${p.package} ${size(p.bytes)}`).join(', ')}` : ''}` +
    `${apart.length ? `; ${apart.map(([bytes, what]) => `${what} ${size(bytes)}`).join(', ')}` : ''}`;
}

/** A Lambda cold start's two phases, as Lambda bills them. */
function lambdaLine({ handler, initMs, initWaitMs, invoke }, c) {
  const init = `  Lambda ${handler}: init ${c.bold(ms(initMs))}`;
  // A wait that matters: the request for an event on its way through a busy machine.
  const waited = initWaitMs >= 5 && initWaitMs >= 0.05 * initMs;
  if (!invoke) {
    return `${init} (to the runtime's first request for an event${waited ? `; its last ${ms(initWaitMs)} waiting for the request to arrive, which a busy machine slows` : ''})`;
  }
  const outcome = invoke.ok ? 'answered' : `failed: ${invocationFailure({ invoke })}`;
  const initWait = waited ? `; init's last ${ms(initWaitMs)} waiting for its request for an event to arrive, which a busy machine slows` : '';
  return `${init} + first invocation ${c.bold(ms(invoke.ms))} (${outcome}${initWait})`;
}

function renderProfileSummary(report, opts = {}) {
  const c = palette(opts.color);
  const h = headline(report, 5);
  const lines = [];
  const runs = report.runs && report.runs.asked > 1 ? ` after ${report.runs.finished} of ${report.runs.asked} runs` : '';
  const status = report.partial ? c.yellow(` (partial: interrupted${runs})`) : '';
  const moment = momentOf(report.until, report.answer);
  lines.push(`${c.bold('coldstart')}: ready (${moment}) after ${c.bold(ms(report.readyAt))}${status}`);
  lines.push(`  ${count(report.modules.length, 'module')}, ${count(report.files, 'file')}, ${size(report.bytes)} read to start` +
    (report.outsideRoot.length ? `, ${count(report.outsideRoot.length, 'file')} outside the root` : ''));
  const answered = listenAndAnswer(report, ms);
  if (answered) lines.push(`  ${answered}`);
  lines.push(`  root ${report.root}   node ${report.node}`);
  if (report.limits) lines.push(`  under ${limitsText(report.limits)} (${report.limits.how}), as a platform would run it`);
  if (report.memory) lines.push(`  ${memoryLine(report.memory)}`);
  if (report.lambda) lines.push(lambdaLine(report.lambda, c));
  const busy = busyLine(report.machine, report.runs);
  if (busy) lines.push(c.yellow(`  ${busy}`));
  if (report.container) lines.push(`  in a container of ${report.container.image} under ${report.container.runtime}${isGvisor(report.container.runtime) ? ' (gVisor)' : ''}`);

  if (report.categories) {
    const cat = report.categories;
    const parts = CATEGORIES.filter((k) => cat[k] != null).map((k) => `${k} ${ms(cat[k])}`);
    lines.push('', c.bold('Time by category') + c.dim(' (from the CPU profile)'), '  ' + parts.join('  ·  '));
    const gc = gcShare(report);
    if (gc) {
      lines.push(c.yellow(`  garbage collection took ${ms(gc.ms)}, ${Math.round(gc.share * 100)}% of the profiled startup: ` +
        'it falls on whichever module is loading, so module self times leave it out (gc column)'));
    }
  }

  lines.push(...waitedOnLines(report, c));
  lines.push(...afterReadyLines(report, c));

  if (h.topPackages.length) {
    lines.push('', c.bold('Top packages') + c.dim(' (own time; load = wall time with dependencies)'));
    lines.push(table([['package', 'modules', 'own', 'load'],
      ...h.topPackages.map((p) => [p.name, p.modules, ms(p.inclusiveMs), ms(p.loadMs)])], ['l', 'r', 'r', 'r']));
  }
  if (h.topInclusive.length) {
    lines.push('', c.bold('Top modules by inclusive time'));
    lines.push(table(h.topInclusive.map((m) => [shorten(m.file), ms(m.inclusiveMs)]), ['l', 'r']));
    const withGc = h.topSelf.some((m) => m.gcMs != null);
    lines.push('', c.bold('Top modules by self time') + (withGc ? c.dim(' (own work; gc = collections during its load, apart)') : ''));
    lines.push(table(h.topSelf.map((m) => [shorten(m.file), ms(m.selfMs), ...(withGc ? [m.gcMs ? `gc ${ms(m.gcMs)}` : ''] : [])]),
      ['l', 'r', 'r']));
  }
  lines.push(...adviceLines(report, c));
  if (report.outsideRoot.length) {
    lines.push('', c.bold('Read outside the root') + c.dim(' (never packed)'));
    for (const f of report.outsideRoot.slice(0, 5)) lines.push(`  ${f}`);
    if (report.outsideRoot.length > 5) lines.push(c.dim(`  … ${report.outsideRoot.length - 5} more in report.json`));
  }
  const a = opts.artifacts || {};
  lines.push('', c.bold('Written'));
  if (a.profile) lines.push(`  ${a.profile}`);
  if (a.afterReadyProfile) lines.push(`  ${a.afterReadyProfile}`);
  if (a.files) lines.push(`  ${a.files}`);
  if (a.report) lines.push(`  ${a.report}`);
  if (a.html) lines.push(`  ${a.html}`);
  if (a.html || a.profile) lines.push('');
  const coldstart = coldstartCommand();
  if (a.html) lines.push(c.dim(`Open the report:  ${coldstart} view ${a.html}   (a file any browser opens)`));
  if (a.profile) {
    lines.push(c.dim(`Open the profile: ${coldstart} view ${a.profile}   (speedscope, offline)`),
      c.dim('  or Chrome DevTools > Performance > Load profile'));
  }
  return lines.join('\n') + '\n';
}

/**
 * One line when a busy machine inflated the run (report.machine) or others of its runs, or when the
 * app spent much of it blocked in the kernel; else null.
 */
function busyLine(machine, runs) {
  if (!machine) return null;
  const pct = (share) => `${Math.round(share * 100)}%`;
  const busyRuns = ((runs && runs.busyShare) || []).filter((share) => share >= BUSY_SHARE);
  if (!machine.busy && busyRuns.length) {
    return `the machine was busy in ${busyRuns.length} of ${runs.count} runs (the app waiting for a CPU up to ` +
      `${pct(Math.max(...busyRuns))} of the profiled time); the reported run was not: its module times stand`;
  }
  if (!machine.busy) {
    if (!(machine.offCpuShare >= 0.1) || machine.runQueueMs == null) return null;
    return `the app was off the CPU for ${pct(machine.offCpuShare)} of the profiled time (${ms(machine.offCpuMs)}) though ` +
      'not for want of one: blocked in the kernel (disk reads of a cold cache, page faults); module times are the CPU they used';
  }
  const floor = machine.floorMs != null ? `; a bare Node reached the same moment in ${ms(machine.floorMs)} right after` : '';
  // A kernel that shows no load average (gVisor's reads 0 whatever runs) is not quoted.
  const load = machine.loadAverage ? `load average ${machine.loadAverage[0]}${machine.loadAverageOf ? ` of ${machine.loadAverageOf}` : ''} on ${count(machine.cpus, 'CPU')}`
    : 'this kernel shows no load average and no run queue, as gVisor\'s does not';
  // No run queue to read (gVisor, macOS): the profile's gaps are all there is. Under gVisor they were
  // measured against the host's run queue: a wait for a CPU, none of it slow system calls (the
  // sandbox shows their cost as running time), its own threads competing on a few CPUs.
  if (machine.runQueueMs == null) {
    return `the machine was busy: the app was not running ${ms(machine.offCpuMs)}, ${pct(machine.offCpuShare)} of the profiled time, waiting for a CPU ` +
      `(${load}${floor}; in a sandbox its own threads take CPUs too); module times leave out the time the profile saw the app not running`;
  }
  return `the machine was busy: the app waited for a CPU ${ms(machine.runQueueMs)}, ${pct(machine.runQueueShare)} of the profiled time (${load}${floor}); ` +
    'module times are the CPU they used, the rest is shown apart';
}

/**
 * How the user runs this coldstart again, as a line to paste where they are: `coldstart` when that
 * name on their PATH is this install; `npx coldstart` where npx finds it (a local install of the
 * project they are in, a checkout of coldstart they are in, npx's own cache); else node and the path.
 */
function coldstartCommand(installed = INSTALL_DIR, cwd = process.cwd(), searchPath = process.env.PATH || '') {
  const bin = path.join(installed, 'bin', 'coldstart.js');
  if (onPath(bin, searchPath)) return 'coldstart';
  if (installed.includes(`${path.sep}_npx${path.sep}`)) return 'npx coldstart';
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = installed.lastIndexOf(marker);
  const project = at === -1 ? installed : installed.slice(0, at);
  const rel = path.relative(project, cwd);
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return 'npx coldstart';
  return `node ${require('../shell-words.js').shellWord(bin)}`;
}

/**
 * Whether `coldstart` on this PATH is bin (a link to it, as npm installs it globally). A
 * node_modules/.bin is left aside: npx and npm scripts put it there for the command they run only.
 */
function onPath(bin, searchPath) {
  const fs = require('node:fs');
  let own;
  try {
    own = fs.realpathSync(bin);
  } catch {
    return false;
  }
  const npmBin = `${path.sep}node_modules${path.sep}.bin`;
  return searchPath.split(path.delimiter).filter((dir) => dir && !path.normalize(dir).endsWith(npmBin)).some((dir) => {
    try {
      return fs.realpathSync(path.join(dir, 'coldstart')) === own;
    } catch {
      return false;
    }
  });
}

/** "Waited on": the longest outbound requests and child processes before the ready moment. */
function waitedOnLines(report, c) {
  const { waitedOn, networkCounts } = require('../analyze/network-waits.js');
  const items = waitedOn(report.network, report.readyAt, 5);
  if (!items.length) return [];
  const n = networkCounts(report.network);
  const lines = ['', c.bold('Waited on') + c.dim(` (${count(n.requests, 'request')}, ${count(n.connections, 'new connection')}, ` +
    `${n.reused} reused${n.children ? `, ${count(n.children, 'child process')}` : ''}${n.timers ? `, ${count(n.timers, 'timer')}` : ''})`)];
  lines.push(table(items.map((i) => [
    shorten(i.label, 70),
    i.open ? `${ms(i.ms)}+` : ms(i.ms),
    i.parts.length ? `(${i.parts.map(([k, v]) => `${k} ${Math.round(v)}`).join(', ')})` : '',
    i.connection === 'new' ? 'new connection' : i.connection === 'reused' ? 'reused' : '',
  ]), ['l', 'r', 'l', 'l']));
  const { connectionReuse, noReuseFindings } = require('../analyze/connection-reuse.js');
  for (const f of noReuseFindings(connectionReuse(report.network, 'startup'))) lines.push(c.yellow(`  ${noReuseLine(f)}`));
  return lines;
}

function noReuseLine(f) {
  const cost = f.msPerRequest != null ? ` (${ms(f.msPerRequest)} each for DNS, connect and TLS)` : '';
  return `${count(f.requests, 'request')} to ${f.subject} opened ${count(f.newConnections, 'new connection')}${cost}: ${f.fix}`;
}

/** "After ready" (profile --after): CPU in and outside requests, the code that used it, reuse. */
function afterReadyLines(report, c) {
  const a = report.afterReady;
  if (!a) return [];
  const sent = a.sent ? `; coldstart sent ${a.sent.count}, ${a.sent.answered} answered` : '';
  const lines = ['', c.bold('After ready') + c.dim(` (${ms(a.durationMs)}, ${count(a.requests, 'request')} served${sent})`)];
  if (a.sent && a.sent.answered < a.sent.count) {
    lines.push(c.yellow(`  unanswered: ${Object.entries(a.sent.errors).map(([e, n]) => `${n} ${e}`).join(', ')}`));
  }
  if (a.cpuMs != null) {
    const share = a.durationMs > 0 ? ` (${Math.round((a.outsideRequestsCpuMs / a.durationMs) * 100)}% of the window)` : '';
    lines.push(`  CPU ${ms(a.cpuMs)}: in requests ${ms(a.inRequestCpuMs)}  ·  outside requests ${ms(a.outsideRequestsCpuMs)}${share}`);
    const rows = (label, list) => {
      if (!list.length) return;
      lines.push(c.dim(`  ${label}`));
      lines.push(table(list.slice(0, 5).map((f) => [`  ${f.functionName}`, f.file ? `${shorten(f.file, 50)}${f.line ? `:${f.line}` : ''}` : '', ms(f.ms)]), ['l', 'l', 'r']));
    };
    rows('outside requests', a.outside);
    rows('in requests', a.inside);
  }
  for (const f of a.findings) {
    if (f.kind === 'cpu-outside-requests') lines.push(c.yellow(`  ${ms(f.ms)} of CPU ran while no request was in flight: ${f.fix}`));
    else lines.push(c.yellow(`  ${noReuseLine(f)}`));
  }
  return lines;
}

/** The Advice section: the top 5 findings, one line each with the time they would save. */
function adviceLines(report, c) {
  const advice = report.advice || [];
  const dropped = report.adviceDropped || [];
  if (!advice.length && !dropped.length) {
    // With a CPU profile, say that nothing was found rather than nothing at all.
    return report.categories ? ['', c.bold('Advice') + c.dim(' none: nothing found above the evidence thresholds')] : [];
  }
  const lines = ['', c.bold('Advice') + c.dim(' (estimated saving)')];
  for (const a of advice.slice(0, 5)) {
    lines.push(`  ${c.yellow(ms(a.estimatedMs).padStart(8))}  ${adviceText(a)}${c.dim(evidenceText(a))}`);
    if (a.verified) lines.push(`  ${''.padStart(8)}  ${c.dim(verifiedText(a.verified))}`);
  }
  if (advice.length > 5) lines.push(c.dim(`  … ${advice.length - 5} more in report.json`));
  for (const d of dropped) lines.push(c.dim(`  dropped: load ${d.subject} lazily (${d.line ? `${d.file}:${d.line}` : d.file}): ${d.reason}`));
  const unstable = (report.runs && report.runs.unstable) || [];
  if (unstable.length) lines.push(c.dim(`  ${count(unstable.length, 'finding')} seen in half of the ${report.runs.count} runs or fewer left out (report.json runs.unstable)`));
  return lines;
}

/** How sure a finding is: in how many runs it was found, the interval of its estimate. */
function evidenceText(a) {
  if (!a.runs) return '';
  if (a.runs.of === 1) return ' (single run: profile --runs 5 tells a finding from noise)';
  return ` (${a.runs.seen} of ${a.runs.of} runs${a.interval ? `, ${ms(a.interval[0])} … ${ms(a.interval[1])}` : ''})`;
}

/** One finding of the advice in a line: what, where, and the fix. */
function adviceText(a) {
  const compiled = a.line ? `${a.file}:${a.line}` : a.file;
  // Compiled output with a source map: the line the user wrote first.
  const where = a.original ? `${a.original.file}:${a.original.line} (${compiled})` : compiled;
  switch (a.kind) {
    case 'duplicate-package':
      return `${a.subject} is loaded from ${a.copies.length} copies (${[...new Set(a.copies.map((x) => x.version || '?'))].join(', ')}): ${a.fix}`;
    case 'sync-work': return `${a.subject} blocks startup: ${where}, ${a.fix}`;
    case 'heavy-entry-point': return `${a.subject} loads all of itself for ${a.parts.join(', ')} (${where}): ${a.fix}`;
    case 'lazy-load': return `load ${a.subject} lazily: ${where}, ${a.fix}`;
    case 'apm-instrumentations': return `${a.subject}: ${where}, ${a.fix}`;
    default: return `${a.subject} in the container: ${a.fix}`; // container-start, container-code-cache
  }
}

/** What --verify-advice found for one proposal, in words. */
function verifiedText(v) {
  const interval = v.low != null ? ` [${ms(v.low)} … ${ms(v.high)}]` : '';
  if (v.verdict === 'confirmed') return `measured: ${ms(v.measuredMs)} saved${interval}, ${v.runs} runs each, the app started and answered the same`;
  if (v.verdict === 'noise') return `measured: no saving beyond noise (${ms(v.measuredMs)}${interval}, ${v.runs} runs each)`;
  if (v.verdict === 'too few runs') return `measured: too few runs to tell (${v.runs})`;
  return `not verified: ${v.reason}`;
}

// GC at or above this share of the profiled time is worth a line of its own.
const GC_SHARE_NOTED = 0.1;

/** { ms, share } of garbage collection when it is a large share of startup, else null. */
function gcShare(report) {
  const cat = report.categories;
  if (!cat || !(cat.totalMs > 0) || !(cat.gc > 0)) return null;
  const share = cat.gc / cat.totalMs;
  return share >= GC_SHARE_NOTED ? { ms: cat.gc, share } : null;
}

module.exports = { renderProfileSummary, coldstartCommand, gcShare, noReuseLine, verifiedText, busyLine };
