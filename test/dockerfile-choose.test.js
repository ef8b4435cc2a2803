'use strict';
// coldstart dockerfile --choose: each way to start (plain node, Node's compile cache, coldstart start
// of the modules, an ncc bundle with either, a startup snapshot) made here, each proven to answer as plain node does,
// timed alternated; the Dockerfile of the fastest proven one is written (within the noise, the
// simpler), and a start that answers otherwise is never chosen and says why.
const test = require('./helpers/suite.js').testLeftOutOfFast('many timed runs of an app');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { copyFixture, runCli, rm, writeFiles } = require('./helpers/app.js');
const { decide } = require('../lib/dockerfile/choose-start.js');
const { onBenchmarkNode } = require('./helpers/suite.js');

let dir;
test.before(() => { dir = copyFixture('bundle-answers'); });
test.after(() => rm(dir));

test('a bundle that answers otherwise is never chosen: both bundle starts say why, and what is written is one of the proven starts', async () => {
  // GET /file: where lib/greeting.js is, by its __filename: inside a bundle there is no such file.
  const r = await runCli(['dockerfile', '--choose', '--json', '--runs', '2', '--request', 'GET /file', '--out', 'Dockerfile'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const { choice } = JSON.parse(r.stdout);
  assert.deepEqual(choice.rows.map((row) => row.name), ['plain', 'compile-cache', 'start', 'bundle-compile-cache', 'bundle-start', 'snapshot']);
  const row = (name) => choice.rows.find((x) => x.name === name);
  // Node before 22.1 makes no start with a compile cache: it says so instead.
  const noCache = typeof require('node:module').enableCompileCache !== 'function';
  for (const name of ['bundle-compile-cache', 'bundle-start']) {
    assert.equal(row(name).proven, false, name);
    const why = noCache && name === 'bundle-compile-cache' ? /^Node \S+ has no compile cache \(22\.1 and later\)$/ : /^it does not answer as plain node does: GET \/file answered a different body$/;
    assert.match(row(name).problem, why, name);
  }
  // The snapshot's modules ran at its build, where they were: their __filename is the app's.
  assert.equal(row('snapshot').problem, null);
  assert.equal(row('snapshot').proven, true);
  assert.ok(['plain', 'compile-cache', 'modules', 'snapshot'].includes(choice.chosen), choice.chosen);
  const chosen = choice.rows.find((x) => x.writes === choice.chosen);
  assert.equal(chosen.proven, true);
  assert.equal(chosen.samples.length, 2);
  assert.deepEqual(choice.requests, [{ method: 'GET', path: '/file', status: 200 }]);
  // With two runs nothing ties: the fastest median is written.
  const fastest = choice.rows.filter((x) => x.proven).sort((a, b) => a.median.median - b.median.median)[0];
  assert.equal(chosen, fastest);
  const text = fs.readFileSync(path.join(dir, 'Dockerfile'), 'utf8');
  assert.doesNotMatch(text, / bundle /, 'not a bundle Dockerfile');
  const expected = {
    plain: /^CMD \["node","server\.js"\]$/m, 'compile-cache': /^ENV NODE_ENV=production NODE_COMPILE_CACHE=\/compile-cache$/m,
    modules: /coldstart\.js","start"/, snapshot: /^CMD \["node","--snapshot-blob","\/startup\.blob","server\.js"\]$/m,
  }[choice.chosen];
  assert.match(text, expected);
});

test('the printed table: every start with its median, its factor to plain and its answer; the chosen one marked', async () => {
  const r = await runCli(['dockerfile', '--choose', '--runs', '2', '--out', 'Dockerfile.text'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Chosen: .+ \(2 starts each, alternated, on this machine; asked GET \/ 200\)$/m);
  const noCache = typeof require('node:module').enableCompileCache !== 'function';
  for (const label of ['plain node', "Node's compile cache alone", 'coldstart start of the modules', "ncc bundle \\+ Node's compile cache", 'coldstart start of the ncc bundle', 'a startup snapshot of the modules']) {
    const timed = noCache && /compile cache/.test(label) ? ' +– +– +Node \\S+ has no compile cache' : ' +\\S+ ms \\[\\S+–\\S+\\] +\\d\\.\\d\\d';
    assert.match(r.stdout, new RegExp(`^ {2}[> ] {2}${label}${timed}`, 'm'), label);
  }
  assert.equal((r.stdout.match(/^ {2}> /gm) || []).length, 1, 'one start chosen');
});

test('decide: the fastest proven start; within the noise of it, the simpler; nothing proven, nothing', () => {
  const runs = (ms) => Array.from({ length: 8 }, (_, i) => ms + i);
  const answers = { requests: [{ method: 'GET', path: '/', status: 200 }], statusOnly: [] };
  const all = { plain: runs(600), 'compile-cache': runs(580), 'bundle-compile-cache': runs(300), start: runs(400), 'bundle-start': runs(250) };
  const faster = decide({ samples: all, problems: {}, runs: 8, answers });
  assert.equal(faster.chosen, 'bundle');
  assert.deepEqual(faster.fastest, { name: 'bundle-start' });
  // The bundle with the compile cache a millisecond slower by its median, within the noise: the simpler image.
  const close = decide({ samples: { ...all, 'bundle-compile-cache': runs(251) }, problems: {}, runs: 8, answers });
  assert.equal(close.chosen, 'bundle-compile-cache');
  assert.equal(close.fastest.name, 'bundle-start');
  assert.equal(close.fastest.comparison.verdict, 'noise');
  // A start that cannot be written (Node 20 in the image: no compile cache) is timed, never chosen.
  const old = decide({ samples: all, problems: {}, unwritable: { 'bundle-compile-cache': 'Node 20 in the image has no compile cache' }, runs: 8, answers });
  assert.equal(old.chosen, 'bundle');
  assert.match(old.rows.find((r) => r.name === 'bundle-compile-cache').problem, /^timed only: Node 20/);
  const unproven = decide({ samples: all, problems: Object.fromEntries(Object.keys(all).map((k) => [k, 'it did not start'])), runs: 8, answers });
  assert.equal(unproven.chosen, null);
});

test('--choose needs --out and takes no other way to start; --runtime and --base-image go with it: one line, exit 2', async () => {
  for (const [flags, message] of [
    [['--choose'], /^coldstart: --choose writes the Dockerfile it chose: give --out, e.g. --out Dockerfile$/],
    [['--choose', '--bundle', '--out', 'D'], /^coldstart: --choose with --bundle: --choose picks the way to start; leave out one of them$/],
    [['--runtime', 'runc', '--out', 'D'], /^coldstart: --runtime is where --choose times the starts: give --choose too$/],
    [['--choose', '--base-image', 'node:24-slim', '--out', 'D'], /^coldstart: --base-image is what --choose --runtime builds the starts on: give --runtime too$/],
  ]) {
    const r = await runCli(['dockerfile', ...flags], { cwd: dir });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr.trim(), message);
  }
});

// A CommonJS server on an ES-module-only package, loaded through require(esm) as a NestJS 12 app loads Nest.
function requireEsmApp() {
  const app = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'cs-choose-require-esm-'));
  writeFiles(app, {
    'package.json': '{ "name": "require-esm-app", "private": true, "scripts": { "start": "node server.js" } }\n',
    'server.js': "'use strict';\nconst { greet } = require('framework');\nrequire('node:http').createServer((req, res) => res.end(greet(req.url))).listen(0);\n",
    'node_modules/framework/package.json': '{ "name": "framework", "type": "module", "exports": { ".": "./lib/index.js" } }\n',
    'node_modules/framework/lib/index.js': "import { uid } from 'uid';\nexport function greet(url) { return `hello ${url} ${uid()}`; }\n",
    'node_modules/uid/package.json': '{ "name": "uid", "type": "module", "main": "dist/index.js" }\n',
    'node_modules/uid/dist/index.js': "export function uid() { return 'abcdef'; }\n",
  });
  return app;
}

