'use strict';
// coldstart bench on this machine: real cold starts of generated fixtures, the seed scenarios (as
// bench/seed-table.js times them), the files it writes, and the ways it refuses bad input or an app
// that never gets ready.
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCli, REPO } = require('./helpers/app.js');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { renderBenchSvg, renderBenchHtml } = require('../lib/bench/chart.js');
const { summarize } = require('../lib/stats.js');
const { parseCompareCommand: splitCommand } = require('../lib/options.js');
const { runBenchPlan } = require('../lib/bench/bench-plan.js');
const { prepareScenarioApp } = require('../lib/bench/scenarios.js');

/** The seed scenarios timed on this machine, as bench/seed-table.js asks bench's plan for them in containers. */
function benchScenarios(scenarios, runs) {
  return runBenchPlan({
    commands: [], scenarios, fixtureDir: app, inDocker: false, runtimes: [], cwd: work, env: process.env,
    runs, warmup: 0, until: { mode: 'listen' }, timeoutMs: 60_000,
  });
}

let work;
let app; // a 30-package fixture: starts in well under a second

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-test-'));
  app = (await generateFixture({ dir: path.join(work, 'app'), modules: 30, seed: 7 })).dir;
});
after(() => fs.rmSync(work, { recursive: true, force: true }));

