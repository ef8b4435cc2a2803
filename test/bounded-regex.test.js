'use strict';
// A user's pattern (bench --until line:/REGEX/) is tested with a time bound: one that backtracks
// without end gives up instead of holding the process past its --timeout and its signals.
const test = require('node:test');
const assert = require('node:assert');
const { boundedRegex } = require('../lib/bounded-regex.js');
const { parseBenchUntil } = require('../lib/options.js');

// Unbounded, the first test() below would run for days: the test's own timeout is the bound it must beat.
test('a pattern that backtracks without end gives up within its bound and stays given up; a sane one matches as a RegExp does', { timeout: 60_000 }, () => {
  const { pattern } = parseBenchUntil('line:/^(a+)+$/');
  const line = `${'a'.repeat(40)}!`;
  assert.strictEqual(pattern.test(line), false);
  assert.strictEqual(pattern.stalled, true);
  assert.match(String(pattern), /given up: one match took over \d+ ms/);
  assert.strictEqual(pattern.test('aaa'), false, 'given up for good');

  const sane = boundedRegex(/listening on port (\d+)/i);
  assert.strictEqual(sane.test('server LISTENING on port 8080'), true);
  assert.strictEqual(sane.test('starting'), false);
  assert.strictEqual(sane.stalled, false);
  assert.strictEqual(String(sane), '/listening on port (\\d+)/i');
});
