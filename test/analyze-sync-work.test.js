'use strict';
// Synchronous work before the ready moment, from the CPU profile, with the line that did it: a
// child process run with execFileSync, a big JSON read with readFileSync and parsed at top level,
// and gzipSync. The app times each call itself: the profile's figure is compared with that.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');

const APP = `const fs = require('fs');
const took = (label, t0) => process.stderr.write(label + ' ' + (performance.now() - t0) + '\\n');
let t0 = performance.now();
const data = JSON.parse(fs.readFileSync(__dirname + '/big.json', 'utf8'));
took('parse', t0); t0 = performance.now();
require('child_process').execFileSync(process.execPath, ['-e', 'setTimeout(() => {}, 60)']);
took('child', t0); t0 = performance.now();
const packed = require('zlib').gzipSync(Buffer.alloc(8e6, 7));
took('gzip', t0);
require('http').createServer().listen(0, () => console.log('up', data.items.length, packed.length));
`;

test('sync work before ready: execFileSync, readFileSync + JSON.parse at top level, gzipSync, each at its line', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-sync-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "sync-app", "private": true }');
    const items = Array.from({ length: 60000 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', 'b', 'c'], value: i / 7 }));
    fs.writeFileSync(path.join(dir, 'big.json'), JSON.stringify({ items }));
    fs.writeFileSync(path.join(dir, 'server.js'), APP);
    const r = await runCli(['profile', '--out', 'out', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const took = (label) => Number(new RegExp(`^${label} ([\\d.]+)$`, 'm').exec(r.stderr)[1]);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'report.json'), 'utf8'));
    const sync = report.advice.filter((a) => a.kind === 'sync-work');
    const find = (subject) => sync.find((a) => a.subject === subject);

    const child = find('child_process.execFileSync');
    assert.ok(child, JSON.stringify(sync));
    assert.deepStrictEqual([child.file, child.line], ['server.js', 6]);
    assert.ok(child.estimatedMs >= 0.5 * took('child') && child.estimatedMs <= took('child') + 15,
      `profile ${child.estimatedMs} ms against ${took('child')} ms timed by the app`);
    assert.match(child.fix, /asynchronously/);

    // The parse is the module's own top-level work (JSON.parse has no frame of its own).
    const top = find('top-level code');
    if (took('parse') >= 20) {
      assert.ok(top, JSON.stringify(sync));
      assert.deepStrictEqual([top.file, top.line], ['server.js', 4]);
    }
    const gzip = find('zlib.*Sync');
    if (took('gzip') >= 10) {
      assert.ok(gzip, JSON.stringify(sync));
      assert.deepStrictEqual([gzip.file, gzip.line], ['server.js', 8]);
      assert.ok(gzip.estimatedMs <= took('gzip') + 15, `${gzip.estimatedMs} against ${took('gzip')}`);
    }
    assert.deepStrictEqual(sync.map((a) => a.estimatedMs), [...sync.map((a) => a.estimatedMs)].sort((a, b) => b - a), 'largest first');
    assert.match(r.stdout, /\nAdvice .*\n(?: +[\d.]+ ms .*\n)* +[\d.]+ ms +child_process\.execFileSync blocks startup: server\.js:6, run it asynchronously/);
  } finally { rm(dir); }
});
