'use strict';
// The Node processes of the app's tree as their agents announce themselves in the channel: an
// inspector session attached to each as it appears, every pid to end afterwards, and the capture's
// questions about them (the first to start, the newest, the ancestors of the ready one).
const fs = require('fs');
const path = require('path');
const { attach } = require('./inspector.js');
const { recordedChildren } = require('../in-app/recorded-children.cjs');
const { CommandError } = require('../errors.js');

/**
 * Watches the channel until stopWatching().
 * @param {object} opts
 * @param {string} opts.channel the directory the agents write to
 * @param {bigint} opts.spawnedAt when the tree was started (hrtime)
 * @param {{profile: boolean, interval: number, coverage: boolean}} opts.attachOptions
 * @param {{settle: (outcome: object) => void, settled: boolean, ready: ?object}} opts.end the
 *   capture's outcome, settled by the first ready moment, ready file or failed attach
 * @param {boolean} opts.keepLateSessions a session attached after the outcome stays held
 * @param {() => void} opts.onAttached
 */
function followProcessTree({ channel, spawnedAt, attachOptions, end, keepLateSessions, onAttached }) {
  const sessions = new Map(); // pid -> session
  const pids = new Set();
  const clocks = new Map(); // pid -> process start (µs), timing-only runs of a Lambda function
  const seen = new Set();

  const readChannelFile = (name) => JSON.parse(fs.readFileSync(path.join(channel, name), 'utf8'));
  const onAnnounce = (name) => {
    if (!name || !name.endsWith('.json') || seen.has(name)) return;
    if (name.endsWith('.ready.json')) return onReadyFile(name);
    if (name.endsWith('.clock.json')) return onClockFile(name);
    let announce;
    try {
      announce = readChannelFile(name);
    } catch {
      return; // not complete yet: the rename makes it appear whole later
    }
    seen.add(name);
    pids.add(announce.pid);
    attach(announce, {
      ...attachOptions,
      // Known from here on: a fast app reaches its ready moment before attach() has returned
      // (still waiting to hear it resumed from the start), and must be let go and ended all the same.
      onReady: (session, payload) => {
        sessions.set(session.pid, session);
        end.settle({ type: 'ready', session, payload });
      },
    }).then((session) => {
      sessions.set(session.pid, session);
      onAttached();
      // Attached after the capture ended: let it go (it is ended with the tree). Not the session
      // that reached the ready moment while attaching, nor a Lambda function's (its runtime can
      // finish init before attach() returns): the capture still reads from it.
      if (end.settled && !keepLateSessions && !(end.ready && end.ready.session === session)) session.resume().then(() => session.close());
    }, (error) => end.settle({ type: 'attach-failed', pid: announce.pid, error })); // it would wait for us forever
  };
  const onReadyFile = (name) => {
    let payload;
    try {
      payload = readChannelFile(name);
    } catch {
      return;
    }
    seen.add(name);
    pids.add(payload.pid);
    end.settle({ type: 'ready-file', payload, outsideMs: Number(process.hrtime.bigint() - spawnedAt) / 1e6 });
  };
  const onClockFile = (name) => {
    try {
      const { pid, startUs } = readChannelFile(name);
      seen.add(name);
      pids.add(pid);
      clocks.set(pid, startUs);
    } catch { /* not complete yet */ }
  };
  const rescan = () => { for (const n of fs.readdirSync(channel)) onAnnounce(n); };
  const watcher = fs.watch(channel, (_, name) => onAnnounce(name));
  // fs.watch can coalesce events: a slow scan makes sure no announcement is lost.
  const scan = setInterval(rescan, 50);

  /** What pick() finds once the agent's announcement has been read and attached (10 s at most). */
  async function waitFor(pick) {
    for (let i = 0; i < 1000; i++) {
      rescan();
      const found = pick();
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new CommandError('the function\'s Node process did not announce itself to coldstart');
  }
  const open = () => [...sessions.values()].filter((s) => !s.closed);

  return {
    rescan,
    stopWatching() {
      clearInterval(scan);
      watcher.close();
    },
    /** A Node process of the app announced itself (or wrote its ready moment). */
    heardFrom: () => sessions.size > 0 || seen.size > 0,
    /** A process of the app listened (--until answer says so before its first answer). */
    listened: () => [...sessions.values()].some((s) => s.listened),
    /** Every process to end: the announced ones and those they started. */
    allPids: () => [...pids, ...childPids(channel)],
    firstSession: () => open().sort((a, b) => a.announce.startUs - b.announce.startUs)[0] || null,
    newestSession: () => waitFor(() => open().sort((a, b) => b.announce.startUs - a.announce.startUs)[0]),
    /** [pid, startUs] of the newest process that wrote its start (a timing-only run). */
    newestClock: () => waitFor(() => [...clocks].sort((a, b) => b[1] - a[1])[0]),
    closeAll() { for (const s of sessions.values()) s.close(); },
    // Held processes are let go first, so the app's own SIGTERM handlers can run.
    async releaseAll() { for (const s of sessions.values()) { await s.resume(); await s.close(); } },
    /**
     * What the Node processes above the ready one (a cluster primary, a launcher that forks the
     * server) loaded and read: the command needs their files too to start.
     */
    async ancestorsOf(session) {
      const byPid = new Map([...sessions.values()].map((s) => [s.pid, s]));
      const found = [];
      const seenPids = new Set([session.pid]);
      for (let at = byPid.get(session.announce.ppid); at && !seenPids.has(at.pid); at = byPid.get(at.announce.ppid)) {
        seenPids.add(at.pid);
        if (at.closed) continue;
        const data = await at.finishNow('ancestor').catch(() => null);
        if (data) found.push(data);
      }
      return found;
    },
  };
}

/** The processes the app's Node processes started, as their agents wrote them down, still running. */
function childPids(channel) {
  let names = [];
  try { names = fs.readdirSync(channel); } catch { return []; }
  return names.filter((n) => n.endsWith('.children')).flatMap((n) => recordedChildren(path.join(channel, n)));
}

module.exports = { followProcessTree };
