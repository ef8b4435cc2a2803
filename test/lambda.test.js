'use strict';
// Lambda functions under the real runtime interface client (aws-lambda-ric from the npm registry,
// fixtures/lambda-app's lockfile), against the Runtime API coldstart serves on 127.0.0.1: init to
// the runtime's first request for an event, the first invocation apart, the archive served by the
// preload at init, and the ways a function fails to start.
const test = require('./helpers/suite.js').testLeftOutOfFast('aws-lambda-ric (a native build at install)');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');
const { registryFixture } = require('./helpers/registry-fixture.js');

const REPO = path.join(__dirname, '..');
// The installs of the fixture (a native build) take minutes the first time on a machine.
const SLOW = { timeout: 20 * 60 * 1000 };

/** What the function measured of itself (handler.js with TRUTH_FILE). */
const truthOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'truth.json'), 'utf8'));
const reportOf = (dir, out) => JSON.parse(fs.readFileSync(path.join(dir, out, 'report.json'), 'utf8'));
const near = (actual, expected) => Math.abs(actual - expected) <= Math.max(5, 0.1 * expected);

test('profile --lambda: init ends at the runtime\'s first request for an event, as the function timed itself', SLOW, async (t) => {
  const dir = registryFixture(t, 'lambda-app');
  if (!dir) return;
  try {
    const env = { TRUTH_FILE: path.join(dir, 'truth.json') };
    const r = await runCli(['profile', '--lambda', 'handler.js:handler', '--out', 'init'], { cwd: dir, env });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = reportOf(dir, 'init');
    const truth = truthOf(dir);
    assert.strictEqual(truth.invocations.length, 0, 'no event: no invocation');
    // The function's clock counts the profiler's pause at start, which coldstart leaves out. Init
    // ends after the handler's module did, when the runtime asks for an event: by the handler's
    // next event-loop turn.
    const initEnd = truth.initEnd - report.attachMs;
    const asked = truth.initAsked - report.attachMs;
    assert.ok(report.readyAt >= initEnd, `ready ${report.readyAt} ms, before the handler's init ended at ${initEnd} ms`);
    // Ready when the request reached coldstart's Runtime API, as Lambda counts init; the wait for it
    // to arrive (the runtime client's thread and the CLI waiting for a CPU on a busy machine: 17-133 ms
    // at load 6) is said apart, and init less it is when the runtime asked.
    const { initWaitMs } = report.lambda;
    const context = `ready ${report.readyAt} ms, its last ${initWaitMs} ms waiting; the runtime asked for an event by ${asked} ms (the handler's init ended at ${initEnd} ms)`;
    assert.ok(initWaitMs >= 0 && report.readyAt - initWaitMs >= initEnd - 0.5, context);
    assert.ok(near(report.readyAt - initWaitMs, asked), context);
    assert.deepStrictEqual([report.lambda.handler, report.lambda.initMs, report.lambda.invoke], ['handler.handler', report.readyAt, null]);
    assert.strictEqual(report.root, dir, 'the task root is the root');
    const handler = report.modules.find((m) => m.file === 'handler.js');
    assert.ok(handler && handler.inclusiveMs >= 150, JSON.stringify(handler)); // its init waits 150 ms on the clock
    assert.ok(report.packages.some((p) => p.name === 'aws-lambda-ric'), 'the runtime client is part of the start');
    assert.match(r.stdout, /^coldstart: ready \(Lambda init done: the first request for an event\) after [\d.]+ ms$/m);
    const waitShown = initWaitMs >= 5 && initWaitMs >= 0.05 * report.lambda.initMs;
    assert.match(r.stdout, waitShown
      ? /^ {2}Lambda handler\.handler: init [\d.]+ ms \(to the runtime's first request for an event; its last [\d.]+ ms waiting for the request to arrive, which a busy machine slows\)$/m
      : /^ {2}Lambda handler\.handler: init [\d.]+ ms \(to the runtime's first request for an event\)$/m);
  } finally {
    rm(dir);
  }
});

test('profile --lambda --event: init and the first invocation apart; the invocation holds the handler\'s own time', SLOW, async (t) => {
  const dir = registryFixture(t, 'lambda-app');
  if (!dir) return;
  try {
    const env = { TRUTH_FILE: path.join(dir, 'truth.json') };
    const r = await runCli(['profile', '--lambda', 'handler.handler', '--event', 'event.json', '--out', 'first', '--json'], { cwd: dir, env });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = reportOf(dir, 'first');
    const truth = truthOf(dir);
    assert.strictEqual(truth.invocations.length, 1, 'one invocation, with the event');
    const { start, end } = truth.invocations[0];
    const lambda = report.lambda;
    // Init less its last wait (its request for an event on its way) is when the runtime asked.
    const asked = lambda.initMs - lambda.initWaitMs;
    assert.ok(near(asked, truth.initAsked - report.attachMs) && asked >= truth.initEnd - report.attachMs - 0.5, JSON.stringify({ lambda, truth, attachMs: report.attachMs }));
    assert.ok(lambda.invoke.ok && /^[0-9a-f-]{36}$/.test(lambda.invoke.requestId), JSON.stringify(lambda));
    // The invocation, as Lambda bills it, runs from the event handed over to the response
    // received: the handler's own time and the runtime client's work around it (its parsing of
    // the event, its blocking post of the response).
    assert.ok(lambda.invoke.ms >= end - start, `invocation ${lambda.invoke.ms} ms, the handler alone ran ${end - start} ms`);
    // And nothing of init: it fits between init's end (the function's own clock) and the ready moment
    // (the runtime client's work around the handler grows with the machine's load: no fixed ratio).
    const afterInit = report.readyAt - (truth.initEnd - report.attachMs);
    assert.ok(lambda.invoke.ms <= afterInit, `invocation ${lambda.invoke.ms} ms, ${afterInit} ms from init's end to ready`);
    // Ready is the response: after the handler ended, init and invocation within it.
    assert.ok(report.readyAt >= end - report.attachMs, `ready ${report.readyAt}, the handler ended at ${end - report.attachMs}`);
    assert.ok(report.readyAt >= lambda.initMs + lambda.invoke.ms);
    // The profile covers the invocation: the handler's frames are in it.
    const profile = JSON.parse(fs.readFileSync(path.join(dir, 'first', 'startup.cpuprofile'), 'utf8'));
    assert.ok(profile.nodes.some((n) => n.callFrame.functionName === 'exports.handler' && /handler\.js$/.test(n.callFrame.url)), 'the handler ran under the profiler');
  } finally {
    rm(dir);
  }
});

test('pack --lambda: the archive alone runs the function; the preload serves it at init from NODE_OPTIONS, a missing archive only warns', SLOW, async (t) => {
  const dir = registryFixture(t, 'lambda-app');
  if (!dir) return;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-lambda-pack-'));
  try {
    const archive = path.join(tmp, 'startup.tar');
    const packed = await runCli(['pack', '--lambda', 'handler.js:handler', '--event', 'event.json', '--out', archive], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    assert.match(packed.stderr + packed.stdout, /checked: its files alone, in an empty directory, started the app/);
    const listed = require('child_process').execFileSync('tar', ['tf', archive], { encoding: 'utf8' }).split('\n');
    for (const f of ['handler.js', 'node_modules/aws-lambda-ric/index.mjs', 'node_modules/aws-lambda-ric/rapid-client.node']) assert.ok(listed.includes(f), `${f} packed: ${listed.join(' ')}`);

    // As a Lambda function's environment would set it: the runtime's node gets the preload.
    const preload = { NODE_OPTIONS: `--require ${path.join(REPO, 'start.js')}`, COLDSTART_ARCHIVE: archive, TRUTH_FILE: path.join(dir, 'truth.json') };
    const served = await runCli(['profile', '--lambda', 'handler.js:handler', '--event', 'event.json', '--out', 'served'], { cwd: dir, env: preload });
    assert.strictEqual(served.code, 0, served.stderr);
    assert.match(served.stderr, /coldstart: serving \d+ files, [\d.]+ kB from memory/);
    const report = reportOf(dir, 'served');
    assert.strictEqual(report.served && report.served.mode, 'memory', JSON.stringify(report.served));
    assert.ok(report.lambda.invoke.ok);

    const missing = await runCli(['profile', '--lambda', 'handler.js:handler', '--event', 'event.json', '--out', 'missing'], { cwd: dir, env: { ...preload, COLDSTART_ARCHIVE: path.join(tmp, 'nope.tar') } });
    assert.strictEqual(missing.code, 0, missing.stderr);
    assert.strictEqual(missing.stderr.split('\n').filter((l) => /^coldstart: warning/.test(l)).length, 1, missing.stderr);
    assert.ok(reportOf(dir, 'missing').lambda.invoke.ok, 'the function started from disk');
  } finally {
    rm(dir);
    rm(tmp);
  }
});

test('--lambda: init that throws is exit 1 with its error; a handler not exported, a missing file, an event that is not JSON are exit 2', SLOW, async (t) => {
  const dir = registryFixture(t, 'lambda-app');
  if (!dir) return;
  try {
    fs.writeFileSync(path.join(dir, 'broken.json'), '{ "name": ');
    const throws = await runCli(['profile', '--lambda', 'throws-at-init.js:handler', '--out', 'x'], { cwd: dir });
    assert.strictEqual(throws.code, 1, throws.stderr);
    assert.match(throws.stderr, /^coldstart: the function failed at init: Error: TABLE_NAME is not set$/m);
    assert.ok(!fs.existsSync(path.join(dir, 'x')), 'a failed run leaves nothing behind');
    // An invocation that throws: profile writes what it measured and exits 1; pack packs nothing.
    fs.writeFileSync(path.join(dir, 'throws-at-invoke.js'), "exports.handler = async () => { throw new Error('no such table'); };\n");
    const invoked = await runCli(['profile', '--lambda', 'throws-at-invoke.js:handler', '--event', 'event.json', '--out', 'inv'], { cwd: dir });
    assert.strictEqual(invoked.code, 1, invoked.stderr);
    assert.match(invoked.stderr, /^coldstart: the first invocation failed \(Error: no such table\); the profile of init and the invocation is written$/m);
    assert.strictEqual(reportOf(dir, 'inv').lambda.invoke.ok, false);
    const packed = await runCli(['pack', '--lambda', 'throws-at-invoke.js:handler', '--event', 'event.json', '--out', 'inv.tar'], { cwd: dir });
    assert.strictEqual(packed.code, 1, packed.stderr);
    assert.match(packed.stderr, /^coldstart: the first invocation failed \(Error: no such table\): nothing packed$/m);
    assert.ok(!fs.existsSync(path.join(dir, 'inv.tar')));
    const cases = [
      [['--lambda', 'handler.js:nope'], /^coldstart: --lambda handler\.nope: Runtime\.HandlerNotFound: handler\.nope is undefined or not exported$/m],
      [['--lambda', 'missing.js:handler'], /^coldstart: --lambda: handler file not found: missing\.js/m],
      [['--lambda', 'handler.js'], /^coldstart: invalid --lambda "handler\.js": give the handler as file:export/m],
      [['--lambda', 'handler.js:handler', '--event', 'broken.json'], /^coldstart: --event: broken\.json is not JSON/m],
      [['--lambda', 'handler.js:handler', '--event', 'none.json'], /^coldstart: --event: cannot read none\.json: ENOENT/m],
      [['--event', 'event.json', '--', 'node', 'handler.js'], /^coldstart: --event is the first invocation of a --lambda function/m],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['profile', ...args, '--out', 'y'], { cwd: dir });
      assert.strictEqual(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.strictEqual(r.stderr.trim().split('\n').filter((l) => l.startsWith('coldstart:')).length, 1, r.stderr);
    }
  } finally {
    rm(dir);
  }
});
