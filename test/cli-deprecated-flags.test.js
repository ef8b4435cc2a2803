'use strict';
// Renamed and dropped flags: each old spelling does what it did, with one warning line saying what to
// give instead, for one release (lib/deprecated-flags.js); and no flag name means two things across commands.
const test = require('node:test');
const { onBenchmarkNode } = require('./helpers/suite.js');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { runCli, spawnCli, waitFor, isAlive, BIN } = require('./helpers/app.js');
const { writeLazyAdviceApp } = require('./helpers/lazy-advice-app.js');
const { fixtureFiles } = require('../lib/fixtures/generate.js');
const { DEPRECATED, deprecationMessage } = require('../lib/deprecated-flags.js');

/** The effect of an old fixture flag: the app in w/ is the one the generator makes with these options. */
function generated(options) {
  return (r, dir) => {
    assert.strictEqual(r.code, 0, r.stderr);
    for (const file of fixtureFiles(options).files) assert.strictEqual(fs.readFileSync(path.join(dir, 'w', file.path), 'utf8'), file.contents, file.path);
  };
}

// No display, no opener: view serves and prints its URL, as on a CI runner.
const HEADLESS = { DISPLAY: '', WAYLAND_DISPLAY: '', BROWSER: '' };
// A CPU profile for view: one root node, no samples.
const PROFILE = { '.coldstart/startup.cpuprofile': JSON.stringify({ nodes: [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0 }], startTime: 0, endTime: 1000, samples: [], timeDeltas: [] }) };

/** view's JSON document once it is printed whole (it then serves on). */
async function viewDocument(output) {
  return JSON.parse(await waitFor(() => /\n}\n$/.test(output().stdout) && output().stdout, 10000, 'the JSON document'));
}

// A server that answers every request with ok.
const SERVER = { 'server.js': "require('http').createServer((req, res) => res.end('ok\\n')).listen(0);\n" };

