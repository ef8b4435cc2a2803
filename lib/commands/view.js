'use strict';
// coldstart view [FILE]: a CPU profile in speedscope, served offline from the installed package
// on 127.0.0.1 (or as a file:// URL with --no-serve), or report.html with --report. Where no
// browser can be opened it prints the URL and how to load the profile in Chrome DevTools.
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { UsageError, CommandError } = require('../errors.js');

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

const DEVTOOLS_STEPS = 'Chrome DevTools: Performance panel > "Load profile…" (the upload arrow) > choose';

module.exports = {
  command: 'view [file]',
  describe: 'open a CPU profile in speedscope (offline, from the installed package) or report.html (--report)',
  builder: (yargs) => yargs
    .positional('file', { type: 'string', describe: '.cpuprofile, report.html or report.json (default: the newest profile in .coldstart/)' })
    .option('report', { type: 'boolean', default: false, describe: 'open report.html instead of the CPU profile' })
    .option('open', { type: 'boolean', default: true, describe: 'open a browser (--no-open: only print the URL)' })
    .option('serve', { type: 'boolean', default: true, describe: 'serve speedscope on 127.0.0.1 until Ctrl-C (--no-serve: print a file:// URL and exit)' })
    .option('once', { type: 'boolean', default: false, describe: 'stop serving once the profile has been loaded' })
    .option('port', { type: 'string', default: '0', describe: 'port of the local server (0: any free port)' })
    .example('$0 view', 'the newest .coldstart/*.cpuprofile in speedscope; Ctrl-C stops the server')
    .example('$0 view --report', '.coldstart/report.html')
    .example('$0 view --no-serve --no-open', 'print a file:// URL and exit'),
  async run(argv, ctx) {
    const target = resolveTarget(argv, ctx.cwd);
    if (target.kind === 'report') return showReport(target, argv, ctx);
    if (!argv.serve) return showProfileFromDisk(target.profile, argv, ctx);
    return serveProfile(target.profile, argv, ctx);
  },
};

/** What to show: { kind: 'report', html } or { kind: 'profile', profile }. */
function resolveTarget(argv, cwd) {
  if (!argv.file) return findInDir(path.resolve(cwd, argv.out || '.coldstart'), argv.report, cwd);
  const file = path.resolve(cwd, argv.file);
  let stat;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    throw new UsageError(err.code === 'ENOENT' ? `file not found: ${argv.file}` : `cannot read ${argv.file}: ${err.code}`);
  }
  if (stat.isDirectory()) return findInDir(file, argv.report, cwd);
  const ext = path.extname(file).toLowerCase();
  if (ext === '.html' || ext === '.htm') return { kind: 'report', html: file };
  const doc = ext === '.json' ? parsedReport(file) : null;
  if (doc) return { kind: 'report', html: renderFromJson(file, cwd, doc) };
  if (argv.report) throw new UsageError(`--report opens report.html or report.json, not ${argv.file}`);
  return { kind: 'profile', profile: file };
}

function findInDir(dir, report, cwd) {
  const shown = path.relative(cwd, dir) || '.';
  if (report) {
    const html = path.join(dir, 'report.html');
    if (fs.existsSync(html)) return { kind: 'report', html };
    const json = path.join(dir, 'report.json');
    if (fs.existsSync(json)) return { kind: 'report', html: renderFromJson(json, cwd) };
    throw new UsageError(`no report.html in ${shown}/: run coldstart profile -- <app command> first`);
  }
  let newest = null;
  let entries = [];
  try {
    entries = fs.readdirSync(dir);
  } catch { /* no directory: no profile, said below */ }
  for (const name of entries) {
    if (!name.endsWith('.cpuprofile')) continue;
    const full = path.join(dir, name);
    const mtime = fs.statSync(full).mtimeMs;
    if (!newest || mtime > newest.mtime) newest = { full, mtime };
  }
  if (!newest) throw new UsageError(`no .cpuprofile in ${shown}/: run coldstart profile -- <app command> first, or name a file`);
  return { kind: 'profile', profile: newest.full };
}

