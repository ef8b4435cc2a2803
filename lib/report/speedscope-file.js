'use strict';
// speedscope opened from disk (view --no-open): the profile inlined in a script speedscope loads,
// written beside the profile (overwritten next time), or in the temp dir when that is read-only.
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { UsageError, CommandError } = require('../errors.js');
const { writeFileAtomic } = require('../write-atomic.js');
const { speedscopeRelease } = require('./speedscope-release.js');

/**
 * @param {string} profile
 * @param {{forOpener?: boolean}} [options] the URL will be given to a browser opener
 * @returns {{url: string, openUrl: string}} the speedscope URL, and the one to give an opener
 *   (`open` (macOS) and Windows drop the #fragment of a file:// URL: they get a page that redirects)
 */
function speedscopeFileUrl(profile, { forOpener = false } = {}) {
  const release = speedscopeRelease();
  const name = path.basename(profile);
  let source;
  try {
    source = `speedscope.loadFileFromBase64(${JSON.stringify(name)}, ${JSON.stringify(fs.readFileSync(profile).toString('base64'))})\n`;
  } catch (err) {
    if (err.code === 'ERR_STRING_TOO_LONG' || /string longer than/i.test(err.message)) {
      throw new CommandError(`${name} is too large to inline: run coldstart view without --no-open`);
    }
    throw new UsageError(`cannot read ${profile}: ${err.code || err.message}`);
  }
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
  let openUrl = url;
  if (forOpener && (process.platform === 'darwin' || process.platform === 'win32')) {
    const redirect = loader.replace(/\.js$/, '.html');
    writeFileAtomic(redirect, `<!doctype html><meta charset="utf-8"><script>location.replace(${JSON.stringify(url)})</script>\n`);
    openUrl = pathToFileURL(redirect).href;
  }
  return { url, openUrl };
}

module.exports = { speedscopeFileUrl };
