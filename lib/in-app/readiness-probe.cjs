'use strict';
// The ready moments that ask the server (ready-moment.cjs): its first answer ('answer:/path') and a
// readiness URL ('http:/path'). Loaded only for them. Runs in the app's own process: Node built-ins only.

/**
 * The two ways of asking, each request marked as the probe's (mark: ready-moment.cjs's PROBE_HEADER
 * and PROBING, handed in: this file loads from there) so that what startup waited on leaves it out.
 * @param {{ header: string, probing: symbol }} mark
 */
function readinessProbe(mark) {
  return {
    firstAnswer: (path, server, address, done) => firstAnswer(mark, path, server, address, done),
    pollUntilReady: (url, address, done) => pollUntilReady(mark, url, address, done),
  };
}

/**
 * Asks a server that listened GET path until it answers with a status below 500: done({answer:
 * {status}}). One with no 'request' listener (gRPC, raw TCP) or that does not answer in HTTP is
 * ready at its listen: done({answer: null, unanswered}). TLS servers are asked over TLS.
 */
function firstAnswer(mark, path, server, address, done) {
  if (server.listenerCount('request') === 0 || !address) return done({ answer: null, unanswered: 'not an HTTP server' });
  const host = [undefined, '::', '0.0.0.0'].includes(address.address) ? '127.0.0.1' : address.address;
  askUntil(mark, { host, port: address.port, path }, typeof server.addContext === 'function', (status) => status < 500,
    (status) => done({ answer: { status } }), (err) => done({ answer: null, unanswered: `no HTTP answer (${err.code || err.message})` }), server);
}

/** A readiness URL's first 2xx: done(). */
function pollUntilReady(mark, url, address, done) {
  const [, host, port, path] = /^http:(?:\/\/([^/]*?)?:(\d+))?(\/.*)$/.exec(url);
  const target = port ? Number(port) : address && address.port; // closed: the CLI's timeout says so
  askUntil(mark, { host: host && host !== 'localhost' ? host.replace(/^\[|\]$/g, '') : '127.0.0.1', port: target, path }, false, (status) => status >= 200 && status < 300, done);
}

/**
 * GET target every 10 ms (over TLS whatever the certificate, when tls) until accepts(its status):
 * done(status). An error other than a refused connection (or one from a server that closed) ends
 * the asking with fail(err), when given.
 */
function askUntil(mark, target, tls, accepts, done, fail, server) {
  const get = require(tls ? 'https' : 'http').get;
  const again = () => setTimeout(ask, 10);
  function ask() {
    globalThis[mark.probing] = true;
    try {
      get({ ...target, agent: false, headers: { [mark.header]: '1' }, ...(tls ? { rejectUnauthorized: false } : {}) }, (res) => {
        res.resume();
        if (accepts(res.statusCode)) done(res.statusCode);
        else again();
      }).on('error', (err) => (fail && (err.code !== 'ECONNREFUSED' || !server.listening) ? fail(err) : again()));
    } finally {
      globalThis[mark.probing] = false;
    }
  }
  ask();
}

module.exports = { readinessProbe };
