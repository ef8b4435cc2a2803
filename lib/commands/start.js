'use strict';
// `coldstart start` is handled by bin/coldstart.js before yargs is loaded (it runs on
// every container start); this entry only documents it in --help.
const { UsageError } = require('../errors.js');

module.exports = {
  command: 'start',
  describe: 'container launcher: load the startup archive, then run the app in this same process ' +
    '(coldstart start --archive /startup.tar [--into DIR] [--quiet] -- node server.js)',
  builder: (yargs) => yargs,
  async run() {
    throw new UsageError('run start as a process: node node_modules/coldstart/bin/coldstart.js start --archive FILE -- node app.js');
  },
};
