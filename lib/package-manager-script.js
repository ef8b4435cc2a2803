'use strict';
// npm, npx, yarn, pnpm and corepack only start the real app: code that runs in every Node process
// (the profiling agent, start's preload) leaves them alone.

/** Whether a process's main script (process.argv[1]) is a package manager's. */
function isPackageManager(script) {
  if (!script) return false;
  const s = script.replace(/\\/g, '/');
  return /\/(npm|npx|yarn|yarnpkg|pnpm|pnpx|corepack)$/.test(s) || // the bin link, as the shell ran it
    /\/(npm|npx)-cli\.js$/.test(s) ||
    /\/(yarn|yarnpkg)(\.c?js)?$/.test(s) ||
    /\/pnpm\.c?js$/.test(s) || /\/pnpx(\.c?js)?$/.test(s) ||
    /\/corepack(\.c?js)?$/.test(s) || /\/corepack\/dist\//.test(s);
}

module.exports = { isPackageManager };
