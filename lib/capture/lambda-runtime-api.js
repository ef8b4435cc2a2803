'use strict';
// The Lambda Runtime API (version 2018-06-01) on 127.0.0.1, for one cold start: the runtime
// interface client asks for its first event when init is done; with an event, coldstart hands it
// that one and takes its response or error; every later request for an event waits until the
// capture ends, as an idle Lambda sandbox would. An init error the runtime posts ends the capture.
// Only processes of the user coldstart runs as may connect: the event can hold secrets, and a
// forged response or init error would end the capture with a lie.
const fs = require('fs');
const http = require('http');
const crypto = require('crypto');

const NEXT = '/2018-06-01/runtime/invocation/next';
const INIT_ERROR = '/2018-06-01/runtime/init/error';
const INVOCATION = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/;
// Lambda's own limit on a synchronous response; a runtime sending more is cut off.
const MOST_BODY_BYTES = 6 * 1024 * 1024;
// The time an invocation may take, as a function's timeout: the runtime reads it as a deadline.
const DEADLINE_MS = 15 * 60 * 1000;

const hrUs = () => Number(process.hrtime.bigint() / 1000n); // the agent's clock (CLOCK_MONOTONIC)

/**
 * @param {{ event: any, functionName: string, region: string,
 *   onInit: (atUs: number) => void,
 *   onInvoked: (outcome: { requestId: string, sentUs: number, endUs: number, ok: boolean, body: string }) => void,
 *   onInitError: (error: { errorType?: string, errorMessage?: string }) => void }} options
 *   event: undefined for init alone; onInit: the first request for an event (init done)
 * @returns {Promise<{ address: string, close: () => void }>} address: host:port for AWS_LAMBDA_RUNTIME_API
 */
function serveRuntimeApi({ event, functionName, region, onInit, onInvoked, onInitError }) {
  const waiting = new Set(); // requests for an event held open
  let asked = false;
  let invocation = null; // { requestId, sentUs }
  const server = http.createServer((req, res) => {
    const url = req.url.split('?')[0];
    if (req.method === 'GET' && url === NEXT) return next(req, res);
    const done = req.method === 'POST' && INVOCATION.exec(url);
    if (done || (req.method === 'POST' && url === INIT_ERROR)) {
      return readBody(req, (body, bytes) => {
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"OK"}');
        if (!done) return onInitError(parseError(body));
        if (!invocation || decodeURIComponent(done[1]) !== invocation.requestId) return;
        // Lambda refuses a response over its limit: the caller gets this error, not the body.
        const tooLarge = done[2] === 'response' && bytes > MOST_BODY_BYTES;
        const outcome = {
          requestId: invocation.requestId, sentUs: invocation.sentUs, endUs: hrUs(), ok: done[2] === 'response' && !tooLarge,
          body: tooLarge ? JSON.stringify({ errorType: 'Function.ResponseSizeTooLarge', errorMessage: `Response payload size (${bytes} bytes) exceeded maximum allowed payload size (${MOST_BODY_BYTES} bytes).` }) : body,
        };
        invocation = null;
        onInvoked(outcome);
      });
    }
    res.writeHead(404).end(); // nothing that says what answers here
  });
  server.on('connection', (socket) => {
    const uid = peerUid(socket);
    if (uid !== null && typeof process.getuid === 'function' && uid !== process.getuid()) socket.destroy();
  });

  function next(req, res) {
    if (!asked) {
      asked = true;
      onInit(hrUs());
      if (event !== undefined) {
        const requestId = crypto.randomUUID();
        const body = JSON.stringify(event);
        res.writeHead(200, {
          'content-type': 'application/json',
          'lambda-runtime-aws-request-id': requestId,
          'lambda-runtime-deadline-ms': String(Date.now() + DEADLINE_MS),
          'lambda-runtime-invoked-function-arn': `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
          'lambda-runtime-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${crypto.randomBytes(12).toString('hex')};Sampled=0`,
        });
        invocation = { requestId, sentUs: hrUs() };
        res.end(body);
        return;
      }
    }
    waiting.add(res);
    res.on('close', () => waiting.delete(res));
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        address: `127.0.0.1:${port}`,
        close() {
          for (const res of waiting) res.destroy();
          server.close();
          server.closeAllConnections();
        },
      });
    });
  });
}

/**
 * The user that owns the other end of a connection to this loopback server, from the kernel's
 * table of TCP sockets (/proc/net/tcp: the client's socket is local 127.0.0.1:its port, remote
 * 127.0.0.1:ours); null where there is no such table.
 */
function peerUid(socket) {
  let table;
  try { table = fs.readFileSync('/proc/net/tcp', 'latin1'); } catch { return null; }
  const hex = (port) => port.toString(16).toUpperCase().padStart(4, '0');
  const wanted = `0100007F:${hex(socket.remotePort)} 0100007F:${hex(socket.localPort)}`;
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (`${fields[1]} ${fields[2]}` === wanted) return Number(fields[7]);
  }
  return null;
}

function readBody(req, onBody) {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MOST_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => onBody(Buffer.concat(chunks).toString('utf8'), size));
}

/** The runtime's error document ({ errorType, errorMessage, stackTrace }), or what it sent instead. */
function parseError(body) {
  try {
    const doc = JSON.parse(body);
    if (doc && typeof doc === 'object') return { errorType: String(doc.errorType || 'Error'), errorMessage: String(doc.errorMessage || '') };
  } catch { /* not JSON */ }
  return { errorType: 'Error', errorMessage: body.slice(0, 500) };
}

module.exports = { serveRuntimeApi, parseError };
