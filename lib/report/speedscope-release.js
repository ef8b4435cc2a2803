'use strict';
// The speedscope release installed with coldstart: its directory, and what to do without it.
const path = require('path');
const { CommandError } = require('../errors.js');

const DEVTOOLS_STEPS = 'Chrome DevTools: Performance panel > "Load profile…" (the upload arrow) > choose';

function speedscopeRelease() {
  let pkg;
  try {
    pkg = require.resolve('speedscope/package.json');
  } catch {
    throw new CommandError(`speedscope is not installed next to coldstart; load the profile in ${DEVTOOLS_STEPS} the .cpuprofile file`);
  }
  return path.join(path.dirname(pkg), 'dist', 'release');
}

module.exports = { speedscopeRelease, DEVTOOLS_STEPS };
