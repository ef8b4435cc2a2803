'use strict';
// One clock for readyAt: a profiled run (the agent) and a timed run (bench, check) read the same
// moments as the app reads them itself. The app times itself with performance.now(), ms since its
// process started, in the same run: a module's first and last line, the call to listen() and its
// 'listening' callback. A profiled run leaves out the pause its profiler held the app (attachMs),
// which the app's own clock counts.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { capture } = require('../lib/capture/capture.js');
const { rm } = require('./helpers/app.js');

// The clock's readings are whole µs: a few of them add up in a figure.
const ROUNDING_MS = 0.01;

function selfTimingApp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-ready-clock-'));
  fs.writeFileSync(path.join(dir, 'timed.js'), `'use strict';
// Busy for 30 ms, first line to last, as it times itself.
const startMs = performance.now();
let spun = 0;
while (performance.now() - startMs < 30) spun++;
module.exports = { spun, startMs, endMs: performance.now() };
`);
  fs.writeFileSync(path.join(dir, 'app.js'), `'use strict';
const timed = require('./timed.js');
const server = require('http').createServer((req, res) => res.end('ok'));
const listenCallMs = performance.now();
server.listen(0, '127.0.0.1', () => {
  const listeningMs = performance.now();
  require('fs').writeFileSync(process.env.TRUTH_FILE + '.tmp', JSON.stringify({ timed: { startMs: timed.startMs, endMs: timed.endMs }, listenCallMs, listeningMs }));
  require('fs').renameSync(process.env.TRUTH_FILE + '.tmp', process.env.TRUTH_FILE);
});
`);
  return dir;
}

const within = (ms, from, to) => ms >= from - ROUNDING_MS && ms <= to + ROUNDING_MS;

test('readyAt: a profiled run and a timed run agree with the app that times itself, the profiler\'s pause left out', async () => {
  const dir = selfTimingApp();
  try {
    const truthFile = path.join(dir, 'truth.json');
    // A timed run does not hold the app: it is ended once the app's 'listening' callback has written.
    const written = async () => { while (!fs.existsSync(truthFile)) await new Promise((resolve) => setTimeout(resolve, 10)); };
    const run = (timingOnly) => capture({
      command: ['node', 'app.js'], cwd: dir, until: { mode: 'listen' }, profile: false, timingOnly,
      whileRunning: timingOnly ? written : undefined, env: { ...process.env, TRUTH_FILE: truthFile },
    });
    const truth = () => JSON.parse(fs.readFileSync(truthFile, 'utf8'));

    const profiled = await run(false);
    const seen = truth();
    const pauseMs = profiled.clock.pausedUs / 1000;
    assert.ok(pauseMs > 0 && profiled.attachMs === pauseMs, JSON.stringify(profiled.clock));
    const onAppClock = (ms) => ms + pauseMs;
    const mod = profiled.modules.find((m) => m.file.endsWith('timed.js'));
    const figures = JSON.stringify({ module: mod, readyAt: profiled.readyAt, pauseMs, seen });
    // The module's load starts before its first line runs and ends after its last.
    assert.ok(onAppClock(mod.startMs) <= seen.timed.startMs + ROUNDING_MS, `load starts after its first line: ${figures}`);
    assert.ok(onAppClock(mod.startMs + mod.inclusiveMs) >= seen.timed.endMs - ROUNDING_MS, `load ends before its last line: ${figures}`);
    // Ready at the listen: after listen() was called, before the app heard of it (the agent holds
    // the app there while the CLI takes its data, so the bound above is loose).
    assert.ok(within(onAppClock(profiled.readyAt), seen.listenCallMs, seen.listeningMs), `ready outside the listen: ${figures}`);

    fs.rmSync(truthFile);
    const timed = await run(true);
    const again = truth();
    // No pause in a timed run, nothing held: the ready moment lies between the app's two readings.
    assert.ok(within(timed.readyAt, again.listenCallMs, again.listeningMs), JSON.stringify({ readyAt: timed.readyAt, again }));
    assert.ok(within(timed.listenAt, again.listenCallMs, timed.readyAt), JSON.stringify({ listenAt: timed.listenAt, again }));
    // Both count the module's own work, wherever it fell.
    for (const [name, readyAt, ownMs] of [['profiled', profiled.readyAt, seen.timed.endMs - seen.timed.startMs], ['timed', timed.readyAt, again.timed.endMs - again.timed.startMs]]) {
      assert.ok(readyAt >= ownMs, `${name}: ready at ${readyAt} ms, the module alone ran ${ownMs} ms`);
    }
  } finally {
    rm(dir);
  }
});
