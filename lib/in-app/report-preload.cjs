'use strict';
// `node --require coldstart/lib/in-app/report-preload.cjs app.js` with COLDSTART_REPORT=stderr or
// a file: the startup report of an app that does not run under `coldstart start`.
if (process.env.COLDSTART_REPORT) require('./startup-report.cjs').startupReport({ report: process.env.COLDSTART_REPORT });
