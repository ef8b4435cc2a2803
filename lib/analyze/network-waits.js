'use strict';
// What startup waited on: the agent's record of outbound connections, requests and child
// processes (lib/in-app/network-record.cjs) turned into report.json's `network`, and the few
// longest waits the summary lists. Pure. Times are ms on the readyAt clock; a figure the
// recording could not see (a socket handed over already connected, a response still open at the
// ready moment) is null.

const round = (n) => (n == null ? null : Math.round(n * 100) / 100);
const span = (from, to) => (from == null || to == null ? null : round(Math.max(0, to - from)));

/**
 * report.json's `network` from CaptureResult.network; null when the capture has none. What began
 * after `readyAt` (profile --after) is in the phase "after-ready", the rest in "startup". `show`
 * names a file for the report (where a timer was set).
 */
function networkReport(network, readyAt = Infinity, show = (file) => file) {
  if (!network) return null;
  const phaseOf = (startMs) => (startMs != null && startMs > readyAt ? 'after-ready' : 'startup');
  const connections = (network.connections || []).map((c) => {
    const dnsEnd = c.dnsEndMs ?? (c.connectEndMs != null ? c.startMs : null); // no lookup: an IP address
    return {
      id: c.id,
      client: c.client,
      host: c.host,
      port: c.port,
      address: c.address,
      tls: c.tls,
      phase: phaseOf(c.startMs),
      startMs: round(c.startMs),
      dnsMs: span(c.startMs, dnsEnd),
      connectMs: span(dnsEnd, c.connectEndMs),
      tlsMs: c.tls ? span(c.connectEndMs, c.tlsEndMs) : null,
      dnsEndMs: round(c.dnsEndMs),
      connectEndMs: round(c.connectEndMs),
      tlsEndMs: round(c.tlsEndMs),
      endMs: round(c.endMs),
      bytesRead: c.bytesRead,
      bytesWritten: c.bytesWritten,
      requests: c.requests,
      error: c.error || null,
    };
  });
  const requests = (network.requests || []).map((r) => ({
    client: r.client,
    method: r.method,
    url: `${r.protocol || 'http:'}//${hostPort(r, connections[r.connection])}${r.path}`,
    host: r.host,
    path: r.path,
    status: r.status,
    phase: phaseOf(r.startMs),
    startMs: round(r.startMs),
    firstByteMs: round(r.firstByteMs),
    endMs: round(r.endMs),
    ttfbMs: span(r.startMs, r.firstByteMs),
    totalMs: span(r.startMs, r.endMs),
    connection: r.connection ?? null,
    reused: r.reused,
    error: r.error || null,
  }));
  const children = (network.children || []).map((c) => ({
    command: c.command,
    pid: c.pid,
    phase: phaseOf(c.startMs),
    startMs: round(c.startMs),
    endMs: round(c.endMs),
    totalMs: span(c.startMs, c.endMs),
    exitCode: c.exitCode,
  }));
  // Requests the app served (after its ready moment, but a service may answer before it).
  const served = (network.served || []).map((r) => ({
    method: r.method, path: r.path, status: r.status, phase: phaseOf(r.startMs),
    startMs: round(r.startMs), endMs: round(r.endMs), totalMs: span(r.startMs, r.endMs),
  }));
  // Timers of more than 10 ms startup set; waited on when they fired before the ready moment.
  const timers = (network.timers || []).map((t) => ({
    delayMs: t.delayMs, at: t.at ? `${show(t.at.file)}:${t.at.line}` : null, phase: phaseOf(t.startMs), startMs: round(t.startMs), firedMs: round(t.firedMs), totalMs: span(t.startMs, t.firedMs),
    waited: t.firedMs != null && t.firedMs <= readyAt, // fired before the ready moment
  }));
  return { connections, requests, children, timers, served };
}

function hostPort(r, conn) {
  const host = r.host || (conn && conn.host) || '?';
  const port = conn && conn.port;
  const usual = (r.protocol === 'https:' && port === 443) || (r.protocol === 'http:' && port === 80);
  return port && !usual ? `${host}:${port}` : host;
}

/**
 * The longest waits, longest first: requests (with the phases of the connection they opened), child
 * processes and timers that fired before ready. [{ kind: 'request'|'child'|'timer', label, ms, parts: [[name, ms]], connection: 'new'|'reused'|null }]
 */
function waitedOn(network, readyAt, n = 5) {
  if (!network) return [];
  const items = [];
  for (const r of network.requests) {
    if (r.phase === 'after-ready') continue;
    const conn = r.connection == null ? null : network.connections[r.connection];
    const ms = r.totalMs ?? span(r.startMs, readyAt);
    const parts = [];
    let connectedAt = r.startMs;
    if (conn && !r.reused) {
      parts.push(['dns', conn.dnsMs], ['connect', conn.connectMs]);
      if (conn.tls) parts.push(['tls', conn.tlsMs]);
      connectedAt = conn.tlsEndMs ?? conn.connectEndMs ?? r.startMs;
    }
    parts.push(['first byte', span(Math.max(connectedAt, r.startMs), r.firstByteMs)]);
    items.push({
      kind: 'request',
      label: `${r.method} ${r.url}${r.status ? ` ${r.status}` : ''}${r.error ? ` (${r.error})` : ''}`,
      ms,
      open: r.endMs == null,
      parts: parts.filter(([, v]) => v != null),
      connection: conn ? (r.reused ? 'reused' : 'new') : null,
    });
  }
  for (const c of network.children) {
    if (c.phase === 'after-ready') continue;
    items.push({
      kind: 'child', label: `child process ${c.command.join(' ')}`, ms: c.totalMs ?? span(c.startMs, readyAt),
      open: c.endMs == null, parts: [], connection: null,
    });
  }
  for (const t of network.timers || []) {
    if (!t.waited) continue;
    items.push({ kind: 'timer', label: `timer of ${t.delayMs} ms${t.at ? ` set at ${t.at}` : ''}`, ms: t.totalMs, open: false, parts: [], connection: null });
  }
  return items.filter((i) => i.ms != null).sort((a, b) => b.ms - a.ms).slice(0, n);
}

/** Requests, new connections and reused ones of one phase, for a one-line count. */
function networkCounts(network, phase = 'startup') {
  if (!network) return null;
  const of = (list) => list.filter((x) => (x.phase || 'startup') === phase);
  const requests = of(network.requests);
  const timers = (network.timers || []).filter((t) => t.waited).length;
  return { requests: requests.length, connections: of(network.connections).length, reused: requests.filter((r) => r.reused).length, children: of(network.children).length, timers };
}

module.exports = { networkReport, waitedOn, networkCounts };
