'use strict';
// Heavy entry points with lighter ones: an app that loads all of a package (a stand-in shaped like
// lodash: one big main file) and uses one method of it is told which entry to use instead; an app
// that uses many methods, or none, is not.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { cpuWorkModule } = require('./helpers/cpu-work.js');
const { runCli, rm } = require('./helpers/app.js');
const { ENTRY_POINTS } = require('../lib/analyze/heavy-entry-points.js');

/** An app whose server.js calls `uses` (e.g. "_.debounce(f, 10)") on a 30 ms lodash-shaped package. */
function makeApp(uses) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-entry-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"entry-points","private":true}\n');
  const lodash = path.join(dir, 'node_modules', 'lodash');
  fs.mkdirSync(lodash, { recursive: true });
  fs.writeFileSync(path.join(lodash, 'package.json'), '{"name":"lodash","version":"4.17.21","main":"lodash.js"}\n');
  fs.writeFileSync(path.join(lodash, 'lodash.js'), cpuWorkModule(30) +
    'const f = (x) => x;\nmodule.exports = { debounce: f, get: f, map: f, pick: f, omit: f, chunk: f };\n');
  fs.writeFileSync(path.join(dir, 'server.js'), `'use strict';\nconst _ = require('lodash');\nconst http = require('http');\n${uses}\n` +
    "http.createServer((req, res) => res.end('ok')).listen(0);\n");
  return dir;
}

test('lodash loaded whole for one method: use lodash/<method>, with the line that uses it and the saving', async () => {
  const dir = makeApp("const onChange = _.debounce(() => {}, 10);");
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--', process.execPath, 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    const found = report.advice.find((a) => a.kind === 'heavy-entry-point');
    assert.ok(found, JSON.stringify(report.advice));
    assert.deepStrictEqual([found.subject, found.file, found.line, found.parts], ['lodash', 'server.js', 4, ['debounce']]);
    const lodashMs = report.packages.find((p) => p.name === 'lodash');
    assert.ok(found.estimatedMs >= 15 && found.estimatedMs <= lodashMs.selfMs + lodashMs.gcMs + 1, `${found.estimatedMs} ms of lodash's ${lodashMs.selfMs} ms`);
    assert.match(found.fix, /require 'lodash\/debounce' instead of the whole of lodash/);
    assert.match(found.source, /^https:\/\/github\.com\/lodash\/lodash/);
    assert.match(stdout, /lodash loads all of itself for debounce \(server\.js:4\): require 'lodash\/debounce'/);
  } finally {
    rm(dir);
  }
});

test('no finding when the app uses many methods of it', async () => {
  const dir = makeApp("_.get({}, 'a'); _.map([], String); _.pick({}, 'a'); _.omit({}, 'b');");
  try {
    const { code, stderr } = await runCli(['profile', '--', process.execPath, 'server.js'], { cwd: dir });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    assert.ok(!report.advice.some((a) => a.kind === 'heavy-entry-point'), JSON.stringify(report.advice));
  } finally {
    rm(dir);
  }
});

test('every row of the table names where its lighter entry point is documented, and reads parts from source', () => {
  const samples = { googleapis: "const drive = google.drive({ version: 'v3' }); google.auth.fromJSON(x);", 'aws-sdk': 'const s3 = new AWS.S3({});', lodash: '_.debounce(f)' };
  for (const row of ENTRY_POINTS) {
    assert.match(row.source, /^https:\/\//, row.package);
    const parts = [...samples[row.package].matchAll(row.parts)].map((m) => m[1]).filter((p) => !row.ignore.includes(p));
    assert.strictEqual(parts.length, 1, `${row.package}: ${parts}`);
    assert.ok(row.fix(parts).length > 10);
  }
});