function parseJson(r) {
  assert.equal(r.code, 0, `bench failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function assertOneLine(r, code, pattern) {
  assert.equal(r.code, code, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], /^coldstart: /);
  assert.match(lines[0], pattern);
  assert.equal(r.stdout, '');
}

test('bench of a small fixture: n samples per time, positive, outside after inside', async () => {
  const r = parseJson(await runCli(['bench', '-n', '3', '--json', '--', 'node', 'index.js'], { cwd: app }));
  assert.equal(r.runs, 3);
  assert.equal(r.warmup, 1);
  assert.equal(r.series.length, 1);
  const [s] = r.series;
  assert.equal(s.label, 'node index.js');
  assert.equal(s.metric, 'inside');
  assert.equal(s.inside.length, 3);
  assert.equal(s.outside.length, 3);
  s.inside.forEach((inside, i) => {
    assert.ok(inside > 0, `inside time ${inside}`);
    // Spawn comes before the process starts, and the ready file is seen after it is written.
    assert.ok(s.outside[i] > inside, `outside ${s.outside[i]} > inside ${inside}`);
  });
  assert.deepEqual(s.stats.inside, summarize(s.inside));
  assert.equal(s.stats.inside.stripped.n, 3, 'the 1% strip removes nothing below 100 runs');
  assert.ok(r.machine.cores >= 1 && r.machine.node === process.version);
});

test('cpu scenario: the 1 s control reads at least its 1 s spin and no more than the time seen from outside', { timeout: 60_000 }, async () => {
  const r = await benchScenarios(['cpu'], 3);
  const [s] = r.series;
  assert.equal(s.scenario, 'cpu');
  assert.equal(s.inside.length, 3);
  // The spin runs 1 s of wall-clock time after the process started, so no correct inside time is
  // below 1000 ms; what comes on top (Node's bootstrap, the listen) has no bound on a loaded
  // machine, but spawn -> ready, timed from outside, contains it.
  s.inside.forEach((inside, i) => {
    assert.ok(inside >= 1000, `inside ${inside} ms covers the 1 s spin`);
    assert.ok(inside < s.outside[i], `inside ${inside} ms < outside ${s.outside[i]} ms`);
  });
});

test('require and regenerate scenarios load the fixture; regenerated trees do not pile up in the temp directory', { timeout: 60_000 }, async () => {
  const leftovers = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('coldstart-regenerate-'));
  const before = new Set(leftovers());
  const r = await benchScenarios(['require', 'regenerate'], 2);
  assert.deepEqual(r.series.map((s) => s.label), ['require', 'regenerate']);
  for (const s of r.series) {
    assert.equal(s.inside.length, 2);
    assert.ok(s.inside.every((ms) => ms > 0));
  }
  assert.ok(r.notes.some((n) => n.includes(app)), 'the notes name the fixture');
  assert.deepEqual(leftovers().filter((n) => !before.has(n)), [], 'each regenerate run writes into its own TMPDIR, removed afterwards');
  assert.ok(fs.existsSync(path.join(app, 'index.js')) && !fs.existsSync(path.join(app, 'coldstart-scenarios')),
    'the fixture itself is left untouched');
});

test('the scenarios refuse a fixture that is not there, before anything runs', () => {
  assert.throws(() => prepareScenarioApp({ fixture: path.join(work, 'missing'), into: path.join(work, 'never'), scenarios: ['cpu'] }), /--fixture .* does not exist/);
  assert.ok(!fs.existsSync(path.join(work, 'never')));
});

test('--compare and -o: one series per command; raw samples in .csv, a chart without network in .html, the result in .json', async () => {
  const csv = path.join(work, 'samples.csv');
  const html = path.join(work, 'chart.html');
  const json = path.join(work, 'result.json');
  const r = await runCli(['bench', '-n', '2', '--compare', 'node index.js', "node --no-warnings 'index.js'", '-o', csv], { cwd: app });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /node index\.js\s+inside\s+2 /);
  assert.match(r.stdout, /node --no-warnings index\.js\s+inside\s+2 /);
  assert.match(r.stdout, /│/, 'a histogram in the terminal');
  assert.match(r.stdout, /^csv: .*samples\.csv$/m);
  assert.equal(r.stderr, '', 'no progress in a pipe outside CI');
  const charted = await runCli(['bench', '-n', '2', '--compare', 'node index.js', "node --no-warnings 'index.js'", '-o', html], { cwd: app });
  assert.equal(charted.code, 0, charted.stderr);
  const saved = await runCli(['bench', '-n', '1', '-o', json, '--', 'node', 'index.js'], { cwd: app });
  assert.equal(saved.code, 0, saved.stderr);
  assert.deepEqual(JSON.parse(fs.readFileSync(json, 'utf8')).series.map((s) => s.inside.length), [1]);

  const rows = fs.readFileSync(csv, 'utf8').trim().split('\n');
  assert.equal(rows[0], 'series,scenario,runtime,where,run,inside_ms,outside_ms');
  assert.equal(rows.length, 1 + 4);
  for (const row of rows.slice(1)) {
    const cells = row.split(',');
    assert.ok(Number(cells[5]) > 0 && Number(cells[6]) > Number(cells[5]), row);
  }

  const page = fs.readFileSync(html, 'utf8');
  assert.match(page, /^<!doctype html>/);
  assert.equal((page.match(/<g class="series"/g) || []).length, 2);
  assert.doesNotMatch(page, /<script|<link|\bsrc=|url\(/i, 'nothing is fetched');
  assert.deepEqual([...page.matchAll(/https?:\/\/[^\s"']+/g)].map((m) => m[0]), ['http://www.w3.org/2000/svg'],
    'the only URL is the SVG namespace');
});

test('on a busy machine bench says how long the runs waited for a CPU, per series, as the kernel counted it', async () => {
  const { startBusyLoops } = require('./helpers/busy-loops.js');
  const { busyLine } = require('../lib/report/bench-summary.js');
  // Four loops on this machine's cores: every run waits for a CPU.
  const busy = await startBusyLoops(Math.max(4, 2 * os.availableParallelism()));
  let r;
  try {
    r = await runCli(['bench', '-n', '2', '--json', '--compare', 'node index.js', "node --no-warnings 'index.js'"], { cwd: app });
  } finally { await busy.stop(); }
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  for (const s of result.series) {
    assert.equal(s.wait.length, 2, JSON.stringify(s));
    s.wait.forEach((w, i) => assert.ok(w >= 0 && w < s.inside[i], `${w} ms waited of ${s.inside[i]} ms`));
  }
  assert.match(busyLine(result.series), /^busy machine: the runs waited for a CPU, median node index\.js [\d.]+ of [\d.]+ ms \(\d+%\); node --no-warnings index\.js /);
  // Runs that waited under a tenth of their time: no line.
  assert.equal(busyLine([{ label: 'a', inside: [100, 120], wait: [5, 9] }]), null);
});

test('the chart: one row per series on a shared axis, median marked, zoomed when far from zero', () => {
  const series = (label, samples) => ({
    label, where: 'local', metric: 'inside', inside: samples, outside: samples.map((x) => x + 5),
    stats: { inside: summarize(samples), outside: summarize(samples.map((x) => x + 5)) },
  });
  const fast = Array.from({ length: 200 }, (_, i) => 250 + (i % 20));
  fast[199] = 900; // one slow start: stripped with the top 1%
  const result = { runs: 200, warmup: 1, until: 'listen', series: [series('runc', fast), series('runsc', fast.map((x) => x * 5))] };
  const svg = renderBenchSvg(result);
  assert.equal((svg.match(/<g class="series"/g) || []).length, 2);
  assert.match(svg, />260 ms<\/text>/, 'the median of the first series is written next to its marker');
  assert.match(svg, /top 1%: 900 ms/, 'stripped samples are drawn apart');
  assert.match(svg, />0<\/text>/, 'series far apart share an axis from zero');
  assert.doesNotMatch(svg, /NaN|undefined|Infinity/);

  const control = renderBenchSvg({ ...result, series: [series('cpu', [1040, 1043, 1051, 1046])] });
  assert.doesNotMatch(control, />0<\/text>/, 'a narrow 1 s control is zoomed, not drawn as a sliver');
  assert.match(control, />1040<\/text>/);

  const page = renderBenchHtml({ ...result, machine: { cpu: 'Test CPU', cores: 2, memoryGb: 4, os: 'Linux', node: 'v20' }, notes: ['<note>'] });
  assert.match(page, /Test CPU, 2 cores/);
  assert.match(page, /&lt;note&gt;/, 'text is escaped');
});

test('splitCommand reads quoted --compare commands as a shell would', () => {
  assert.deepEqual(splitCommand('coldstart start --archive s.tar -- node index.js'),
    ['coldstart', 'start', '--archive', 's.tar', '--', 'node', 'index.js']);
  assert.deepEqual(splitCommand(`node "my app/index.js" 'a b' c\\ d ""`), ['node', 'my app/index.js', 'a b', 'c d', '']);
});

test('bad input: one coldstart: line and exit 2, before anything runs', async () => {
  assertOneLine(await runCli(['bench', '-n', '0', '--', 'node', 'index.js'], { cwd: app }), 2, /invalid -n "0"/);
  assertOneLine(await runCli(['bench'], { cwd: app }), 2, /missing app command/);
  assertOneLine(await runCli(['bench', '--until', '5s', '--', 'node', 'index.js'], { cwd: app }), 2, /--until 5s/);
  assertOneLine(await runCli(['bench', '--containers', ',runsc', '--', 'node', 'index.js'], { cwd: app }), 2, /invalid --containers ",runsc"/);
  assertOneLine(await runCli(['bench', '--compare', 'node "index.js', '-n', '1'], { cwd: app }), 2, /unterminated " quote/);
  assertOneLine(await runCli(['bench', '-o', path.join(work, 'no-such-dir', 'c.html'), '--', 'node', 'index.js'], { cwd: app }), 2, /cannot write -o/);
  assertOneLine(await runCli(['bench', '-o', 'bench.txt', '--', 'node', 'index.js'], { cwd: app }), 2, /-o bench\.txt: name a \.html file/);
  assertOneLine(await runCli(['bench', '--until', 'line:/ready/', '--', 'node', 'index.js'], { cwd: app }), 2, /--until line:\/ready\/: .*give --containers too/);
  assertOneLine(await runCli(['bench', '--until', 'line:ready', '--', 'node', 'index.js'], { cwd: app }), 2, /invalid --until "line:ready": a line of output is line:\/REGEX\//);
  assertOneLine(await runCli(['bench', '--', 'node', 'missing.js'], { cwd: app }), 2, /entry file not found/);
});

test('an app that crashes: stops after the first run, exit 1, with its stderr', async () => {
  const dir = fs.mkdtempSync(path.join(work, 'crash-'));
  const counter = path.join(dir, 'runs.txt');
  fs.writeFileSync(path.join(dir, 'server.js'),
    `require('fs').appendFileSync(${JSON.stringify(counter)}, 'x');\nconsole.error('loading config');\nthrow new Error('DATABASE_URL is not set');\n`);
  const r = await runCli(['bench', '-n', '5', '--', 'node', 'server.js'], { cwd: dir });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  const [first, ...rest] = r.stderr.trim().split('\n');
  assert.match(first, /^coldstart: node server\.js: warm-up run 1 failed: the app ended \(exit code 1\) before it was ready: Error: DATABASE_URL is not set$/);
  assert.ok(rest.some((l) => l.includes('| loading config')), `the app's stderr follows:\n${r.stderr}`);
  assert.equal(fs.readFileSync(counter, 'utf8'), 'x', 'no run after the failing one');
});

test('an app that never gets ready: exits without listening, or outlasts --timeout', async () => {
  const r = await runCli(['bench', '-n', '2', '--', 'node', path.join(REPO, 'fixtures', 'exit-without-listen', 'build.js')], { cwd: work });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^coldstart: .*warm-up run 1 failed: the app exited \(code 0\) without listening; use --until exit/);

  const started = Date.now();
  const t = await runCli(['bench', '-n', '2', '--timeout', '1s', '--', 'node', path.join(REPO, 'fixtures', 'never-listens', 'server.js')], { cwd: work });
  assert.equal(t.code, 1);
  assert.match(t.stderr, /^coldstart: .*warm-up run 1 failed: the app did not listen within 1s \(--timeout\)/);
  assert.ok(Date.now() - started < 8000, 'gave up after the first run');
});

test('--until exit times a script to its end', async () => {
  const r = parseJson(await runCli(['bench', '-n', '2', '--until', 'exit', '--json', '--',
    'node', path.join(REPO, 'fixtures', 'exit-without-listen', 'build.js')], { cwd: work }));
  assert.equal(r.until, 'exit');
  assert.equal(r.series[0].inside.length, 2);
  assert.ok(r.series[0].inside.every((ms) => ms > 0));
});
