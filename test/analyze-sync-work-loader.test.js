'use strict';
// Node's loader work is the loading of a module, never "sync work" of a package: a pnpm-style tree
// whose every require realpaths through symlinks, and a big JSON file read by the JSON loader, both
// put tens of ms under fs.realpathSync / fs.readFileSync in the profile; no advice line may blame a
// package or the app for them.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli, rm } = require('./helpers/app.js');

const PACKAGES = 1500;

function makeApp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-loader-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "loader-work", "private": true }');
  // The packages live in a store and are linked into node_modules, as pnpm lays them out.
  const store = path.join(dir, 'node_modules', '.store');
  fs.mkdirSync(store, { recursive: true });
  const requires = [];
  for (let i = 0; i < PACKAGES; i++) {
    const real = path.join(store, `p${i}`);
    fs.mkdirSync(real);
    fs.writeFileSync(path.join(real, 'package.json'), `{ "name": "p${i}", "version": "1.0.0" }`);
    fs.writeFileSync(path.join(real, 'index.js'), `module.exports = ${i};\n`);
    fs.symlinkSync(real, path.join(dir, 'node_modules', `p${i}`), 'dir');
    requires.push(`require('p${i}')`);
  }
  const items = Array.from({ length: 150000 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', 'b'] }));
  fs.writeFileSync(path.join(dir, 'data.json'), JSON.stringify({ items }));
  fs.writeFileSync(path.join(dir, 'server.js'), [
    "'use strict';",
    `const sum = [${requires.join(', ')}].reduce((a, b) => a + b, 0);`,
    "const data = require('./data.json');",
    "require('http').createServer((req, res) => res.end(String(sum + data.items.length))).listen(0, '127.0.0.1');",
    '',
  ].join('\n'));
  return dir;
}

/** On-CPU ms of the samples whose stack holds `api` below one of Node's loader frames. */
function loaderMs(profile, api) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const { timedSamples } = require('../lib/analyze/cpuprofile-categories.js');
  let us = 0;
  for (const s of timedSamples(profile)) {
    let sawApi = false;
    for (let id = s.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id).callFrame;
      if (f.url === 'node:fs' && f.functionName === api) sawApi = true;
      else if (sawApi && f.url.startsWith('node:internal/modules/')) { us += s.onCpu; break; }
    }
  }
  return us / 1000;
}

test('realpath through package symlinks and a JSON require: the loader\'s, never a sync-work line', async () => {
  const dir = makeApp();
  try {
    const r = await runCli(['profile', '--interval', '200', '--json', '--out', 'out', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    const raw = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'startup.raw.cpuprofile'), 'utf8'));
    const realpath = loaderMs(raw, 'realpathSync');
    const read = loaderMs(raw, 'readFileSync');
    // The profile does hold the loader's work, enough for a finding if it were counted as one.
    assert.ok(realpath + read >= 5, `the loader's realpathSync ${realpath.toFixed(1)} ms and readFileSync ${read.toFixed(1)} ms`);
    const sync = report.advice.filter((a) => a.kind === 'sync-work');
    assert.deepStrictEqual(sync.filter((a) => a.subject.startsWith('fs.')), [], 'no fs finding for the loader\'s reads');
    for (const a of sync) assert.ok(!a.file.startsWith('node_modules/'), `${a.subject} at ${a.file}:${a.line}`);
  } finally {
    rm(dir);
  }
});