// Per old spelling: the command with it, and the same command with the new spelling (null: the old
// one had no working form alone; `rest` is then what it still says, as before); or, for a flag no
// other replaces, `effect`: what it still does, checked on the run (its result, its directory).
const CASES = {
  // Sets of runs as before, though neither name is a directory of reports.
  'diff --runs': { old: ['diff', '--runs', 'a', 'b'], new: null, rest: /^coldstart: diff: a is not a directory; give two directories of reports/ },
  'diff --run-sets': { old: ['diff', '--run-sets', 'a', 'b'], new: null, rest: /^coldstart: diff: a is not a directory; give two directories of reports/ },
  'diff --top': { old: ['diff', '--top', '0', 'a', 'b'], new: null, rest: /^coldstart: invalid --top "0"/ },
  'bench --docker': { old: ['bench', '--docker', '-n', '1', '--', 'node', 'app.js'], new: ['bench', '--containers', 'runc,runsc', '-n', '1', '--', 'node', 'app.js'] },
  'bench --runtime': { old: ['bench', '--runtime', 'runsc', '--', 'node', 'app.js'], new: null, rest: /^coldstart: --runtime goes with --docker$/ },
  'bench --warmup': { old: ['bench', '-n', '1', '--warmup', '0', '--until', 'exit', '--json', '--', 'node', 'app.js'], effect: (r) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(JSON.parse(r.stdout).warmup, 0);
  } },
  'bench --ready-line': { old: ['bench', '--containers', 'runc', '--ready-line', 'ready', '-n', '1', '--', 'node', 'app.js'], new: ['bench', '--containers', 'runc', '--until', 'line:/ready/', '-n', '1', '--', 'node', 'app.js'] },
  'bench --html': { old: ['bench', '-n', '1', '--until', 'exit', '--html', 'chart', '--', 'node', 'app.js'], effect: (r, dir) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(fs.readFileSync(path.join(dir, 'chart'), 'utf8'), /^<!doctype html>/);
  } },
  'bench --csv': { old: ['bench', '-n', '1', '--until', 'exit', '--csv', 'samples', '--', 'node', 'app.js'], effect: (r, dir) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(fs.readFileSync(path.join(dir, 'samples'), 'utf8'), /^series,scenario,runtime,where,run,inside_ms,outside_ms\nnode app\.js,,,local,1,/);
  } },
  'bench --scenario': { old: ['bench', '-n', '1', '--scenario', 'cpu', '--json'], effect: (r) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.deepStrictEqual(JSON.parse(r.stdout).series.map((x) => [x.scenario, x.inside.length]), [['cpu', 1]]);
  } },
  'bench --fixture': { old: ['bench', '--fixture', '.', '--', 'node', 'app.js'], new: null, rest: /^coldstart: --fixture goes with --scenario/ },
  'profile --verify-runs': { old: ['profile', '--verify-advice', '--verify-runs', '2', '--', 'node', 'server.js'], setup: (dir) => writeLazyAdviceApp(dir, { heavyMs: 20 }), effect: (r, dir) => {
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    const heavy = report.advice.find((a) => a.subject === 'heavy.js');
    assert.ok(heavy && heavy.verified, JSON.stringify(report.advice));
    assert.strictEqual(heavy.verified.runs, 2);
  } },
  'profile --rate': { old: ['profile', '--after', '1s', '--request', 'GET /', '--rate', '5', '--json', '--', 'node', 'server.js'], files: SERVER, effect: (r) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(JSON.parse(r.stdout).afterReady.sent.count, 5);
  } },
  'profile --keep-running': { old: ['profile', '--keep-running', '--json', '--', 'node', 'server.js'], files: SERVER, effect: async (r) => {
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    try {
      assert.ok(isAlive(report.pid), 'still running');
      assert.strictEqual(await (await fetch(`http://127.0.0.1:${report.address.port}/`)).text(), 'ok\n');
    } finally {
      process.kill(report.pid, 'SIGKILL');
    }
  } },
  'check --min-effect': { old: ['check', '-n', '2..2', '--until', 'exit', '--baseline-cmd', 'node app.js', '--min-effect', '1ms', '--json', '--', 'node', 'app.js'], effect: (r) => {
    assert.strictEqual(r.code, 3, r.stderr); // 2 runs cannot decide
    assert.deepStrictEqual(JSON.parse(r.stdout).checks.map((c) => [c.name, c.minEffect]), [['baseline', 1]]);
  } },
  'check --max-modules': { old: ['check', '-n', '1..1', '--until', 'exit', '--max-modules', '1', '--json', '--', 'node', 'app.js'], files: { 'app.js': "require('./two.js');\n", 'two.js': '' }, effect: (r) => {
    assert.strictEqual(r.code, 1, r.stderr); // two modules: over 1
    assert.deepStrictEqual(JSON.parse(r.stdout).checks.map((c) => [c.name, c.verdict, c.limit]), [['max-modules', 'fail', 1]]);
  } },
  'check --max-advice-ms': { old: ['check', '-n', '1..1', '--until', 'exit', '--max-advice-ms', '60s', '--json', '--', 'node', 'app.js'], effect: (r) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.deepStrictEqual(JSON.parse(r.stdout).checks.map((c) => [c.name, c.verdict, c.limit]), [['max-advice', 'pass', 60000]]);
  } },
  'check --max-runs': { old: ['check', '-n', '2', '--max-runs', '2', '--until', 'exit', '--baseline-cmd', 'node app.js', '--json', '--', 'node', 'app.js'], effect: (r) => {
    assert.strictEqual(r.code, 3, r.stderr); // 2 runs cannot decide, and no more are taken
    assert.strictEqual(JSON.parse(r.stdout).samples.length, 2);
  } },
  'check --format': { old: ['check', '-n', '1..1', '--until', 'exit', '--budget', 'modules=100', '--format', 'markdown', '--', 'node', 'app.js'], effect: (r) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.match(r.stdout, /^## coldstart check: ✅ passed$/m);
    assert.match(r.stdout, /^- ✅ pass 1 module, within the modules budget of 100$/m);
  } },
  'pack --code-cache-run': { old: ['pack', '--code-cache', '--no-code-cache-run', '--until', 'exit', '--json', '--', 'node', 'app.js'], effect: (r) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(JSON.parse(r.stdout).codeCache.made, 'compile');
  } },
  'pack --check': { old: ['pack', '--no-check', '--until', 'exit', '--json', '--', 'node', 'app.js'], effect: (r) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(JSON.parse(r.stdout).check, null, 'the archive was not started alone');
  } },
  'pack --snapshot': { old: ['pack', '--manifest', 'files.txt', '--snapshot', 's.blob'], new: ['pack', '--manifest', 'files.txt', '--snapshot-blob', 's.blob'] },
  'pack --settle': { old: ['pack', '--settle', '1s', '--until', 'exit', '--', 'node', 'app.js'], new: ['pack', '--after', '1s', '--until', 'exit', '--', 'node', 'app.js'] },
  'fixture --esm': { old: ['fixture', '--esm', '--modules', '3', '--out', 'w'], new: ['fixture', '--es-modules', '--modules', '3', '--out', 'w'] },
  'fixture -n': { old: ['fixture', '-n', '3', '--out', 'w'], new: ['fixture', '--modules', '3', '--out', 'w'] },
  'fixture --max-props': { old: ['fixture', '--modules', '3', '--max-props', '2', '--out', 'w'], effect: generated({ modules: 3, maxProps: 2 }) },
  'fixture --seed': { old: ['fixture', '--modules', '3', '--seed', '9', '--out', 'w'], effect: generated({ modules: 3, seed: 9 }) },
  'fixture --depth': { old: ['fixture', '--modules', '4', '--depth', '2', '--out', 'w'], effect: generated({ modules: 4, depth: 2 }) },
  'view --report': { old: ['view', '--report', '--no-open', '--json'], files: { '.coldstart/report.html': '<!doctype html>\n' }, effect: (r, dir) => {
    assert.strictEqual(r.code, 0, r.stderr);
    assert.deepStrictEqual(JSON.parse(r.stdout), { kind: 'report', file: path.join(dir, '.coldstart', 'report.html'), url: `file://${path.join(dir, '.coldstart', 'report.html')}`, opened: false, serving: false });
  } },
  'view --serve': { old: ['view', '--serve', '--no-open', '--json'], files: PROFILE, drive: async (output, child) => {
    // Served with --no-open, as before (--no-open alone prints a file:// URL).
    const doc = await viewDocument(output);
    assert.strictEqual(doc.serving, true);
    assert.strictEqual((await fetch(decodeURIComponent(/profileURL=([^&]+)/.exec(doc.url)[1]))).status, 200);
    child.kill('SIGINT');
  }, effect: (r) => assert.strictEqual(r.code, 0, r.stderr) },
  'view --once': { old: ['view', '--once', '--json'], files: PROFILE, drive: async (output) => {
    // Ends by itself once the page has loaded the profile (here: the profile asked for).
    const doc = await viewDocument(output);
    assert.strictEqual((await fetch(decodeURIComponent(/profileURL=([^&]+)/.exec(doc.url)[1]))).status, 200);
  }, effect: (r) => assert.strictEqual(r.code, 0, r.stderr) },
  'view --port': { old: ['view', '--port', '0', '--json'], files: PROFILE, drive: async (output, child) => {
    assert.ok((await viewDocument(output)).port > 0);
    child.kill('SIGINT');
  }, effect: (r) => assert.strictEqual(r.code, 0, r.stderr) },
  'start --verify': { old: ['start', '--verify', 'none', '--archive', 'none.tar', '--', 'node', 'app.js'], new: ['start', '--trust-archive', '--archive', 'none.tar', '--', 'node', 'app.js'] },
  'start --report': { old: ['start', '--report', 'r.json', '--archive', 'none.tar', '--', 'node', 'app.js'], new: ['start', '--report-file', 'r.json', '--archive', 'none.tar', '--', 'node', 'app.js'] },
};

