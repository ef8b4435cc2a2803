'use strict';
// What `coldstart view` prints: where the report or the profile is, whether a browser opened it,
// and what to do where none could.
const { DEVTOOLS_STEPS } = require('./speedscope-release.js');

const whyNotOpened = (opened) => (opened.reason === '--no-open' ? 'not opened (--no-open)' : `no browser to open here (${opened.reason})`);

/** A report.html: a file any browser opens, no server needed. */
function reportLines(shown, url, opened) {
  return [`coldstart view: ${shown}`, `  ${url}`,
    opened.opened ? '  opened in your browser' : `  ${whyNotOpened(opened)}: open the URL above in any browser (the file needs no server)`];
}

/** A profile in speedscope; port: where it is served (null from disk), for an ssh tunnel. */
function profileLines({ shown, profile, url, opened, port }) {
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

module.exports = { reportLines, profileLines };
