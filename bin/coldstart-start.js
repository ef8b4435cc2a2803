#!/usr/bin/env node
'use strict';
// The runtime-only package's command (coldstart-start): `coldstart start` without the CLI around it.
require('../lib/start/launcher.js').main(process.argv.slice(2));
