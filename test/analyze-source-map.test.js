'use strict';
// Compiled TypeScript with a source map: a finding names the line the user wrote (src/*.ts) beside
// the compiled one (dist/*.js).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const ts = require('typescript');
const { runCli, rm } = require('./helpers/app.js');

const SOURCE = `import { execFileSync } from 'child_process';
import * as http from 'http';

interface Config { port: number }

function warmUp(): void {
  execFileSync(process.execPath, ['-e', 'setTimeout(() => {}, 80)']);
}

warmUp();
const config: Config = { port: 0 };
http.createServer().listen(config.port);
`;

test('sync work in compiled TypeScript is located in the .ts source through its source map', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-map-'));
  try {
    fs.mkdirSync(path.join(dir, 'src'));
    fs.mkdirSync(path.join(dir, 'dist'));
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "ts-app", "private": true }');
    fs.writeFileSync(path.join(dir, 'src', 'server.ts'), SOURCE);
    const out = ts.transpileModule(SOURCE, { fileName: 'server.ts', compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, sourceMap: true } });
    const map = JSON.parse(out.sourceMapText);
    map.sources = ['../src/server.ts'];
    fs.writeFileSync(path.join(dir, 'dist', 'server.js'), out.outputText);
    fs.writeFileSync(path.join(dir, 'dist', 'server.js.map'), JSON.stringify(map));

    const r = await runCli(['profile', '--json', '--out', 'out', '--', 'node', 'dist/server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    const call = report.advice.find((a) => a.kind === 'sync-work' && a.subject === 'child_process.execFileSync');
    assert.ok(call, JSON.stringify(report.advice));
    const compiledLine = out.outputText.split('\n').findIndex((l) => l.includes('execFileSync)(process.execPath')) + 1;
    assert.deepStrictEqual([call.file, call.line], ['dist/server.js', compiledLine]);
    assert.deepStrictEqual([call.original.file, call.original.line, call.original.column], ['src/server.ts', 7, 3]);
  } finally {
    rm(dir);
  }
});
