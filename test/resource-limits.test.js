'use strict';
// --cpus and --memory: the app runs with a share of a CPU and under a memory limit, as Cloud Run or
// Lambda would run it, in a cgroup made for the run and removed after. Ground truth: a module that
// burns 200 ms of CPU times itself (CPU and wall), so the share it got is measured in the same run.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCli, rm, writeFiles } = require('./helpers/app.js');

const APP = {
  'package.json': '{ "name": "limited", "private": true }',
  'burn.js': [
    'const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };',
    'const c0 = cpu(); const t0 = performance.now();',
    'let x = 0; while (cpu() - c0 < 200) for (let i = 0; i < 1e5; i++) x += i % 7;',
    'module.exports = { cpuMs: cpu() - c0, wallMs: performance.now() - t0, x };',
    '',
  ].join('\n'),
  'server.js': [
    "const burn = require('./burn.js');",
    "if (process.env.TRUTH_FILE) require('fs').writeFileSync(process.env.TRUTH_FILE, JSON.stringify(burn));",
    "require('http').createServer((q, r) => r.end('ok')).listen(0);",
    '',
  ].join('\n'),
  // 100 MB of buffers, every page written, before it listens.
  'hungry.js': "const held = []; for (let i = 0; i < 100; i++) held.push(Buffer.alloc(1e6, 1));\nrequire('http').createServer((q, r) => r.end(String(held.length))).listen(0);\n",
};

// A cgroup is named for the coldstart process that made it (coldstart-PID-N): one is left when
// that process has ended. Those of a coldstart still running (another suite on the machine) are not.
function endedMaker(name) {
  const pid = Number(/^coldstart-(\d+)-/.exec(name)?.[1]);
  if (!pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return err.code === 'ESRCH';
  }
}

// The cgroups coldstart made for a run, wherever they are: none may be left after it.
function leftCgroups() {
  const found = [];
  const walk = (dir, depth) => {
    if (depth > 4) return;
    let entries = [];
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      if (e.name.startsWith('coldstart-')) { if (endedMaker(e.name)) found.push(path.join(dir, e.name)); }
      else walk(path.join(dir, e.name), depth + 1);
    }
  };
  walk('/sys/fs/cgroup', 0);
  return found;
}

let dir;
test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-limits-'));
  writeFiles(dir, APP);
});
test.after(() => rm(dir));

test('--cpus 0.5: the app gets half a CPU from its first instruction, and the report says so; nothing is left', async () => {
  const before = leftCgroups();
  const truthFile = path.join(dir, 'truth.json');
  const r = await runCli(['profile', '--json', '--cpus', '0.5', '--until', 'listen', '--out', 'half', '--', 'node', 'server.js'], { cwd: dir, env: { ...process.env, TRUTH_FILE: truthFile } });
  if (r.code === 2 && /needs a cgroup this user can make/.test(r.stderr)) {
    // A machine where no cgroup can be made: one line, nothing run.
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(!fs.existsSync(truthFile));
    return;
  }
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.limits.cpus, 0.5);
  assert.equal(report.limits.memoryBytes, null);
  assert.match(report.limits.how, /^a cgroup v[12] of this machine$/);
  const truth = JSON.parse(fs.readFileSync(truthFile, 'utf8'));
  // 200 ms of CPU at half a CPU takes 400 ms or more; the quota's first period may hold a burst.
  assert.ok(truth.wallMs >= 2 * 0.85 * truth.cpuMs, `burn.js used ${truth.cpuMs.toFixed(1)} ms of CPU in ${truth.wallMs.toFixed(1)} ms`);
  assert.ok(report.readyAt >= truth.wallMs, `ready at ${report.readyAt} ms holds burn.js's ${truth.wallMs.toFixed(1)} ms`);
  assert.deepEqual(leftCgroups(), before);

  const summary = await runCli(['profile', '--cpus', '0.5', '--until', 'listen', '--out', 'half2', '--', 'node', 'server.js'], { cwd: dir });
  assert.match(summary.stdout, /^ {2}under --cpus 0\.5 \(a cgroup v[12] of this machine\), as a platform would run it$/m);
});

test('bench --cpus 0.5: every run gets half a CPU (the app\'s own clocks say so), and the result says the limit', async () => {
  const truthFile = path.join(dir, 'bench-truth.json');
  const r = await runCli(['bench', '-n', '2', '--json', '--cpus', '0.5', '--', 'node', 'server.js'], { cwd: dir, env: { ...process.env, TRUTH_FILE: truthFile } });
  if (r.code === 2 && /needs a cgroup this user can make/.test(r.stderr)) return;
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.deepEqual(result.limits, { cpus: 0.5, memoryBytes: null });
  assert.match(result.notes[0], /^every run with 0\.5 of a CPU \(a cgroup made for each run\)$/);
  const truth = JSON.parse(fs.readFileSync(truthFile, 'utf8')); // the last run's
  assert.ok(truth.wallMs >= 2 * 0.85 * truth.cpuMs, `burn.js used ${truth.cpuMs.toFixed(1)} ms of CPU in ${truth.wallMs.toFixed(1)} ms`);
});

test('--memory 64m: an app that allocates 100 MB at load is killed for memory: exit 1, one line, nothing left', async () => {
  const before = leftCgroups();
  const r = await runCli(['profile', '--memory', '64m', '--until', 'listen', '--out', 'oom', '--', 'node', 'hungry.js'], { cwd: dir });
  if (r.code === 2 && /needs a cgroup this user can make/.test(r.stderr)) return;
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('coldstart:'));
  assert.deepEqual(lines, ['coldstart: the app was killed for memory before its ready moment: it went over --memory 64 MiB, as a platform with that limit would kill it']);
  assert.deepEqual(leftCgroups(), before);
  // Within the limit it starts, and check takes the limit too.
  const fits = await runCli(['check', '-n', '1', '--json', '--memory', '256MiB', '--budget', 'modules=10', '--until', 'listen', '--', 'node', 'hungry.js'], { cwd: dir });
  assert.notEqual(fits.code, 1, fits.stdout + fits.stderr);
});

test('--cpus and --memory refuse what no platform gives, in one line', async () => {
  for (const [flag, value, line] of [
    ['--cpus', '0', /^coldstart: invalid --cpus "0": a share of CPUs from 0\.01 to \d+ \(this machine's\), such as 0\.5 or 1$/m],
    ['--cpus', 'half', /^coldstart: invalid --cpus "half"/],
    ['--cpus', '999', /^coldstart: invalid --cpus "999"/],
    ['--memory', '64', /^coldstart: invalid --memory "64": give a size with its unit, such as 256MiB, 512Mi, 64m or 1GB$/m],
  ]) {
    const r = await runCli(['profile', flag, value, '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(r.code, 2, `${flag} ${value}: ${r.stderr}`);
    assert.match(r.stderr, line);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  // In a container the capture runs beside the app: its memory would count against the limit.
  const docker = await runCli(['profile', '--docker', 'any-image', '--memory', '256MiB'], { cwd: dir });
  assert.equal(docker.code, 2);
  assert.match(docker.stderr, /^coldstart: --memory with --docker: coldstart's capture runs inside the container/);
});
