'use strict';
// Connection reuse per outbound host: a request that opens a new connection pays DNS, TCP connect
// and TLS again (seed 002: 118 ms in region, 701 ms across regions). Pure: report.json's
// `network` (network-waits.js) in, counts and a finding out.

const round = (n) => Math.round(n * 100) / 100;

/**
 * Per host (and port) the requests of one phase made: how many, over how many new connections,
 * how many reused one, and the set-up time the new ones paid (ms).
 * @returns {Array<{ host: string, port: number|null, requests: number, newConnections: number,
 *   reused: number, setupMs: number, setupMsPerConnection: number|null }>}
 */
function connectionReuse(network, phase) {
  if (!network) return [];
  const byHost = new Map();
  for (const r of network.requests) {
    if (r.phase !== phase || r.connection == null) continue;
    const conn = network.connections[r.connection];
    const port = conn ? conn.port : null;
    const key = `${r.host}\0${port}`;
    let entry = byHost.get(key);
    if (!entry) byHost.set(key, (entry = { host: r.host || (conn && conn.host) || '?', port, requests: 0, newConnections: 0, reused: 0, setupMs: 0, timed: 0 }));
    entry.requests++;
    if (r.reused) {
      entry.reused++;
      continue;
    }
    entry.newConnections++;
    const parts = conn ? [conn.dnsMs, conn.connectMs, conn.tlsMs].filter((v) => v != null) : [];
    if (parts.length) {
      entry.setupMs += parts.reduce((a, b) => a + b, 0);
      entry.timed++;
    }
  }
  return [...byHost.values()]
    .map(({ timed, ...e }) => ({ ...e, setupMs: round(e.setupMs), setupMsPerConnection: timed ? round(e.setupMs / timed) : null }))
    .sort((a, b) => b.requests - a.requests || a.host.localeCompare(b.host));
}

/**
 * The hosts to which every one of two or more requests opened a new connection: a keep-alive
 * agent is missing or disabled (an `agent: false`, a client made per request, `Connection: close`).
 */
function noReuseFindings(reuse) {
  return reuse.filter((e) => e.requests >= 2 && e.reused === 0 && e.newConnections === e.requests).map((e) => ({
    kind: 'no-connection-reuse',
    subject: e.port ? `${e.host}:${e.port}` : e.host,
    requests: e.requests,
    newConnections: e.newConnections,
    msPerRequest: e.setupMsPerConnection,
    fix: 'keep one client with a keep-alive agent for the life of the process (http.Agent({ keepAlive: true }), or fetch\'s own pool) instead of one per request or agent: false',
  }));
}

module.exports = { connectionReuse, noReuseFindings };
