'use strict';
// Mistakes at the command line: one line on stderr, exit 2, and what was probably meant. The app
// command may come without `--` when it has no flags of its own.
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { runCli, REPO } = require('./helpers/app.js');

const APP = path.join(REPO, 'fixtures', 'express-app');

async function oneLine(args, pattern) {
  const r = await runCli(args, { cwd: APP });
  assert.strictEqual(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
  assert.strictEqual(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr.trim(), pattern);
}

test('a mistyped command or flag is named with the nearest one; an app flag taken for coldstart\'s says where -- goes', async () => {
  await oneLine(['profil', '--', 'node', 'server.js'], /^coldstart: unknown command "profil" \(did you mean profile\?\)$/);
  await oneLine(['launch'], /^coldstart: unknown command "launch": use one of profile, pack, start, .*check, dockerfile$/);
  await oneLine(['profile', '--coverge', '--', 'node', 'server.js'], /^coldstart: Unknown argument: coverge \(did you mean --coverage\?\)$/);
  await oneLine(['check', '--budgte', '1s', '--', 'node', 'server.js'], /^coldstart: Unknown argument: budgte \(did you mean --budget\?\)$/);
  await oneLine(['profile', 'node', 'server.js', '--port', '3'], /^coldstart: Unknown argument: port: put the app command after --, e\.g\. coldstart profile -- node server\.js --port 3$/);
  await oneLine(['view', 'a.cpuprofile', 'b', 'c'], /^coldstart: Unknown arguments: b, c$/);
});

test('the app command without -- runs when it has no flags of its own', async () => {
  const r = await runCli(['profile', '--root', REPO, '--out', path.join(require('os').tmpdir(), `cs-usage-${process.pid}`), '-q', 'node', 'server.js'], { cwd: APP });
  assert.strictEqual(r.code, 0, r.stderr);
  require('fs').rmSync(path.join(require('os').tmpdir(), `cs-usage-${process.pid}`), { recursive: true, force: true });
});

test('pack --code-cache takes nothing or compile; an old spelling and its new one for the same limit are one line, exit 2', async () => {
  await oneLine(['pack', '--code-cache', 'node', 'server.js'], /^coldstart: invalid --code-cache "node": give --code-cache alone \(recorded from a second start of the app\) or --code-cache compile \(compiled without running the app\); the app command goes after --$/);
  await oneLine(['pack', '--code-cache=run', '--', 'node', 'server.js'], /^coldstart: invalid --code-cache "run"/);
  const both = async (args, pattern) => {
    const r = await runCli(args, { cwd: APP });
    assert.strictEqual(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.match(lines[0], /^coldstart: warning: --max-\S+ is deprecated/);
    assert.deepStrictEqual(lines.length, 2, r.stderr);
    assert.match(lines[1], pattern);
  };
  await both(['check', '--budget', 'modules=5', '--max-modules', '6', '--', 'node', 'server.js'], /^coldstart: --max-modules and --budget modules= both give the modules limit: give --budget modules=… only$/);
  await both(['check', '--budget', '1s,advice=5ms', '--max-advice-ms', '6ms', '--', 'node', 'server.js'], /^coldstart: --max-advice-ms and --budget advice= both give the advice limit/);
  await both(['check', '-n', '3..6', '--max-runs', '9', '--budget', '1s', '--', 'node', 'server.js'], /^coldstart: --max-runs is the old spelling of --runs N\.\.M: give --runs N\.\.M only$/);
});
