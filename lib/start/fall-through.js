'use strict';
// start --mode memory: the app's own files that were not in the archive came from disk. Loaded
// at the first such file. Said in one line at the ready moment (the first listen) when any came
// before it; COLDSTART_REPORT / --report-file lists them all with their times (startup-report.cjs).
const { onListening } = require('../in-app/ready-moment.cjs');

/** @returns {(rel: string) => void} to call with each file that came from disk */
function fallThrough({ reported, warn }) {
  const loaded = [];
  let ready = false;
  onListening(() => {
    if (ready) return;
    ready = true;
    if (!loaded.length) return;
    const more = loaded.length > 5 ? `, and ${loaded.length - 5} more` : '';
    warn(`${loaded.length} of the app's files loaded before it listened were not in the archive and came from disk: ${loaded.slice(0, 5).join(', ')}${more} (re-run coldstart pack${reported ? '' : '; --report-file FILE lists them'})`);
  });
  return (rel) => { if (!ready) loaded.push(rel); };
}

module.exports = { fallThrough };
