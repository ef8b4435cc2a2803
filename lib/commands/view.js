'use strict';
// coldstart view [FILE]: a CPU profile in speedscope, served offline from the installed package
// on 127.0.0.1 and opened in a browser (with --no-open a file:// URL printed instead), or a report
// named as FILE. Where no browser can be opened it serves, and prints the URL and how to load the
// profile in Chrome DevTools.
const path = require('path');
const { pathToFileURL } = require('url');
const { UsageError } = require('../errors.js');
const { openBrowser } = require('../report/open-browser.js');
const { reportLines, profileLines } = require('../report/view-lines.js');

module.exports = {
  command: 'view [file]',
  describe: 'open a CPU profile in speedscope (offline, from the installed package), or a report',
  builder: (yargs) => yargs
    .positional('file', { type: 'string', describe: 'a CPU profile (.cpuprofile, a trace), or a report: report.html, report.json, a production startup report or a log holding one (default: the newest profile in .coldstart/)' })
    .option('open', { type: 'boolean', default: true, describe: 'open a browser, a profile served on 127.0.0.1 until Ctrl-C (--no-open: print a file:// URL, the profile inlined beside it, and exit)' })
    .example('# the newest .coldstart/*.cpuprofile in speedscope; Ctrl-C stops the server', '').example('$0 view', '')
    .example('# the report of the last profile', '').example('$0 view .coldstart/report.html', '')
    .example('# print a file:// URL and exit', '').example('$0 view --no-open', ''),
  async run(argv, ctx) {
    const { resolveTarget } = require('../report/view-target.js');
    // findReport, useServer, stopWhenLoaded and serverPort: internal values of old flags (lib/deprecated-flags.js).
    const target = resolveTarget({ file: argv.file, report: argv.findReport, dir: argv.out }, ctx.cwd);
    if (target.kind === 'report') return showReport(target, argv, ctx);
    if (!(argv.useServer ?? argv.open)) return showProfileFromDisk(target.profile, argv, ctx);
    return serveProfile(target.profile, argv, ctx);
  },
};

function showReport(target, argv, ctx) {
  const url = pathToFileURL(target.html).href;
  const opened = argv.open ? openBrowser(url, ctx.env) : { opened: false, reason: '--no-open' };
  if (argv.json) {
    ctx.stdout.write(JSON.stringify({ kind: 'report', file: target.html, url, opened: opened.opened, serving: false }, null, 2) + '\n');
    return 0;
  }
  if (argv.quiet) return 0;
  ctx.stdout.write(reportLines(path.relative(ctx.cwd, target.html) || target.html, url, opened).join('\n') + '\n');
  return 0;
}

/** --no-open: speedscope from disk, the profile inlined in a script it loads. */
function showProfileFromDisk(profile, argv, ctx) {
  const { speedscopeFileUrl } = require('../report/speedscope-file.js');
  const { url, openUrl } = speedscopeFileUrl(profile, { forOpener: argv.open });
  const opened = argv.open ? openBrowser(openUrl, ctx.env) : { opened: false, reason: '--no-open' };
  if (argv.json) {
    ctx.stdout.write(JSON.stringify({ kind: 'profile', file: profile, url, opened: opened.opened, serving: false }, null, 2) + '\n');
    return 0;
  }
  if (!argv.quiet) ctx.stdout.write(profileLines({ shown: path.relative(ctx.cwd, profile) || profile, profile, url, opened, port: null }).join('\n') + '\n');
  return 0;
}

/** Serves speedscope and the profile on 127.0.0.1 until Ctrl-C (or, stopWhenLoaded, until loaded). */
async function serveProfile(profile, argv, ctx) {
  // Checked here, where a server starts, as it always was: a report or a file:// URL never read it.
  const port = Number(argv.serverPort ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid --port "${argv.serverPort}": a whole number from 0 to 65535`);
  const { serveSpeedscope } = require('../report/speedscope-server.js');
  const server = await serveSpeedscope(profile, { port, once: argv.stopWhenLoaded });
  const { trapInterrupts } = require('../interrupt.js');
  const traps = trapInterrupts();
  try {
    // The root redirects to the full URL: some openers drop a #fragment.
    const opened = argv.open ? openBrowser(`${server.origin}/`, ctx.env) : { opened: false, reason: '--no-open' };
    if (argv.json) {
      ctx.stdout.write(JSON.stringify({ kind: 'profile', file: profile, url: server.url, opened: opened.opened, serving: true, port: server.port }, null, 2) + '\n');
    } else if (!argv.quiet) {
      ctx.stdout.write(profileLines({ shown: path.relative(ctx.cwd, profile) || profile, profile, url: server.url, opened, port: server.port }).join('\n') + '\n');
      ctx.stdout.write(argv.stopWhenLoaded
        ? `Serving on 127.0.0.1:${server.port} until the profile has been loaded once.\n`
        : `Serving on 127.0.0.1:${server.port}; press Ctrl-C to stop.\n`);
    }
    await new Promise((resolve) => {
      server.loaded.then(resolve);
      if (traps.signal.aborted) resolve();
      traps.signal.addEventListener('abort', resolve, { once: true });
    });
  } finally {
    traps.dispose();
    await server.close();
  }
  return 0;
}

