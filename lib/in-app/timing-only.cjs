'use strict';
// The agent of a timed run (bench, check, bundle's verification, --verify-advice): the ready moment
// only, no inspector and no hooks, one file written to the CLI's channel. agent.cjs loads it under
// COLDSTART_TIMING=1 and hands it the channel's primitives.
const { readyMoment, onReadyMoment, readyReason, answerOf, processClock } = require('./ready-moment.cjs');

/** @param {{writeChannelFile: Function, cliWatcher: Function, leaveChannel: Function}} channel */
function startTimingOnly({ writeChannelFile, cliWatcher, leaveChannel }) {
  const clock = processClock(); // readyAt's: a timed run holds the app for no pause
  const until = readyMoment();
  // profile --verify-advice: some requires of the app made lazy (lazy-stand-in.cjs, its LAZY_ENV;
  // named here so that the file loads only when it is used).
  const lazySpec = process.env.COLDSTART_LAZY;
  const lazy = lazySpec ? require('./lazy-stand-in.cjs').installStandIns(lazySpec, clock.now) : null;
  let done = false;
  const report = (reason, extra) => {
    if (done) return;
    done = true;
    const readyAt = clock.now();
    // What the main thread waited for a CPU meanwhile: check judges the time to ready less it.
    writeChannelFile(`${process.pid}.ready.json`, { pid: process.pid, reason, readyAt, runQueueMs: require('./process-start.cjs').waitedForCpuMs(), ...extra, ...(lazy ? { lazyLoaded: lazy.loaded().slice() } : {}) });
  };
  globalThis[Symbol.for('coldstart.agent')] = { timingOnly: true };
  process.debugPort = 0; // should the start hang, SIGUSR1 opens an inspector on a free port (hung-start.js)
  // A CLI killed during its timed runs (check, bench, bundle's verification) cannot end the app:
  // it ends itself, its children with it.
  const cliAlive = cliWatcher(Number(process.env.COLDSTART_CLI_PID));
  setInterval(() => {
    if (cliAlive()) return;
    leaveChannel([`${process.pid}.ready.json`, `${process.pid}.ready.json.tmp`, `${process.pid}.clock.json`, `${process.pid}.clock.json.tmp`]);
    process.exit(1);
  }, 250).unref();
  if (until === 'exit') process.on('exit', (code) => report('exit', { exitCode: code }));
  else if (until === 'lambda') {
    // The ready moment is the Runtime API's (the CLI's): it needs this process's start on its clock.
    writeChannelFile(`${process.pid}.clock.json`, { pid: process.pid, startUs: clock.startUs });
  } else {
    onReadyMoment(until, (server, moment) => {
      report(readyReason(until), { address: moment.address, listenedAt: clock.at(moment.listenUs), ...answerOf(moment) });
    });
  }
}

module.exports = { startTimingOnly };
