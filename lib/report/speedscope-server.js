'use strict';
// The local speedscope server of `coldstart view`: the installed speedscope release and one
// profile, on 127.0.0.1 only, answering only to its own host name.
const fs = require('fs');
const http = require('http');
const path = require('path');
const { UsageError, CommandError } = require('../errors.js');
const { speedscopeRelease } = require('./speedscope-release.js');

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

/**
 * Starts serving; resolves once listening.
 * @param {string} profile
 * @param {{port: number, once?: boolean}} options once: `loaded` resolves when the page has loaded
 *   the profile and gone quiet
 * @returns {Promise<{origin: string, url: string, port: number, loaded: Promise<void>, close: () => Promise<void>}>}
 */
async function serveSpeedscope(profile, { port, once = false }) {
  const release = speedscopeRelease();
  try {
    fs.accessSync(profile, fs.constants.R_OK);
  } catch (err) {
    throw new UsageError(`cannot read ${profile}: ${err.code}`);
  }
  const assets = new Map(fs.readdirSync(release).map((n) => [n, path.join(release, n)]));
  const name = path.basename(profile);
  const profilePath = `/profile/${encodeURIComponent(name)}`;

  let origin = '';
  let url = '';
  let finishOnce = null;
  const loaded = new Promise((resolve) => { finishOnce = resolve; });
  let idleTimer = null;
  let profileServed = false;
  // once (the old view --once): the page asks for a few assets after the profile (fonts); stop when it goes quiet.
  const touch = () => {
    if (!once || !profileServed) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(finishOnce, 1500);
  };

  const server = http.createServer((req, res) => {
    const send = (status, headers, body) => {
      res.writeHead(status, { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    // Only this machine, by this server's own name: a web page elsewhere that rebinds its DNS
    // name to 127.0.0.1 must not read the profile.
    const host = req.headers.host;
    if (host !== origin.slice('http://'.length) && host !== `localhost:${server.address().port}`) {
      return send(403, { 'Content-Type': 'text/plain' }, 'forbidden\n');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { 'Content-Type': 'text/plain', Allow: 'GET, HEAD' }, 'method not allowed\n');
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, origin).pathname);
    } catch {
      return send(400, { 'Content-Type': 'text/plain' }, 'bad request\n');
    }
    touch();
    if (pathname === '/') return send(302, { Location: url }, '');
    let file = null;
    let isProfile = false;
    if (pathname === decodeURIComponent(profilePath)) {
      file = profile;
      isProfile = true;
    } else if (pathname.lastIndexOf('/') === 0 && assets.has(pathname.slice(1))) {
      file = assets.get(pathname.slice(1)); // one flat directory of known names: no traversal
    }
    if (!file) return send(404, { 'Content-Type': 'text/plain' }, 'not found\n');
    fs.readFile(file, (err, body) => {
      if (err) return send(500, { 'Content-Type': 'text/plain' }, `cannot read ${path.basename(file)}\n`);
      send(200, { 'Content-Type': isProfile ? 'application/json' : CONTENT_TYPES[path.extname(file)] || 'application/octet-stream' }, body);
      if (isProfile) {
        profileServed = true;
        touch();
      }
    });
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.removeListener('error', reject);
      resolve();
    });
  }).catch((err) => {
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: choose another --port, or 0 for any`);
    throw new CommandError(`cannot serve on 127.0.0.1:${port}: ${err.code || err.message}`);
  });

  const actualPort = server.address().port;
  origin = `http://127.0.0.1:${actualPort}`;
  url = `${origin}/index.html#profileURL=${encodeURIComponent(origin + profilePath)}&title=${encodeURIComponent(name)}`;

  return {
    origin,
    url,
    port: actualPort,
    loaded,
    close: () => new Promise((resolve) => {
      clearTimeout(idleTimer);
      server.close(resolve);
      server.closeAllConnections();
    }),
  };
}

module.exports = { serveSpeedscope };
