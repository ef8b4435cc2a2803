'use strict';
// Runs inside the app (loaded by agent.cjs, not in timing-only runs): records what startup waited
// on until the ready moment, from Node's diagnostics channels and the sockets' own events.
//  - connections: `net.client.socket` (plain TCP: http, fetch over http), the socket of an http
//    request ('socket' event, before any I/O), and for fetch over TLS `tls.connect`, wrapped the
//    moment undici announces a connect (`undici:client:beforeConnect`), because no channel hands
//    out a TLS socket before it has connected. Phases from the socket's 'lookup', 'connect' and
//    'secureConnect' events.
//  - requests: `http.client.request.start` / `http.client.response.finish` / the response's 'end' /
//    `http.client.request.error`;
//    undici's `undici:request:create` / `:headers` / `:trailers` / `:error`, with
//    `undici:client:sendHeaders` naming the socket.
//  - child processes: the `child_process` channel (command, start, exit).
//  - timers of more than 10 ms that startup set (timer-record.cjs).
//  - requests the app served, with --after (served-record.cjs).
// Times are kept as hrtime µs and converted on the agent's clock at snapshot.

/**
 * @param {() => number} now µs, the agent's clock
 * @returns {{ snapshot(toMs: (us: number) => number): object, stop(): void }}
 */
function recordNetwork(now) {
  const dc = require('diagnostics_channel');
  const { PROBE_HEADER, PROBING } = require('./ready-moment.cjs');
  // sockets: socket -> connection; records: http ClientRequest or undici request -> record;
  // pendingTls: undici connects announced whose tls.connect has not run yet.
  const net = { now, active: true, pendingTls: 0, sockets: new WeakMap(), connections: [], requests: [], children: [], records: new WeakMap() };
  const timers = require('./timer-record.cjs').recordTimers(now);
  const subs = [];
  const on = (name, fn) => {
    // The readiness probe's own requests (--until http:) are not something startup waited on.
    const handler = (msg) => { if (net.active && !globalThis[PROBING]) { try { fn(msg); } catch { /* never break the app */ } } };
    dc.subscribe(name, handler);
    subs.push([name, handler]);
  };
  on('net.client.socket', ({ socket }) => { track(net, socket, now(), null); });
  recordHttp(net, on, PROBE_HEADER);
  recordFetch(net, on);
  on('child_process', ({ process: child }) => {
    // Published as the ChildProcess is made, before spawn() gives it its file and arguments: they
    // are read at snapshot.
    const rec = { child, pid: null, startUs: now(), endUs: null, exitCode: null };
    net.children.push(rec);
    child.once('spawn', () => { rec.pid = child.pid; });
    child.once('exit', (code) => { rec.endUs = now(); rec.exitCode = code; });
  });
  // Requests the app served: what profile --after shows (COLDSTART_AFTER), loaded for it alone.
  const served = process.env.COLDSTART_AFTER === '1' ? require('./served-record.cjs').recordServed(on, now, PROBE_HEADER) : [];
  return {
    snapshot: (toMs) => networkSnapshot(net, timers, served, toMs),
    stop() {
      if (!net.active) return;
      net.active = false;
      timers.stop();
      for (const [name, handler] of subs) dc.unsubscribe(name, handler);
    },
  };
}

/** The connection a socket is, recorded the first time it is seen, with its phases from its own events. */
function track(net, socket, startUs, client) {
  const { now } = net;
  let conn = net.sockets.get(socket);
  if (conn) {
    conn.client = conn.client || client; // Node 22+ announces TLS sockets on net.client.socket too
    return conn;
  }
  conn = {
    socket, client, startUs, host: null, port: null, address: null, tls: false,
    lookupUs: null, connectUs: null, secureUs: null, endUs: null, error: null, requests: 0,
  };
  net.sockets.set(socket, conn);
  net.connections.push(conn);
  if (!socket.connecting && socket.remoteAddress) { // handed over connected: its phases are unknown
    conn.connectUs = startUs;
    conn.port = socket.remotePort;
    conn.address = socket.remoteAddress;
  }
  socket.once('lookup', (err, address, family, host) => {
    conn.lookupUs = now();
    if (host && !conn.host) conn.host = host;
  });
  socket.once('connect', () => {
    conn.connectUs = now();
    conn.port = socket.remotePort;
    conn.address = socket.remoteAddress;
  });
  socket.once('secureConnect', () => { conn.secureUs = now(); conn.tls = true; });
  socket.once('close', () => { conn.endUs = now(); });
  // No 'error' listener here, nor on child processes: one would keep an app that has none from crashing.
  return conn;
}

function failed(rec, error, now) {
  rec.error = (error && (error.code || error.message)) || 'error';
  rec.endUs = now();
  if (rec.conn && !rec.conn.error) rec.conn.error = rec.error;
}

