'use strict';
// Warnings a command collected before it failed are still shown, before its error line: a failed
// run is when they matter most.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');

test('a command that fails after collecting warnings shows them before its one error line', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-warn-error-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'a', version: '1.0.0', scripts: { start: 'node server.js' }, dependencies: { coldstart: '*' } }));
    fs.writeFileSync(path.join(dir, 'server.js'), '');
    // Two lockfiles: a warning; an --out in a directory that does not exist: a usage error after it.
    fs.writeFileSync(path.join(dir, 'package-lock.json'), '{}');
    fs.writeFileSync(path.join(dir, 'yarn.lock'), '');
    for (const strict of [[], ['--strict']]) {
      const r = await runCli(['dockerfile', ...strict, '--out', 'missing/Dockerfile'], { cwd: dir });
      assert.strictEqual(r.code, 2, r.stderr);
      assert.match(r.stderr, /^coldstart: warning: several lockfiles [^\n]*\ncoldstart: cannot write --out missing\/Dockerfile: ENOENT\n$/, `${strict}: ${r.stderr}`);
    }
    const quiet = await runCli(['dockerfile', '-q', '--out', 'missing/Dockerfile'], { cwd: dir });
    assert.strictEqual(quiet.stderr, 'coldstart: cannot write --out missing/Dockerfile: ENOENT\n', 'none under --quiet');
  } finally {
    rm(dir);
  }
});
