'use strict';
// examples/github-actions/startup-check.yml as a pull request runs it: its own `run:` lines, in an
// app with coldstart in node_modules, with $GITHUB_STEP_SUMMARY pointed at a file.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { REPO, copyFixture, rm } = require('./helpers/app.js');
const { cpuWorkModule } = require('./helpers/cpu-work.js');
const { fastSkips, onBenchmarkNode } = require('./helpers/suite.js');

const MANY_RUNS = fastSkips('many timed runs of an app');

const WORKFLOW = path.join(REPO, 'examples', 'github-actions', 'startup-check.yml');

/** The workflow's one-line `run:` steps after `npm ci`, and the baseline command its header gives. */
function workflowSteps() {
  const text = fs.readFileSync(WORKFLOW, 'utf8');
  const runs = [...text.matchAll(/^\s+run: (.+)$/gm)].map((m) => m[1]).filter((line) => line !== 'npm ci');
  const record = /^#\s+(npx coldstart check .*--update-baseline.*)$/m.exec(text);
  return { runs, record: record && record[1] };
}

function shell(line, cwd, env) {
  return spawnSync('bash', ['-e', '-o', 'pipefail', '-c', line], { cwd, env, encoding: 'utf8', timeout: 180_000 });
}

test('the GitHub Actions example: the summary says passed for the same app and FAILED naming the module that grew; the report is there to upload', MANY_RUNS, (t) => {
  if (!onBenchmarkNode(t, 'a CI workflow no Node changes')) return;
  const dir = copyFixture('slow-require');
  const summary = path.join(os.tmpdir(), `cs-step-summary-${process.pid}.md`);
  try {
    // coldstart as the project's dependency, its bin where npx finds it.
    fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
    fs.symlinkSync(REPO, path.join(dir, 'node_modules', 'coldstart'), 'dir');
    fs.symlinkSync(path.join(REPO, 'bin', 'coldstart.js'), path.join(dir, 'node_modules', '.bin', 'coldstart'));
    const server = path.join(dir, 'server.js');
    const withSlow = fs.readFileSync(server, 'utf8');
    fs.writeFileSync(server, withSlow.split('\n').filter((l) => !l.includes("require('./slow.js')")).join('\n').replace('${slow.spun}', 'ok'));
    const env = { ...process.env, GITHUB_STEP_SUMMARY: summary, CI: 'true' };
    const { runs, record } = workflowSteps();
    assert.strictEqual(runs.length, 2, `a check step and a profile step: ${runs}`);
    assert.ok(record, 'the header says how to record the baseline');

    const recorded = shell(record, dir, env);
    assert.strictEqual(recorded.status, 0, recorded.stdout + recorded.stderr);
    assert.ok(fs.existsSync(path.join(dir, '.coldstart', 'baseline.json')));

    // The same app passes (an unchanged app is called slower now and then on a shared machine: a second try).
    let text = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      fs.writeFileSync(summary, '');
      const steps = runs.map((line) => shell(line, dir, env));
      for (const s of steps.slice(1)) assert.strictEqual(s.status, 0, s.stdout + s.stderr);
      text = fs.readFileSync(summary, 'utf8');
      if (steps[0].status === 0) break;
    }
    assert.match(text, /^## coldstart check: (✅ passed|⚠️ inconclusive \(1 of 1\): the runs cannot decide)$/m, text);
    assert.match(text, /\| time to ready \| \*\*[\d.]+ ms\*\* \| [\d.]+–[\d.]+ ms \(9\d%\) \| (\d+) \|/);
    assert.match(text, /### Against the baseline `\.coldstart\/baseline\.json`/);
    for (const file of ['report.html', 'report.json', 'startup.cpuprofile']) {
      assert.ok(fs.existsSync(path.join(dir, 'coldstart-report', file)), `${file} to upload`);
    }

    // 300 ms more CPU work at startup: the check step fails, the summary names the module.
    fs.writeFileSync(path.join(dir, 'slow.js'), cpuWorkModule(300));
    fs.writeFileSync(server, withSlow);
    fs.writeFileSync(summary, '');
    const failed = shell(runs[0], dir, env);
    assert.strictEqual(failed.status, 1, failed.stdout + failed.stderr);
    text = fs.readFileSync(summary, 'utf8');
    assert.match(text, /^## coldstart check: ❌ FAILED \(1 of 1\)$/m, text);
    assert.match(text, /^- ❌ \*\*FAIL\*\* time to ready/m);
    assert.match(text, /\| `slow\.js` \(new\) \| – \| [\d.]+ ms \| \+[\d.]+ ms \|/, text);
  } finally {
    rm(dir);
    fs.rmSync(summary, { force: true });
  }
});

test('a $GITHUB_STEP_SUMMARY that is a FIFO (or a device) never holds the check: one warning, the verdict on stdout', async () => {
  const { runCli } = require('./helpers/app.js');
  const dir = copyFixture('plain-http');
  try {
    const fifo = path.join(dir, 'summary.fifo');
    assert.strictEqual(spawnSync('mkfifo', [fifo]).status, 0);
    for (const summary of [fifo, '/dev/zero']) {
      const r = await runCli(['check', '-n', '2', '--budget', '60s', '--', process.execPath, 'server.js'], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } });
      assert.ok([0, 3].includes(r.code), r.stderr);
      assert.match(r.stderr, /^coldstart: warning: could not append the verdict to \$GITHUB_STEP_SUMMARY \(.*\): (ENXIO|not a regular file)$/m);
    }
  } finally {
    rm(dir);
  }
});
