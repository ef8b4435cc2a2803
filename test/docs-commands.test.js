'use strict';
// The pages in docs/ run as written: every line of their `sh` blocks, in order, in a copy of the
// fixture the page names (<!-- fixture: NAME -->), as a user would type it there. A page with nothing
// to run (<!-- fixture: none -->: the API, the test suite) has no `sh` block. docs/benchmarks/ holds
// measurement notes, not examples: only the pages directly in docs/ are read. A page
// shows only commands that end by themselves there: coldstart's (`npx coldstart ...`, run by the
// CLI of this checkout) and npm scripts (`npm run ...`, with this checkout as the project's
// coldstart).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { registryFixture } = require('./helpers/registry-fixture.js');
const { splitShellWords } = require('../lib/shell-words.js');
const { fastSkips } = require('./helpers/suite.js');

const REPO = path.join(__dirname, '..');
const DOCS = path.join(REPO, 'docs');
// Fixtures whose packages come from the registry by their own lockfile.
const FROM_REGISTRY = new Set(['lambda-app']);

/** A page's fixture and the commands of its sh blocks. */
function pageCommands(file) {
  const text = fs.readFileSync(file, 'utf8');
  const fixture = (/<!-- fixture: ([\w-]+) -->/.exec(text) || [])[1];
  // A fence opened with `sh` and anything after it on the line (`sh title`) would not be matched below.
  const looseSh = /```sh[^\n]/.test(text);
  const commands = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n')).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  return { fixture, commands, looseSh };
}

const pages = fs.readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort();

test('every page names its fixture and shows commands that can run', () => {
  assert.ok(pages.length >= 3, pages.join(' '));
  for (const page of pages) {
    const { fixture, commands, looseSh } = pageCommands(path.join(DOCS, page));
    assert.ok(!looseSh, `${page}: a sh fence with more on its line`);
    if (fixture === 'none') {
      assert.strictEqual(commands.length, 0, `${page}: <!-- fixture: none --> and sh commands`);
      continue;
    }
    assert.ok(fixture && fs.existsSync(path.join(REPO, 'fixtures', fixture)), `${page}: <!-- fixture: NAME --> of an existing fixture`);
    assert.ok(commands.length, `${page}: commands`);
    for (const line of commands) assert.match(line, /^(npx coldstart|npm run) /, `${page}: ${line}`);
  }
});

for (const page of pages.filter((p) => pageCommands(path.join(DOCS, p)).fixture !== 'none')) {
  test(`docs/${page}: every command runs as written`, { ...fastSkips('many app starts'), timeout: 20 * 60 * 1000 }, async (t) => {
    const { fixture, commands } = pageCommands(path.join(DOCS, page));
    const dir = FROM_REGISTRY.has(fixture) ? registryFixture(t, fixture) : copyFixture(fixture);
    if (!dir) return;
    // A free port for servers with a fixed default (the Functions Framework's 8080), as a platform sets PORT.
    const env = { PORT: '0' };
    try {
      // This checkout as the project's coldstart, for npm scripts and `--require coldstart/start`.
      fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
      if (!fs.existsSync(path.join(dir, 'node_modules', 'coldstart'))) fs.symlinkSync(REPO, path.join(dir, 'node_modules', 'coldstart'));
      fs.symlinkSync(path.join(REPO, 'bin', 'coldstart.js'), path.join(dir, 'node_modules', '.bin', 'coldstart'));
      for (const line of commands) {
        if (line.startsWith('npm run ')) {
          const script = splitShellWords(line)[2];
          const shown = new RegExp(`"${script}": "([^"]+)"`).exec(fs.readFileSync(path.join(DOCS, page), 'utf8'));
          assert.ok(shown, `${page}: ${line}: the page shows the script`);
          const body = shown[1];
          const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
          manifest.scripts = { ...manifest.scripts, [script]: body }; // the page's script, as the page shows it
          fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
          const r = spawnSync('npm', splitShellWords(line).slice(1), { cwd: dir, encoding: 'utf8', timeout: 300_000, env: { ...process.env, CI: '', ...env } });
          assert.strictEqual(r.status, 0, `${page}: ${line}\n${r.stdout}\n${r.stderr}`);
          continue;
        }
        const r = await runCli(splitShellWords(line).slice(2), { cwd: dir, env });
        assert.strictEqual(r.code, 0, `${page}: ${line}\n${r.stdout}\n${r.stderr}`);
      }
    } finally {
      rm(dir);
    }
  });
}
