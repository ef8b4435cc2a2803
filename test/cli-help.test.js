'use strict';
// Every command's --help keeps its examples whole: each line under "Examples:" is a command or
// the comment that says what the next one does, never the middle of a wrapped command.
const test = require('node:test');
const assert = require('node:assert');
const { runCli } = require('./helpers/app.js');

const COMMANDS = ['profile', 'pack', 'start', 'bundle', 'bench', 'fixture', 'view', 'diff', 'check', 'dockerfile'];

test('--help of every command: examples are whole lines, each a command or a # comment', async () => {
  for (const command of COMMANDS) {
    const r = await runCli([command, '--help']);
    assert.strictEqual(r.code, 0, `${command}: ${r.stderr}`);
    const at = r.stdout.indexOf('\nExamples:\n');
    if (at === -1) continue; // start has its own short usage text
    // The examples end where the list of deprecated spellings begins (lib/deprecated-flags.js).
    const lines = r.stdout.slice(at + '\nExamples:\n'.length).split('\nDeprecated, removed in the next release:\n')[0].split('\n').filter((l) => l.trim());
    assert.ok(lines.length > 0, command);
    for (const line of lines) assert.match(line, /^ {2}(coldstart \S|# \S)/, `${command} --help:\n${r.stdout}`);
  }
});
