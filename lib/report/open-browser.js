'use strict';
// Opens a URL in the user's browser through the system's opener, where there is one.
const fs = require('fs');
const path = require('path');

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

module.exports = { openBrowser };
