'use strict';
// Statements found by parsing a source: a comment or a string that mentions require('x') is not
// a require; a profile frame's position names its own function; calls are found in that
// function's body only.
const test = require('node:test');
const assert = require('node:assert');
const { sourceSites } = require('../lib/analyze/source-sites.js');

test('imports: every require/import statement, never a comment or a string, with bindings used by extends or instanceof', () => {
  const src = [
    "'use strict';", // 1
    "// const a = require('./a'); mentioned in a comment", // 2
    "const note = \"require('./a')\";", // 3
    "const a = require('./a');", // 4
    "import B, { C as D } from './b';", // 5
    "const { E, F: G } = require(\"./e\");", // 6
    'class X extends B {}', // 7
    'if (y instanceof G) {}', // 8
    "const later = async () => (await import('./late')).default;", // 9
    "class Z extends require('./z').Base {}", // 10
    "export { h } from './h';", // 11
    'const dyn = require(name);', // 12
  ].join('\n');
  const sites = sourceSites(src).imports();
  const view = sites.map((s) => [s.request, s.form, s.dynamic, s.line, s.column, s.typeUse]);
  assert.deepStrictEqual(view, [
    ['./a', 'require', false, 4, 11, false],
    ['./b', 'import', false, 5, 1, true],
    ['./e', 'require', false, 6, 21, true],
    ['./late', 'import', true, 9, 34, false],
    ['./z', 'require', false, 10, 17, true],
    ['./h', 'import', false, 11, 1, false],
  ]);
  assert.deepStrictEqual(sites.find((s) => s.request === './e').bindings, ['E', 'G']);
});

test('functionAt: the function V8 places at its parameter list; callsIn: calls in its own body only', () => {
  const src = [
    "const fs = require('fs');", // 1
    'function load(file) {', // 2
    "  const list = ['a'].map((f) => fs.readFileSync(f));", // 3
    "  return fs.readFileSync(file, 'utf8');", // 4
    '}', // 5
    'const obj = { read(p) { return readFileSync(p); } };', // 6
    "fs.readFileSync('top');", // 7
  ].join('\n');
  const sites = sourceSites(src);
  // V8's positions (0-based): `(` of each function's parameters.
  const load = sites.functionAt(1, 13);
  assert.deepStrictEqual(sites.callsIn(load, ['readFileSync']).map((c) => [c.line, c.column]), [[4, 10]]);
  const arrow = sites.functionAt(2, 27);
  assert.deepStrictEqual(sites.callsIn(arrow, ['readFileSync']).map((c) => c.line), [3]);
  const method = sites.functionAt(5, 18);
  assert.deepStrictEqual(sites.callsIn(method, ['readFileSync']).map((c) => [c.line, c.column]), [[6, 32]]);
  assert.deepStrictEqual(sites.callsIn(null, ['readFileSync']).map((c) => c.line), [7], 'the top level, functions left out');
  assert.deepStrictEqual(sites.topLevelCallOnLine(7), { callee: 'fs.readFileSync', line: 7, column: 1 });
  assert.strictEqual(sites.topLevelCallOnLine(5), null);
  assert.strictEqual(sourceSites('this is not javascript ('), null);
});

test('imports: a binding read by top-level code (app.use(router), a re-export) is used at load', () => {
  const src = [
    "const express = require('express');",
    "const api = require('./routes/api');",
    "const heavy = require('./heavy');",
    "const { a } = require('./a');",
    'const app = express();',
    "app.use('/api', api);",
    "app.get('/', (q, s) => s.send(heavy() + a.b));",
    'module.exports = { x: 1, api };',
  ].join('\n');
  assert.deepStrictEqual(sourceSites(src).imports().map((s) => [s.request, s.topLevelUse]),
    [['express', true], ['./routes/api', true], ['./heavy', false], ['./a', false]]);
});
