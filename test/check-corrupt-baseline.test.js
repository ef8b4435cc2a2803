'use strict';
// A baseline whose kept runs are not numbers (hand-edited, truncated, written by something else) is
// bad input: check and diff name the file and what is wrong in one `coldstart:` line and exit 2,
// never a TypeError from the statistics.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { copyFixture, runCli, rm } = require('./helpers/app.js');

function baseline(check) {
  return {
    command: ['node', 'server.js'], readyAt: 50, modules: [], packages: [], files: 0, bytes: 0,
    check: { detail: { moduleSelfMs: {}, packageSelfMs: {} }, ...check },
  };
}

const CORRUPT = [
  [{ samples: [50, 'fast', 52], control: [40, 41, 42] }, /check\.samples\[1\] is "fast", not a number/],
  [{ samples: 'fast', control: null }, /check\.samples is not an array of times/],
  [{ samples: [50, 51, 52], control: [40, null, 42] }, /check\.control\[1\] is null, not a number/],
  [{ samples: [50, 51, 52], control: { a: 1 } }, /check\.control is not an array of times/],
];

function expectOneLine(r, file, pattern) {
  assert.strictEqual(r.code, 2, r.stdout + r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.strictEqual(lines.length, 1, r.stderr);
  assert.match(lines[0], new RegExp(`^coldstart: ${file.replace('.', '\\.')} is a corrupt check baseline: `));
  assert.match(lines[0], pattern);
  assert.doesNotMatch(r.stderr, /TypeError|unexpected error/);
  assert.strictEqual(r.stdout, '');
}

test('check and diff: a baseline whose runs are not numbers is one coldstart: line naming the file, exit 2', async () => {
  const dir = copyFixture('slow-require');
  try {
    fs.writeFileSync(path.join(dir, 'good.json'), JSON.stringify(baseline({ samples: [50, 51, 52], control: [40, 41, 42] })));
    for (const [check, pattern] of CORRUPT) {
      fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(baseline(check)));
      const checked = await runCli(['check', '-n', '1', '--baseline', 'bad.json', '--', 'node', 'server.js'], { cwd: dir });
      expectOneLine(checked, 'bad.json', pattern);
      const diffed = await runCli(['diff', 'good.json', 'bad.json'], { cwd: dir });
      expectOneLine(diffed, 'bad.json', pattern);
    }
  } finally {
    rm(dir);
  }
});