/** Requests of http and https, from the request's start to the response's end. */
function recordHttp(net, on, PROBE_HEADER) {
  const { now, records } = net;
  on('http.client.request.start', ({ request }) => {
    if (request.getHeader(PROBE_HEADER)) return;
    const rec = {
      client: 'http', method: request.method, protocol: request.protocol || 'http:',
      host: request.host, path: String(request.path || '/').split('?')[0],
      startUs: now(), firstByteUs: null, endUs: null, status: null, error: null, conn: null, reused: false,
    };
    net.requests.push(rec);
    const onSocket = (socket) => {
      rec.reused = Boolean(request.reusedSocket);
      rec.conn = track(net, socket, rec.startUs, 'http');
      rec.conn.requests++;
    };
    if (request.socket) onSocket(request.socket);
    else request.once('socket', onSocket);
    records.set(request, rec);
  });
  // Published as the response's head arrives, right after the app's own 'response' handlers ran (a
  // 'response' listener of ours would keep Node from discarding a response the app ignores).
  on('http.client.response.finish', ({ request, response }) => {
    const rec = records.get(request);
    if (!rec || rec.firstByteUs != null) return;
    rec.firstByteUs = now();
    rec.status = response.statusCode;
    response.once('end', () => { rec.endUs = now(); });
  });
  on('http.client.request.error', ({ request, error }) => {
    const rec = records.get(request);
    if (rec) failed(rec, error, now);
  });
}

/** Requests of fetch (undici), and the TLS sockets it connects. */
function recordFetch(net, on) {
  const { now, records } = net;
  on('undici:request:create', ({ request }) => {
    const rec = {
      client: 'fetch', method: request.method, protocol: null, host: null,
      path: String(request.path || '/').split('?')[0],
      startUs: now(), firstByteUs: null, endUs: null, status: null, error: null, conn: null, reused: false,
    };
    try {
      const origin = new URL(request.origin);
      rec.protocol = origin.protocol;
      rec.host = origin.hostname;
    } catch { /* an origin undici accepted but URL does not */ }
    records.set(request, rec);
    net.requests.push(rec);
  });
  on('undici:client:beforeConnect', ({ connectParams }) => {
    if (connectParams && connectParams.protocol === 'https:') {
      net.pendingTls++;
      wrapTlsConnect(net);
    }
  });
  on('undici:client:connected', ({ socket }) => { if (socket) track(net, socket, now(), 'fetch'); });
  on('undici:client:sendHeaders', ({ request, socket }) => {
    const rec = records.get(request);
    if (!rec || !socket) return;
    rec.conn = track(net, socket, rec.startUs, 'fetch');
    rec.reused = rec.conn.requests > 0;
    rec.conn.requests++;
  });
  on('undici:request:headers', ({ request, response }) => {
    const rec = records.get(request);
    if (rec) { rec.firstByteUs = now(); rec.status = response && response.statusCode; }
  });
  on('undici:request:trailers', ({ request }) => {
    const rec = records.get(request);
    if (rec) rec.endUs = now();
  });
  on('undici:request:error', ({ request, error }) => {
    const rec = records.get(request);
    if (rec) failed(rec, error, now);
  });
}

function wrapTlsConnect(net) {
  const tls = process.getBuiltinModule ? process.getBuiltinModule('tls') : require('tls');
  if (tls.connect.coldstartWrapped) return;
  const orig = tls.connect;
  tls.connect = function connect() {
    const socket = orig.apply(this, arguments);
    if (net.active && net.pendingTls > 0) {
      net.pendingTls--;
      const conn = track(net, socket, net.now(), 'fetch');
      conn.tls = true;
    }
    return socket;
  };
  tls.connect.coldstartWrapped = true;
}

/** What startup waited on, times in ms on the agent's clock (toMs). */
function networkSnapshot({ connections, requests, children }, timers, served, toMs) {
  const at = (us) => (us == null ? null : toMs(us));
  const ids = new Map(connections.map((c, i) => [c, i]));
  return {
    connections: connections.map((c, i) => {
      const s = c.socket;
      return {
        id: i, client: c.client, host: c.host || s._host || s.remoteAddress || null, port: c.port || s.remotePort || null,
        address: c.address || s.remoteAddress || null, tls: c.tls,
        startMs: at(c.startUs), dnsEndMs: at(c.lookupUs), connectEndMs: at(c.connectUs), tlsEndMs: at(c.secureUs), endMs: at(c.endUs),
        // Asked in the middle of a write (an inspector call), Node's bytesWritten getter throws.
        bytesRead: counter(() => s.bytesRead), bytesWritten: counter(() => s.bytesWritten), requests: c.requests, error: c.error,
      };
    }),
    requests: requests.map((r) => ({
      client: r.client, method: r.method, protocol: r.protocol, host: r.host, path: r.path, status: r.status,
      startMs: at(r.startUs), firstByteMs: at(r.firstByteUs), endMs: at(r.endUs),
      connection: r.conn ? ids.get(r.conn) : null, reused: r.reused, error: r.error,
    })),
    timers: timers.snapshot(at),
    served: served.map((r) => ({ method: r.method, path: r.path, status: r.status, startMs: at(r.startUs), endMs: at(r.endUs) })),
    children: children.map((c) => ({
      command: [c.child.spawnfile, ...(c.child.spawnargs || []).slice(1)].filter((x) => x != null), pid: c.pid, startMs: at(c.startUs), endMs: at(c.endUs), exitCode: c.exitCode,
    })),
  };
}

const counter = (read) => { try { return read() || 0; } catch { return 0; } };

module.exports = { recordNetwork };
