'use strict';
// A bundle warning is one `coldstart: warning:` line and exit 0; under --strict it is exit 1.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCli, rm } = require('./helpers/app.js');

test('bundle: a module glob in the source warns; --strict turns the warning into exit 1', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bundle-strict-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"globbed","version":"1.0.0"}\n');
    fs.writeFileSync(path.join(dir, 'server.js'), "const entities = 'dist/**/*.entity.js';\n"
      + "require('http').createServer((q, s) => s.end(entities)).listen(0, '127.0.0.1');\n");
    const plain = await runCli(['bundle', '--no-verify', '--out', 'plain', '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(plain.code, 0, plain.stderr);
    const lines = plain.stderr.split('\n').filter((l) => l.startsWith('coldstart: warning:'));
    assert.equal(lines.length, 1, plain.stderr);
    assert.match(lines[0], /^coldstart: warning: server\.js:1 names modules by a glob \(dist\/\*\*\/\*\.entity\.js\)/);

    const json = await runCli(['bundle', '--no-verify', '--json', '--out', 'json', '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout).warnings.map((w) => [w.code, w.context.line]), [['MODULE_GLOB', 1]]);

    const strict = await runCli(['bundle', '--strict', '--no-verify', '--out', 'strict', '--', 'node', 'server.js'], { cwd: dir });
    assert.equal(strict.code, 1, strict.stderr);
    assert.match(strict.stderr, /^coldstart: --strict: server\.js:1 names modules by a glob .*\(MODULE_GLOB\)$/m);
    assert.doesNotMatch(strict.stderr, /coldstart: warning:/);
  } finally { rm(dir); }
});