/**
 * The command in a fresh directory with a small app and a case's own files: `start`, or a command
 * the case drives while it runs (`drive(output, child)`), as its own process. Its result and the directory.
 */
async function runInFreshDir(t, args, { files = {}, setup = null, drive = null } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-deprecated-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'app.js'), 'console.log("app ran")\n');
  fs.writeFileSync(path.join(dir, 'files.txt'), 'app.js\n');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  if (setup) setup(dir);
  if (drive) {
    const { child, done, output } = spawnCli(args, { cwd: dir, env: HEADLESS });
    try {
      await drive(output, child);
      return { ...(await done), dir };
    } finally {
      child.kill('SIGKILL');
    }
  }
  if (args[0] !== 'start') return { ...(await runCli(args, { cwd: dir })), dir };
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, dir };
}

test('each old spelling works as before, with exactly one deprecation line saying what to give instead', async (t) => {
  if (!onBenchmarkNode(t, 'flag parsing no Node changes')) return;
  const named = DEPRECATED.flatMap((r) => r.commands.map((c) => `${c} ${r.old.length === 1 ? '-' : '--'}${r.old}`));
  assert.deepStrictEqual(Object.keys(CASES).sort(), named.sort(), 'a case for every old spelling in the table');
  // No Docker here: bench says so the same way for both spellings.
  const saved = process.env.COLDSTART_DOCKER;
  process.env.COLDSTART_DOCKER = path.join(os.tmpdir(), 'cs-deprecated-no-docker');
  t.after(() => { if (saved === undefined) delete process.env.COLDSTART_DOCKER; else process.env.COLDSTART_DOCKER = saved; });
  for (const r of DEPRECATED) {
    for (const command of r.commands) {
      const name = `${command} ${r.old.length === 1 ? '-' : '--'}${r.old}`;
      const c = CASES[name];
      const old = await runInFreshDir(t, c.old, c);
      const lines = old.stderr.split('\n').filter(Boolean);
      const deprecated = lines.filter((l) => /is deprecated/.test(l));
      assert.deepStrictEqual(deprecated, [`coldstart: warning: ${deprecationMessage(r)}`], `${name}: ${old.stderr}`);
      if (r.new) assert.ok(deprecated[0].includes(`--${r.new}`), `${name} names --${r.new}`);
      const rest = lines.filter((l) => !/is deprecated/.test(l));
      if (c.effect) {
        await c.effect({ ...old, stderr: rest.join('\n') }, old.dir);
        continue;
      }
      if (!c.new) {
        assert.strictEqual(rest.length, 1, old.stderr);
        assert.match(rest[0], c.rest);
        continue;
      }
      const now = await runInFreshDir(t, c.new, c);
      assert.deepStrictEqual({ code: old.code, stdout: old.stdout, stderr: rest.join('\n') },
        { code: now.code, stdout: now.stdout, stderr: now.stderr.trimEnd() }, name);
    }
  }
});

