'use strict';
// Old spellings are translated once, right after parsing (lib/deprecated-flags.js): a command's run
// gets the new flags, and for a dropped flag the internal value that keeps its effect, never an old name.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { run } = require('../lib/cli.js');
const { DEPRECATED, spelled } = require('../lib/deprecated-flags.js');

const APP = ['--', 'node', 'app.js'];

// Per command line: what the command's run gets (a subset of its argv).
const CASES = [
  { words: ['diff', '--runs', '--top', '3', 'a', 'b'], gets: { setsOfRuns: true, moverCount: 3 } },
  { words: ['diff', '--run-sets', 'a', 'b'], gets: { setsOfRuns: true } },
  { words: ['bench', '--docker', '--runtime', 'runc', '--warmup', '0', '--ready-line', 'up', '--html', 'c.html', '--csv', 's.csv', ...APP],
    gets: (dir) => ({ containers: 'runc', warmupRounds: 0, alsoWritten: [{ file: path.join(dir, 's.csv'), format: 'csv' }, { file: path.join(dir, 'c.html'), format: 'html' }] }),
    also: (argv) => assert.strictEqual(String(argv.readyPattern), '/up/i') },
  { words: ['bench', '--docker', ...APP], gets: { containers: 'runc,runsc' } },
  { words: ['bench', '--scenario', 'cpu,require', '--fixture', 'w'], gets: { scenarios: ['cpu', 'require'], fixtureDir: 'w' } },
  { words: ['profile', '--verify-advice', '--verify-runs', '3', '--request', 'GET /', '--rate', '4', ...APP], gets: { verifyStarts: 3, requestRate: 4 } },
  { words: ['profile', '--keep-running', ...APP], gets: { keepAppRunning: true } },
  { words: ['check', '-n', '2', '--max-runs', '4', '--max-modules', '5', '--max-advice-ms', '0.05s', '--min-effect', '1ms', '--format', 'json', ...APP],
    gets: { runs: '2..4', n: '2..4', budget: ['modules=5', 'advice=50ms'], minEffectMs: 1, json: true } },
  { words: ['check', '--budget', '1s', '--format', 'markdown', ...APP], gets: { budget: ['1s'], json: false, verdictMarkdown: true } },
  { words: ['pack', '--no-check', '--snapshot', 's.blob', '--settle', '1s', '--code-cache', '--no-code-cache-run', ...APP],
    gets: { verify: false, 'snapshot-blob': 's.blob', snapshotBlob: 's.blob', after: '1s', 'code-cache': 'compile', codeCache: 'compile' } },
  { words: ['fixture', '--esm', '-n', '3', '--max-props', '2', '--seed', '9', '--depth', '2'],
    gets: { 'es-modules': true, esModules: true, modules: '3', generatorOptions: { maxProps: 2, seed: 9, depth: 2 } } },
  { words: ['view', '--report', '--serve', '--once', '--port', '0'], gets: { findReport: true, useServer: true, stopWhenLoaded: true, serverPort: '0' } },
];

/** The argv a command's run gets for these words (the run itself replaced), in `dir`. */
async function argvOfRun(words, dir) {
  const cmd = require(`../lib/commands/${words[0]}.js`);
  const kept = cmd.run;
  let got = null;
  cmd.run = async (argv) => {
    got = { ...argv };
    return 0;
  };
  const written = [];
  const sink = { write: (text) => written.push(text) };
  try {
    const code = await run(words, { stdout: sink, stderr: sink, cwd: dir });
    assert.strictEqual(code, 0, written.join(''));
  } finally {
    cmd.run = kept;
  }
  assert.ok(got, `${words.join(' ')}: the run was called`);
  return got;
}

test('a command\'s run gets only the new spellings: each old one is translated right after parsing', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-old-spellings-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  for (const c of CASES) {
    const command = c.words[0];
    const argv = await argvOfRun(c.words, dir);
    const gets = typeof c.gets === 'function' ? c.gets(dir) : c.gets;
    assert.deepStrictEqual(Object.fromEntries(Object.keys(gets).map((k) => [k, argv[k]])), gets, c.words.join(' '));
    if (c.also) c.also(argv);
    for (const r of DEPRECATED.filter((e) => e.commands.includes(command))) {
      assert.ok(!(r.old in argv) && !(camel(r.old) in argv), `${c.words.join(' ')}: ${spelled(r.old)} is still in the argv the run gets`);
    }
  }
  // Every old spelling yargs parses is in a case (start parses its own).
  const given = new Set(CASES.flatMap((c) => c.words.map((w) => `${c.words[0]} ${w.replace(/^--no-/, '--')}`)));
  const missing = DEPRECATED.flatMap((r) => r.commands.filter((cmd) => cmd !== 'start').map((cmd) => `${cmd} ${spelled(r.old)}`)).filter((name) => !given.has(name));
  assert.deepStrictEqual(missing, []);
});
