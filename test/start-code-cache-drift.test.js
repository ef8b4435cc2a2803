'use strict';
// V8 rejects a code cache made under another cachedDataVersionTag (V8 version, V8 flags, CPU
// features), one module at a time. start uses no such cache at all and says so once.
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { spawnSync } = require('child_process');
const { copyFixture, runCli, rm, BIN } = require('./helpers/app.js');

const EXIT_ON_LISTEN = path.join(__dirname, 'helpers', 'exit-on-listen.js');

// --allow-natives-syntax changes the tag of the process that runs start, and so of the app,
// which start runs in-process.
function start(dir, tar, nodeFlags) {
  return spawnSync(process.execPath, [...nodeFlags, BIN, 'start', '--archive', tar, '--mode', 'memory', '--', 'node', '-r', EXIT_ON_LISTEN, 'server.js'],
    { cwd: dir, env: { ...process.env, COLDSTART_DEBUG_CACHE: '1' }, encoding: 'utf8' });
}

test('start --mode memory skips a code cache made for another V8 tag, with one warning, and uses it under the same tag', async () => {
  const dir = copyFixture('express-app');
  try {
    const tar = path.join(dir, '.startup.tar');
    const packed = await runCli(['pack', '-q', '--code-cache', '--out', tar, '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);

    const drifted = start(dir, tar, ['--allow-natives-syntax']);
    assert.strictEqual(drifted.status, 0, drifted.stderr);
    assert.match(drifted.stdout, /express-app listening on \d+/);
    const warnings = drifted.stderr.split('\n').filter((line) => line.startsWith('coldstart: warning:'));
    assert.strictEqual(warnings.length, 1, drifted.stderr);
    assert.match(warnings[0], new RegExp(`code cache in .* was made for another V8 \\(Node ${process.version}, V8 .*, tag \\d+; this is Node .*, tag \\d+.*--max-lazy.*\\); modules compile as usual`));
    assert.match(drifted.stderr, /coldstart: serving \d+ files/);
    assert.doesNotMatch(drifted.stderr, /code cache for \d+ modules/);
    assert.match(drifted.stderr, /code cache used for 0 modules, rejected for 0/);

    const same = start(dir, tar, []);
    assert.strictEqual(same.status, 0, same.stderr);
    assert.match(same.stdout, /express-app listening on \d+/);
    assert.doesNotMatch(same.stderr, /warning/);
    assert.match(same.stderr, /code cache used for [1-9]\d* modules, rejected for 0/);
  } finally { rm(dir); }
});
