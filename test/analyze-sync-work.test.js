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

// crypto's *Sync functions live in Node's internal crypto modules, not in node:crypto itself.
test('crypto.scryptSync and pbkdf2Sync before ready are sync work at their lines, as the docs list them', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-sync-crypto-'));
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "crypto-app", "private": true }');
    fs.writeFileSync(path.join(dir, 'server.js'), [
      "const crypto = require('crypto');",
      "const took = (label, t0) => process.stderr.write(label + ' ' + (performance.now() - t0) + '\\n');",
      'let t0 = performance.now();',
      "const key = crypto.scryptSync('secret', 'salt', 64, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });",
      "took('scrypt', t0); t0 = performance.now();",
      "const derived = crypto.pbkdf2Sync('secret', 'salt', 200000, 64, 'sha512');",
      "took('pbkdf2', t0);",
      "require('http').createServer().listen(0, () => console.log('up', key.length + derived.length));",
      '',
    ].join('\n'));
    const r = await runCli(['profile', '--until', 'listen', '--out', 'out', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const took = (label) => Number(new RegExp(`^${label} ([\\d.]+)$`, 'm').exec(r.stderr)[1]);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'report.json'), 'utf8'));
    for (const [subject, line, label] of [['crypto.scryptSync', 4, 'scrypt'], ['crypto.pbkdf2Sync', 6, 'pbkdf2']]) {
      if (took(label) < 15) continue; // too short a call to be sure of 5 samples
      const found = report.advice.find((a) => a.kind === 'sync-work' && a.subject === subject);
      assert.ok(found, `${subject} (${took(label)} ms by the app's clock): ${JSON.stringify(report.advice.map((a) => a.subject))}`);
      assert.deepStrictEqual([found.file, found.line], ['server.js', line]);
      assert.ok(found.estimatedMs <= took(label) + 15, `${found.estimatedMs} against ${took(label)}`);
      assert.match(found.fix, /asynchronous form/);
    }
  } finally { rm(dir); }
});