test('on an ES module app, a require(esm) app and an app traced by an OpenTelemetry preload every start answers as plain node does; the snapshot, where there is none, says why', async () => {
  const noSnapshot = {
    'esm-app': /^no snapshot: the entry index\.js is an ES module: the snapshot holds CommonJS modules/,
    'otel-express': /^no snapshot: the app starts with --require \.\/tracing\.js: a preload \(an APM agent\) must see the modules load/,
    'require(esm)': null, // its CommonJS entry may have one: the ES modules then load at start
  };
  for (const fixture of Object.keys(noSnapshot)) {
    const app = fixture === 'require(esm)' ? requireEsmApp() : copyFixture(fixture);
    try {
      const r = await runCli(['dockerfile', '--choose', '--json', '--runs', '2', '--out', 'Dockerfile'], { cwd: app });
      assert.equal(r.code, 0, `${fixture}: ${r.stderr}`);
      const { choice } = JSON.parse(r.stdout);
      const compileCache = typeof require('node:module').enableCompileCache === 'function';
      for (const row of choice.rows) {
        if (row.name === 'snapshot' && (noSnapshot[fixture] || row.problem)) {
          // A refusal that names a module names it first: "no snapshot: node_modules/... is an ES module, ...".
          assert.match(row.problem, noSnapshot[fixture] || /^no snapshot: (?!is )\S/, fixture);
          assert.equal(row.samples.length, 0, `${fixture}: no snapshot, nothing timed`);
          continue;
        }
        if (/compile-cache/.test(row.name) && !compileCache) {
          assert.match(row.problem, /has no compile cache/, `${fixture} ${row.name}`);
          continue;
        }
        assert.equal(row.problem, null, `${fixture} ${row.name}: ${row.problem}`);
        assert.equal(row.proven, true, `${fixture} ${row.name}`);
      }
      assert.equal(typeof choice.requests[0].status, 'number', `${fixture}: plain node answered GET /`);
    } finally {
      rm(app);
    }
  }
});

