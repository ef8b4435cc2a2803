'use strict';
// The window after the ready moment (profile --after): CPU spent while a request was in flight and
// while none was (seed 003: under request-based billing the platform throttles the CPU whenever
// no request is in flight, so that work crawls), which code used it, and how outbound connections
// were reused. Pure: the window's CPU profile and report.json's `network` in, figures out.
const { categorize, fileOfUrl, functionTotals } = require('./cpuprofile-categories.js');
const { connectionReuse, noReuseFindings } = require('./connection-reuse.js');
const { median } = require('../stats.js');

const round = (n) => (n == null ? null : Math.round(n * 100) / 100);
// Above this share of the window, work outside requests is worth a finding.
const OUTSIDE_SHARE = 0.1;

/**
 * @param {{ startMs: number, endMs: number, profile?: object|null, sent?: Array<object>|null }} after
 *   the window as capture gives it (ms on the readyAt clock), its CPU profile and coldstart's own requests
 * @param {object|null} network report.json's `network` (with phases)
 * @param {{ toProfileUs: (ms: number) => number, show: (file: string) => string }} clock maps the
 *   readyAt clock to the profile's; show names a file for the report
 * @returns {object} report.json's `afterReady`
 */
function afterReadyReport(after, network, { toProfileUs, show }) {
  const profile = after.profile || null;
  const from = profile ? profile.startTime : toProfileUs(after.startMs);
  const to = profile ? profile.endTime : toProfileUs(after.endMs);
  const served = ((network && network.served) || []).filter((r) => r.phase === 'after-ready');
  // Each served request from its start to its answer (or the window's end when it has none).
  const inRequests = served.map((r) => ({ start: toProfileUs(r.startMs), end: r.endMs == null ? to : toProfileUs(r.endMs) }))
    .filter((w) => w.end > from && w.start < to);
  const outside = complement(inRequests, from, to);
  // CPU used: neither the idle samples nor the time the thread waited for a CPU (a busy machine),
  // as the functions below count it, so that a function's share of it holds under load too.
  const cpu = (ranges) => {
    if (!profile) return null;
    const { totalMs, categories } = categorize(profile, { ranges, byStamp: true });
    return totalMs - categories.idle - categories.offCpu;
  };
  // Which code used the CPU: functions by total time, so a timer callback holds its helpers' time.
  const top = (ranges) => (profile ? functionTotals(profile, 10, { ranges, byStamp: true }) : [])
    .filter((f) => f.totalMs > 0)
    .map((f) => ({ functionName: f.functionName, file: fileOf(f.url, show), line: f.lineNumber, ms: round(f.totalMs) }));
  const durationMs = (to - from) / 1000;
  const cpuMs = cpu([{ start: from, end: to }]);
  const inRequestCpuMs = inRequests.length ? cpu(inRequests) : profile ? 0 : null;
  const outsideRequestsCpuMs = cpuMs == null ? null : Math.max(0, cpuMs - inRequestCpuMs);
  const reuse = connectionReuse(network, 'after-ready');
  const findings = [...noReuseFindings(reuse)];
  if (outsideRequestsCpuMs != null && outsideRequestsCpuMs > durationMs * OUTSIDE_SHARE) {
    findings.push({
      kind: 'cpu-outside-requests',
      subject: 'work while no request was in flight',
      ms: round(outsideRequestsCpuMs),
      share: round(outsideRequestsCpuMs / durationMs),
      fix: 'under request-based billing (Cloud Run\'s default) this work runs with the CPU throttled: move it into requests, or use instance-based billing (run.googleapis.com/cpu-throttling: "false")',
    });
  }
  return {
    durationMs: round(durationMs),
    requests: served.length,
    routes: routesOf(served),
    sent: after.sent ? sentSummary(after.sent) : null,
    cpuMs: round(cpuMs),
    inRequestCpuMs: round(inRequestCpuMs),
    outsideRequestsCpuMs: round(outsideRequestsCpuMs),
    outside: top(outside),
    inside: top(inRequests),
    connections: reuse,
    findings,
  };
}

/** [from, to) minus the windows. */
function complement(windows, from, to) {
  const sorted = [...windows].sort((a, b) => a.start - b.start);
  const out = [];
  let at = from;
  for (const w of sorted) {
    if (w.start > at) out.push({ start: at, end: Math.min(w.start, to) });
    at = Math.max(at, w.end);
    if (at >= to) break;
  }
  if (at < to) out.push({ start: at, end: to });
  return out;
}

function fileOf(url, show) {
  if (!url) return null;
  const file = fileOfUrl(url);
  return file.startsWith('/') ? show(file) : file;
}

/** Served requests by method and path: count, statuses and the median time to answer. */
function routesOf(served) {
  const byRoute = new Map();
  for (const r of served) {
    const key = `${r.method} ${r.path}`;
    if (!byRoute.has(key)) byRoute.set(key, { method: r.method, path: r.path, count: 0, statuses: {}, times: [] });
    const e = byRoute.get(key);
    e.count++;
    const status = r.status == null ? 'none' : String(r.status);
    e.statuses[status] = (e.statuses[status] || 0) + 1;
    if (r.totalMs != null) e.times.push(r.totalMs);
  }
  return [...byRoute.values()].map(({ times, ...e }) => ({ ...e, medianMs: times.length ? round(median(times)) : null }))
    .sort((a, b) => b.count - a.count);
}

/** coldstart's own requests: how many were sent, answered, and why the others failed. */
function sentSummary(sent) {
  const errors = {};
  for (const r of sent) if (r.error) errors[r.error] = (errors[r.error] || 0) + 1;
  return { count: sent.length, answered: sent.filter((r) => r.status != null).length, errors };
}

module.exports = { afterReadyReport };
