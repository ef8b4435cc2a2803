'use strict';
// Long commands say what they are doing: a line per phase in CI, a line redrawn in place on a
// terminal, nothing with --quiet, --json, or in a plain pipe outside CI.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');
const { progress: phaseProgress } = require('../lib/report/terminal-format.js');

function app() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-progress-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "progress-app", "private": true }');
  fs.writeFileSync(path.join(dir, 'server.js'), "require('http').createServer().listen(0);\n");
  return dir;
}

test('pack --code-cache in CI: one line per phase on stderr, in order, with the time so far; nothing with -q or outside CI', async () => {
  const dir = app();
  try {
    const ci = await runCli(['pack', '--code-cache', '--out', 's.tar', '--', 'node', 'server.js'], { cwd: dir, env: { CI: 'true' } });
    assert.strictEqual(ci.code, 0, ci.stderr);
    const lines = ci.stderr.trim().split('\n');
    assert.deepStrictEqual(lines.map((l) => l.replace(/ \([\d.]+ s\)$/, '')), [
      'coldstart: running the app to its ready moment',
      'coldstart: recording the code cache: a second start, under coldstart start',
      'coldstart: writing 2 files into the archive',
      'coldstart: checking the archive: the app started from its files alone, in an empty directory',
    ]);
    const times = lines.map((l) => Number(/\(([\d.]+) s\)$/.exec(l)[1]));
    assert.deepStrictEqual([...times].sort((a, b) => a - b), times, 'elapsed time grows');
    assert.strictEqual((await runCli(['pack', '-q', '--out', 's.tar', '--', 'node', 'server.js'], { cwd: dir, env: { CI: 'true' } })).stderr, '');
    assert.strictEqual((await runCli(['pack', '--json', '--out', 's.tar', '--', 'node', 'server.js'], { cwd: dir, env: { CI: 'true' } })).stderr, '');
    assert.strictEqual((await runCli(['pack', '--out', 's.tar', '--', 'node', 'server.js'], { cwd: dir })).stderr, '');
  } finally { rm(dir); }
});

test('on a terminal the phase line is redrawn in place and cleared when done', async () => {
  let text = '';
  const stream = { isTTY: true, write: (s) => { text += s; } };
  const progress = phaseProgress({ stream, env: {} });
  progress.phase('building with ncc');
  await new Promise((resolve) => setTimeout(resolve, 1100)); // the line is redrawn each second
  progress.phase('writing the bundle');
  progress.done();
  const draws = text.split('\r\u001b[2K').filter(Boolean);
  assert.ok(draws.filter((d) => d.startsWith('coldstart: building with ncc… ')).length >= 2, JSON.stringify(text));
  assert.match(draws[draws.length - 1], /^coldstart: writing the bundle… [\d.]+ s$/);
  assert.ok(text.endsWith('\r\u001b[2K'), 'the line is cleared at the end');
  assert.ok(!text.includes('\n'), 'one line, never scrolled');
});
