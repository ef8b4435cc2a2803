'use strict';
// The app running on after its ready moment, while the capture still reads from it: pack --after
// (what it loads and reads shortly after joins the startup's data) and profile --after (a window
// under a profile of its own, coldstart sending it requests).
const { CommandError } = require('../errors.js');
const { trimProfile } = require('./trim-profile.js');
const { driveRequests, targetOf } = require('./request-driver.js');
const { errorLine } = require('./capture-failure.js');
const { msSinceStart } = require('../in-app/ready-moment.cjs');

/** Resolves after ms, or at once when signal aborts. */
function runOn(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (signal) signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

/** The app runs on for settleMs; what it loaded and read meanwhile joins the ready moment's data. */
async function afterSettling(session, payload, { settleMs, signal }) {
  await session.resume();
  await runOn(settleMs, signal);
  const later = await session.snapshotNow('settled').catch(() => null);
  if (!later) return payload; // the app ended meanwhile: what it had at the ready moment
  const { modules, esm, esmReads, reads, resolutions, esmResolutions, builtins } = later;
  return { ...payload, modules, esm, esmReads, reads, resolutions, esmResolutions, builtins };
}

/**
 * profile --after: the app runs on for after.ms under a second profile, coldstart sending the
 * requests it was given; then what the agent recorded meanwhile (requests served, outbound network).
 */
async function afterReadyWindow(session, payload, { after, profile, coverage, signal, stderrTail }) {
  const { ms, requests = [], rate = 2 } = after;
  if (profile) await session.startProfile();
  // With coverage, which files each of coldstart's requests ran (the first request to use a
  // module that startup loaded without using it), from V8's counts taken after each answer.
  const usedBy = new Map();
  const covering = coverage && requests.length && !session.closed;
  if (covering) await session.startCoverage();
  await session.resume();
  let sent = null;
  if (requests.length) {
    const target = targetOf(payload.address);
    if (!target) throw new CommandError('--request: the app reported no address to send requests to');
    let taking = Promise.resolve();
    const onAnswered = covering ? (rec) => {
      taking = taking.then(() => session.coverageSince()).then((files) => {
        for (const file of files) if (!usedBy.has(file)) usedBy.set(file, `${rec.method} ${rec.path}`);
      }, () => {});
    } : null;
    sent = (await driveRequests({ target, requests, rate, durationMs: ms, signal, onAnswered })).sent;
    await taking;
  } else {
    await runOn(ms, signal);
  }
  const later = await session.snapshotNow('after-ready').catch(() => null);
  const rawAfter = profile && !session.closed ? await session.stopProfile().catch(() => null) : null;
  // The profile starts while the app is still held at its ready moment: the hold is cut.
  const afterProfile = rawAfter && later ? trimProfile(rawAfter, later.releasedUs, rawAfter.endTime) : null;
  if (!later) throw new CommandError(`the app ended during the ${ms} ms after its ready moment (--after)${errorLine(stderrTail()) ? ': ' + errorLine(stderrTail()) : ''}`, { code: 'APP_FAILED' });
  if (sent && sent.length && sent.every((r) => r.status == null)) {
    const first = sent[0];
    throw new CommandError(`the app answered none of the ${sent.length} requests after its ready moment: ${first.method} ${first.path}: ${first.error}`, { code: 'APP_FAILED' });
  }
  return { usedBy: covering ? Object.fromEntries(usedBy) : null, startMs: msSinceStart(later.releasedUs, later.startUs, later.pausedUs), endMs: later.readyAt, network: later.network, profile: afterProfile, sent };
}

module.exports = { afterSettling, afterReadyWindow };
