#!/usr/bin/env node
'use strict';
// `coldstart start` runs inside containers on every cold start: it must not pay for yargs.
if (process.argv[2] === 'start') {
  require('../lib/start/launcher.js').main(process.argv.slice(3));
} else {
  require('../lib/cli.js')
    .run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr })
    .then((code) => { process.exitCode = code; });
}