test('--choose with an --out that cannot be written: one line, exit 2, no progress of any start', async () => {
  fs.mkdirSync(path.join(dir, 'a-dir'), { recursive: true });
  const r = await runCli(['dockerfile', '--choose', '--out', 'a-dir'], { cwd: dir });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr.trim(), /^coldstart: --out \S*a-dir is a directory: give a file name/);
});

test('--runtime runc: the starts proven here are timed in fresh containers of the images their Dockerfiles build, and one of them is written; no image is left', { timeout: 600_000 }, async (t) => {
  const { needDocker, BASE_IMAGE } = require('./helpers/docker.js');
  if (!onBenchmarkNode(t, 'six image builds of an app')) return;
  if (!(await needDocker(t))) return;
  const { docker } = require('../lib/docker.js');
  const unknown = await runCli(['dockerfile', '--choose', '--runtime', 'no-such-runtime', '--out', 'D'], { cwd: dir });
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr.trim(), /^coldstart: unknown --runtime "no-such-runtime": this Docker engine has /);

  const r = await runCli(['dockerfile', '--choose', '--runtime', 'runc', '--base-image', BASE_IMAGE, '--runs', '2', '--json', '--out', 'Dockerfile.runc'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const { choice } = JSON.parse(r.stdout);
  assert.equal(choice.runtime, 'runc');
  for (const row of choice.rows) {
    assert.equal(row.problem, null, `${row.name}: ${row.problem}`);
    assert.equal(row.samples.length, 2, `${row.name}: two starts in containers`);
    // In-process ms to the first listen by the container's node: more than nothing, less than the timeout.
    for (const ms of row.samples) assert.ok(ms > 1 && ms < 60_000, `${row.name}: ${ms} ms`);
  }
  const chosen = choice.rows.find((row) => row.writes === choice.chosen);
  assert.equal(chosen, [...choice.rows].sort((a, b) => a.median.median - b.median.median)[0], 'with two runs the fastest median is written');
  assert.ok(fs.existsSync(path.join(dir, 'Dockerfile.runc')));
  const images = await docker(['image', 'ls', '--quiet', '--filter', 'reference=coldstart-choose-*']);
  assert.equal(images.stdout.trim(), '', 'no image of the starts left');
});