/** The parsed document when the file looks like a report, else null. */
function parsedReport(file) {
  try {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    return doc && Array.isArray(doc.modules) && Array.isArray(doc.packages) ? doc : null;
  } catch {
    return null; // not a report: maybe a profile or trace speedscope reads
  }
}

/** Re-renders the HTML of a saved report (report.json -> report.html, baseline.json -> baseline.html). */
function renderFromJson(json, cwd, parsed = null) {
  const { readReport, checkedReport } = require('../report/read-report.js');
  const { renderReportHtml } = require('../report/html.js');
  const { writeFileAtomic } = require('../write-atomic.js');
  const report = parsed ? checkedReport(parsed, json) : readReport(json, cwd);
  const html = path.join(path.dirname(json), `${path.basename(json, path.extname(json))}.html`);
  try {
    writeFileAtomic(html, renderReportHtml(report));
  } catch (err) {
    throw new CommandError(`cannot write ${path.relative(cwd, html)}: ${err.code || err.message}`);
  }
  return html;
}

function showReport(target, argv, ctx) {
  const url = pathToFileURL(target.html).href;
  const opened = argv.open ? openBrowser(url, ctx.env) : { opened: false, reason: '--no-open' };
  if (argv.json) {
    ctx.stdout.write(JSON.stringify({ kind: 'report', file: target.html, url, opened: opened.opened, serving: false }, null, 2) + '\n');
    return 0;
  }
  if (argv.quiet) return 0;
  const shown = path.relative(ctx.cwd, target.html) || target.html;
  const lines = [`coldstart view: ${shown}`, `  ${url}`];
  lines.push(opened.opened ? '  opened in your browser' : `  ${whyNotOpened(opened)}: open the URL above in any browser (the file needs no server)`);
  ctx.stdout.write(lines.join('\n') + '\n');
  return 0;
}

function speedscopeRelease() {
  let pkg;
  try {
    pkg = require.resolve('speedscope/package.json');
  } catch {
    throw new CommandError(`speedscope is not installed next to coldstart; load the profile in ${DEVTOOLS_STEPS} the .cpuprofile file`);
  }
  return path.join(path.dirname(pkg), 'dist', 'release');
}

/** --no-serve: speedscope opened from disk, the profile inlined in a script it loads. */
function showProfileFromDisk(profile, argv, ctx) {
  const release = speedscopeRelease();
  const { writeFileAtomic } = require('../write-atomic.js');
  const name = path.basename(profile);
  let source;
  try {
    source = `speedscope.loadFileFromBase64(${JSON.stringify(name)}, ${JSON.stringify(fs.readFileSync(profile).toString('base64'))})\n`;
  } catch (err) {
    if (err.code === 'ERR_STRING_TOO_LONG' || /string longer than/i.test(err.message)) {
      throw new CommandError(`${name} is too large to inline: run coldstart view without --no-serve`);
    }
    throw new UsageError(`cannot read ${profile}: ${err.code || err.message}`);
  }
  // Beside the profile (overwritten next time), or in the temp dir when that is read-only.
  let loader = `${profile}.speedscope.js`;
  try {
    writeFileAtomic(loader, source);
  } catch {
    loader = path.join(require('os').tmpdir(), `coldstart-view-${process.pid}-${name}.speedscope.js`);
    writeFileAtomic(loader, source);
  }
  // speedscope loads `file:///${localProfilePath}` as a script: give it the URL-encoded path.
  const loaderPath = pathToFileURL(loader).pathname.replace(/^\/+/, '');
  const url = `${pathToFileURL(path.join(release, 'index.html')).href}#localProfilePath=${encodeURIComponent(loaderPath)}`;
  let opened = { opened: false, reason: '--no-open' };
  if (argv.open) {
    // `open` (macOS) and Windows drop the #fragment of a file:// URL: go through a page that redirects.
    let openUrl = url;
    if (process.platform === 'darwin' || process.platform === 'win32') {
      const redirect = loader.replace(/\.js$/, '.html');
      writeFileAtomic(redirect, `<!doctype html><meta charset="utf-8"><script>location.replace(${JSON.stringify(url)})</script>\n`);
      openUrl = pathToFileURL(redirect).href;
    }
    opened = openBrowser(openUrl, ctx.env);
  }
  if (argv.json) {
    ctx.stdout.write(JSON.stringify({ kind: 'profile', file: profile, url, opened: opened.opened, serving: false }, null, 2) + '\n');
    return 0;
  }
  if (!argv.quiet) ctx.stdout.write(profileLines(profile, url, opened, ctx, null).join('\n') + '\n');
  return 0;
}

