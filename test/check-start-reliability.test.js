'use strict';
// A start that hangs one time in many: check counts every start of the app, starts a failed one
// again, and FAILs naming what the hung one was doing (its stack, taken through the inspector it
// opens on SIGUSR1 before it is ended) and the last modules it loaded. No process is left.
const test = require('./helpers/suite.js').testLeftOutOfFast('many timed runs of an app');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');

// The line of the fixture's endless loop: where the hung start's stack must point.
const LOCK_LINE = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'hangs-sometimes', 'lock.js'), 'utf8').split('\n').findIndex((l) => l.includes('for (;;)')) + 1;

// Processes whose environment holds this counter file: the fixture's starts.
function startsAlive(counter) {
  const alive = [];
  for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try { if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`START_COUNTER=${counter}`)) alive.push(pid); } catch { /* gone, or not ours to read */ }
  }
  return alive;
}

/** fixtures/hangs-sometimes copied, and the file its starts are counted in; both removed after. */
async function withStartCounter(use) {
  const dir = copyFixture('hangs-sometimes');
  const counter = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-starts-')), 'count');
  try {
    await use(dir, counter);
  } finally {
    rm(dir);
    rm(path.dirname(counter));
  }
}

test('check -n 20: the 13th start hangs; check FAILs with its stack and last modules, counts every start, leaves nothing running', { timeout: 240_000 }, async () => {
  await withStartCounter(async (dir, counter) => {
    const env = { ...process.env, START_COUNTER: counter, HANG_AT: '13' };
    const r = await runCli(['check', '-n', '20', '--json', '--timeout', '4s', '--budget', 'modules=10', '--', 'node', 'server.js'], { cwd: dir, env });
    assert.equal(r.code, 1, r.stderr);
    const result = JSON.parse(r.stdout);
    const [starts] = result.checks;
    assert.equal(starts.name, 'starts');
    assert.equal(starts.verdict, 'fail');
    assert.equal(starts.failed.length, 1);
    const [hung] = starts.failed;
    assert.equal(hung.start, 13);
    assert.equal(hung.kind, 'hung');
    assert.equal(hung.hung.running, true);
    assert.equal(hung.hung.stack[0].functionName, 'waitForLock');
    assert.match(hung.message, new RegExp(`: it was running waitForLock at lock\\.js:${LOCK_LINE}; the last modules it loaded: server\\.js, lock\\.js$`));
    // Every start counted: the warm-up, the detailed and the timed runs, and the one started again.
    assert.equal(starts.limit, Number(fs.readFileSync(counter, 'utf8')));
    assert.equal(starts.actual, starts.limit - 1);
    assert.equal(result.samples.length, 20, 'the runs the verdict stands on are all there');
    assert.deepEqual(startsAlive(counter), []);

    const text = await runCli(['check', '-n', '3', '--timeout', '4s', '--budget', 'modules=10', '--', 'node', 'server.js'], { cwd: dir, env: { ...env, HANG_AT: String(Number(fs.readFileSync(counter, 'utf8')) + 2) } });
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, new RegExp(`^ {2}FAIL {2}1 of \\d+ starts did not reach the ready moment \\(1 hung, 0 crashed\\): start \\d+: the app did not listen within 4s \\(--timeout\\).*: it was running waitForLock at lock\\.js:${LOCK_LINE}`, 'm'));
  });
});

test('check --memory: a start killed for going over the limit is counted as a crashed start, started again, and FAILs the check', { timeout: 240_000 }, async () => {
  await withStartCounter(async (dir, counter) => {
    const env = { ...process.env, START_COUNTER: counter, BLOAT_AT: '4' };
    const r = await runCli(['check', '-n', '6', '--memory', '96MiB', '--json', '--budget', 'modules=10', '--', 'node', 'server.js'], { cwd: dir, env });
    if (r.code === 2 && /needs a cgroup this user can make/.test(r.stderr)) return; // resource-limits.test.js holds the refusal
    assert.equal(r.code, 1, r.stderr);
    const result = JSON.parse(r.stdout);
    const starts = result.checks.find((c) => c.name === 'starts');
    assert.equal(starts.verdict, 'fail');
    assert.deepEqual(starts.failed.map((f) => [f.start, f.kind]), [[4, 'crashed']]);
    assert.match(starts.failed[0].message, /^the app was killed for memory before its ready moment: it went over --memory 96 MiB/);
    assert.equal(result.samples.length, 6, 'the killed start was started again');
    assert.deepEqual(startsAlive(counter), []);
  });
});
