'use strict';
// node --require coldstart/start (or in NODE_OPTIONS): `coldstart start` as a preload, configured
// by environment (COLDSTART_ARCHIVE, ...), for platforms that own the command. See lib/start/preload.js.
require('./lib/start/preload.js').preload();
