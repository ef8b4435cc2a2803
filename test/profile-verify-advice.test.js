'use strict';
// profile --verify-advice: each proposed require is made lazy in real, alternating, timed starts of
// the app. A module only a route uses is confirmed with its measured saving and the route answers
// the same; one whose exports startup reads after all is dropped with the line that read them; one
// destructured where it is required cannot be stood in for and says so.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { writeLazyAdviceApp, SERVER } = require('./helpers/lazy-advice-app.js');
const { runCli, rm } = require('./helpers/app.js');
const { fastSkips } = require('./helpers/suite.js');
const { VERIFY_RUNS } = require('../lib/capture/verify-lazy.js');

const MANY_RUNS = fastSkips('many timed runs of an app');

/** The app in a new directory; heavy.js works 120 ms at load (well above a start's run-to-run noise on a busy machine). */
function makeApp() {
  return writeLazyAdviceApp(fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-verify-')), { heavyMs: 120 });
}

test('--verify-advice: measured saving for a route-only module, dropped when startup reads it, not verified when destructured', MANY_RUNS, async () => {
  const dir = makeApp();
  try {
    // A loaded machine can widen the runs' interval over the saving: then once more, as a user
    // told "noise" would, and never more.
    let code;
    let stdout;
    let stderr;
    let report;
    let heavy;
    for (let attempt = 0; attempt < 2; attempt++) {
      ({ code, stdout, stderr } = await runCli(['profile', '--verify-advice', '--request', 'GET /heavy', '--', process.execPath, 'server.js'], { cwd: dir }));
      assert.strictEqual(code, 0, stderr);
      report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
      heavy = report.advice.find((a) => a.subject === 'heavy.js');
      if (!heavy || !heavy.verified || heavy.verified.verdict !== 'noise') break;
    }
    assert.ok(heavy && heavy.estimatedMs >= 90, JSON.stringify(report.advice));
    assert.strictEqual(heavy.verified.verdict, 'confirmed', JSON.stringify(heavy.verified));
    // The saving measured without instrumentation is of the order the profile estimated.
    assert.ok(heavy.measuredMs >= heavy.estimatedMs / 3, `measured ${heavy.measuredMs} ms saved, estimated ${heavy.estimatedMs} ms`);
    assert.ok(heavy.verified.low <= heavy.measuredMs && heavy.measuredMs <= heavy.verified.high && heavy.verified.runs === VERIFY_RUNS);

    const config = report.adviceDropped.find((d) => d.subject === 'config.js');
    assert.ok(config, `config.js dropped: ${JSON.stringify(report.adviceDropped)}`);
    assert.match(config.reason, /startup uses it after all \(first touched at server\.js:7, before ready\)/);
    assert.ok(!report.advice.some((a) => a.subject === 'config.js'));

    const destructured = report.advice.find((a) => a.subject === 'destructured.js');
    assert.ok(destructured, JSON.stringify(report.advice));
    assert.strictEqual(destructured.verified.verdict, 'not verified');
    assert.match(destructured.verified.reason, /destructuring require/);
    assert.strictEqual(destructured.measuredMs, undefined);

    assert.match(stdout, /load heavy\.js lazily: server\.js:3, .*\n +measured: \d+(\.\d)? ms saved \[[\d.]+ ms … [\d.]+ ms\], 7 runs each, the app started and answered the same/);
    assert.match(stdout, /dropped: load config\.js lazily \(server\.js:5\): startup uses it after all/);
    const html = fs.readFileSync(path.join(dir, '.coldstart', 'report.html'), 'utf8');
    assert.match(html, /id="advice"[\s\S]*measured: [\d.]+ ms saved[\s\S]*Dropped by verification[\s\S]*config\.js/);
  } finally {
    rm(dir);
  }
});

test('--verify-advice drops a proposal when a request answers differently with it loaded lazily', MANY_RUNS, async () => {
  const dir = makeApp();
  try {
    // heavy.js now throws when loaded after startup: the lazy run's route fails where the app's did not.
    fs.appendFileSync(path.join(dir, 'heavy.js'), 'if (require("http").globalAgent && process.uptime() > 0 && globalThis.__started) throw new Error("too late");\n');
    fs.writeFileSync(path.join(dir, 'server.js'), SERVER.replace('function portOf() { return config.port; }', 'function portOf() { return config.port; }\nsetImmediate(() => { globalThis.__started = true; });'));
    const { code, stderr } = await runCli(['profile', '--verify-advice', '--request', 'GET /heavy', '--', process.execPath, 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    const heavy = report.adviceDropped.find((d) => d.subject === 'heavy.js');
    assert.ok(heavy, JSON.stringify(report.adviceDropped));
    assert.match(heavy.reason, /with it loaded lazily GET \/heavy answered .* instead of status 200/);
  } finally {
    rm(dir);
  }
});

test('--after with --request and --coverage: the lazy-load advice says which request first used the module', async () => {
  const dir = makeApp();
  try {
    const { code, stderr } = await runCli(['profile', '--coverage', '--after', '1s', '--request', 'GET /', '--request', 'GET /heavy', '--', process.execPath, 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    const heavy = report.advice.find((a) => a.subject === 'heavy.js');
    assert.strictEqual(heavy.usedBy, 'GET /heavy', JSON.stringify(heavy));
    assert.match(heavy.evidence, /first used after ready by GET \/heavy/);
  } finally {
    rm(dir);
  }
});


test('--verify-advice asks each request with one deadline for the whole answer: a response that never ends, or drips, is an error, not a hang', async () => {
  const http = require('http');
  const { askEach } = require('../lib/capture/request-driver.js');
  const drips = new Set();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    if (req.url === '/never') return res.write('started');
    const drip = setInterval(() => res.write('.'), 50); // never idle, never done
    drips.add(drip);
    res.on('close', () => clearInterval(drip));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const answers = await askEach({ host: '127.0.0.1', port: server.address().port }, [{ method: 'GET', path: '/never' }, { method: 'GET', path: '/drip' }], 500);
    assert.deepStrictEqual(answers.map((a) => [a.path, a.status, a.body, a.error]), [
      ['/never', 200, null, 'no whole answer within 0.5 s'],
      ['/drip', 200, null, 'no whole answer within 0.5 s'],
    ]);
  } finally {
    for (const drip of drips) clearInterval(drip);
    server.closeAllConnections();
    server.close();
  }
});