/** Serves speedscope and the profile on 127.0.0.1 until Ctrl-C (or, with --once, until loaded). */
async function serveProfile(profile, argv, ctx) {
  const http = require('http');
  const release = speedscopeRelease();
  const port = Number(argv.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid --port "${argv.port}": a whole number from 0 to 65535`);
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
  let idleTimer = null;
  let profileServed = false;
  // --once: the page asks for a few assets after the profile (fonts); stop when it goes quiet.
  const touch = () => {
    if (!argv.once || !profileServed) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => finishOnce && finishOnce(), 1500);
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

  const { trapInterrupts } = require('../interrupt.js');
  const traps = trapInterrupts();
  try {
    // The root redirects to the full URL: some openers drop a #fragment.
    const opened = argv.open ? openBrowser(`${origin}/`, ctx.env) : { opened: false, reason: '--no-open' };
    if (argv.json) {
      ctx.stdout.write(JSON.stringify({ kind: 'profile', file: profile, url, opened: opened.opened, serving: true, port: actualPort }, null, 2) + '\n');
    } else if (!argv.quiet) {
      ctx.stdout.write(profileLines(profile, url, opened, ctx, actualPort).join('\n') + '\n');
      ctx.stdout.write(argv.once
        ? `Serving on 127.0.0.1:${actualPort} until the profile has been loaded once.\n`
        : `Serving on 127.0.0.1:${actualPort}; press Ctrl-C to stop.\n`);
    }
    await new Promise((resolve) => {
      finishOnce = resolve;
      if (traps.signal.aborted) resolve();
      traps.signal.addEventListener('abort', resolve, { once: true });
    });
  } finally {
    clearTimeout(idleTimer);
    traps.dispose();
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  }
  return 0;
}

function profileLines(profile, url, opened, ctx, port) {
  const shown = path.relative(ctx.cwd, profile) || profile;
  const lines = [`coldstart view: ${shown} in speedscope`, `  ${url}`];
  if (opened.opened) {
    lines.push('  opened in your browser');
  } else {
    lines.push(`  ${whyNotOpened(opened)}: open the URL above in a browser on this machine`);
    if (port) lines.push(`  from another machine: ssh -L ${port}:127.0.0.1:${port} <this host>, then open the URL there`);
    lines.push(`  or load it in ${DEVTOOLS_STEPS} ${profile}`);
  }
  return lines;
}

function whyNotOpened(opened) {
  return opened.reason === '--no-open' ? 'not opened (--no-open)' : `no browser to open here (${opened.reason})`;
}

/** Finds a command on PATH. */
function onPath(cmd, env) {
  for (const dir of String(env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const full = path.join(dir, cmd);
    try {
      fs.accessSync(full, fs.constants.X_OK);
      return full;
    } catch { /* next */ }
  }
  return null;
}

/** Starts the system's URL opener, detached (it exits by itself; the browser is the user's). */
function openBrowser(url, env) {
  let cmd;
  if (env.BROWSER) {
    cmd = env.BROWSER;
  } else if (process.platform === 'darwin') {
    cmd = 'open';
  } else if (process.platform === 'win32') {
    cmd = 'explorer.exe';
  } else {
    if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return { opened: false, reason: 'no DISPLAY' };
    cmd = onPath('xdg-open', env);
    if (!cmd) return { opened: false, reason: 'no xdg-open' };
  }
  try {
    const { spawn } = require('child_process');
    const child = spawn(cmd, [url], { detached: true, stdio: 'ignore', env });
    child.on('error', () => {}); // reported as opened; the URL is printed either way
    child.unref();
    return { opened: true };
  } catch (err) {
    return { opened: false, reason: `${cmd}: ${err.code || err.message}` };
  }
}