test('an old spelling and its new one together: one line, exit 2', async (t) => {
  const r = await runInFreshDir(t, ['pack', '--manifest', 'files.txt', '--snapshot', 'a.blob', '--snapshot-blob', 'b.blob']);
  assert.strictEqual(r.code, 2);
  assert.strictEqual(r.stderr, 'coldstart: --snapshot is the old spelling of --snapshot-blob: give --snapshot-blob only\n');
});

test('with --json the deprecation line goes to stderr; stdout is the JSON document alone', async (t) => {
  const r = await runInFreshDir(t, ['fixture', '-n', '2', '--out', 'w', '--json']);
  assert.strictEqual(r.code, 0, r.stderr);
  assert.strictEqual(JSON.parse(r.stdout).modules, 2);
  assert.match(r.stderr, /^coldstart: warning: -n is deprecated \(use --modules\)/);
});

test('--help lists the old spellings from the table', async () => {
  for (const command of new Set(DEPRECATED.flatMap((r) => r.commands))) {
    const r = await runCli([command, '--help']);
    for (const old of DEPRECATED.filter((e) => e.commands.includes(command))) {
      assert.match(r.stdout, new RegExp(`^ {2}${old.old.length === 1 ? '-' : '--'}${old.old}: \\S`, 'm'), `${command} --help`);
    }
  }
});

/** Each command's flags as its builder declares them (the old spellings are added by lib/cli.js, hidden). */
function declaredFlags() {
  const flags = [];
  for (const file of fs.readdirSync(path.join(__dirname, '..', 'lib', 'commands'))) {
    const cmd = require(`../lib/commands/${file}`);
    const command = cmd.command.split(' ')[0];
    const recorder = new Proxy({}, {
      get: (_, method) => (...args) => {
        if (method === 'option') flags.push({ command, name: args[0], def: args[1] });
        return recorder;
      },
    });
    cmd.builder(recorder);
  }
  // start parses its flags by hand; its usage line lists them (a flag followed by a value word takes one).
  const { USAGE } = require('../lib/start/usage.js');
  for (const m of USAGE.split('\n')[0].split(' -- ')[0].matchAll(/\[?(--[a-z-]+)( [A-Za-z|]+)?\]?/g)) {
    flags.push({ command: 'start', name: m[1].slice(2), def: m[2] ? { type: 'string' } : { type: 'boolean' } });
  }
  return flags;
}

test('no flag name has two meanings: one kind (yes/no, a value, a list) for each name and short flag across commands', () => {
  const kind = (def) => (def.type === 'boolean' ? 'yes/no' : def.array || def.type === 'array' ? 'list' : 'value');
  const seen = new Map();
  for (const { command, name, def } of declaredFlags()) {
    for (const [key, meaning] of [[`--${name}`, kind(def)], ...[].concat(def.alias || []).map((a) => [`-${a}`, `--${name}`])]) {
      const first = seen.get(key);
      if (first) assert.strictEqual(meaning, first.meaning, `${key}: ${meaning} in ${command}, ${first.meaning} in ${first.command}`);
      else seen.set(key, { meaning, command });
    }
  }
  assert.ok(seen.size > 40, `flags found: ${seen.size}`);
  // An old spelling is no flag of its command any more.
  const flags = declaredFlags();
  for (const r of DEPRECATED) {
    for (const command of r.commands) assert.ok(!flags.some((f) => f.command === command && f.name === r.old), `${command} --${r.old}`);
  }
});
