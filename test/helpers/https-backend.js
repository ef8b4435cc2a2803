'use strict';
// A backend on 127.0.0.1 for apps that call out: HTTPS with a self-signed certificate for
// localhost (the app trusts it through NODE_EXTRA_CA_CERTS), counting the connections it accepts.
const fs = require('fs');
const path = require('path');
const https = require('https');
const { execFileSync } = require('child_process');

/** A key and self-signed certificate for localhost, or null when there is no openssl. */
function makeCertificate(dir) {
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'],
    { stdio: 'ignore' });
  } catch {
    return null;
  }
  return { key, cert };
}

/** An HTTPS server on 127.0.0.1 that answers after 5 ms; closeEach: every response closes its connection. */
async function startServer(pems, closeEach) {
  const server = https.createServer({ key: fs.readFileSync(pems.key), cert: fs.readFileSync(pems.cert) }, (req, res) => {
    if (closeEach) res.setHeader('connection', 'close');
    setTimeout(() => res.end(JSON.stringify({ path: req.url })), 5);
  });
  server.tlsConnections = 0;
  server.on('secureConnection', () => { server.tlsConnections++; });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

module.exports = { makeCertificate, startServer };
