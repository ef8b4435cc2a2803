'use strict';
// Installed as users install it: `npm pack` of this checkout, installed into a fresh app with
// npm, then `npx coldstart` there. Proves the package's `files` list ships what the commands need
// (the CLI, the in-app agent, the types, speedscope's assets through the dependency).
const test = require('node:test');
const { fastSkips } = require('./helpers/suite.js');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { REPO, rm } = require('./helpers/app.js');

const npm = (args, cwd) => spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 300_000 });

test('npm pack, npm install into an app, npx coldstart profile and view work there', { timeout: 360_000, ...fastSkips('npm pack and an install') }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-installed-'));
  try {
    const packed = npm(['pack', '--json', '--pack-destination', dir], REPO);
    assert.strictEqual(packed.status, 0, packed.stderr);
    const [info] = JSON.parse(packed.stdout);
    const shipped = info.files.map((f) => f.path);
    for (const file of ['bin/coldstart.js', 'lib/in-app/agent.cjs', 'lib/in-app/ready-moment.cjs', 'lib/start/launcher.js', 'index.d.ts', 'package.json', 'README.md']) {
      assert.ok(shipped.includes(file), `${file} is in the package`);
    }
    assert.ok(!shipped.some((f) => /^(test|bench|fixtures|node_modules)\//.test(f)), 'no tests, benchmarks or fixtures in the package');

    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'installed-app', private: true, scripts: { start: 'node server.js' } }));
    fs.writeFileSync(path.join(app, 'server.js'), "require('http').createServer((q, s) => s.end('ok')).listen(0, () => console.log('up'));\n");
    // The dependencies come from npm's cache where `npm ci` put them; the registry otherwise.
    const installed = npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', path.join(dir, info.filename)], app);
    assert.strictEqual(installed.status, 0, installed.stderr);

    const profiled = spawnSync('npx', ['coldstart', 'profile', '--out', 'report', '--', 'node', 'server.js'], { cwd: app, encoding: 'utf8', timeout: 120_000 });
    assert.strictEqual(profiled.status, 0, profiled.stdout + profiled.stderr);
    // What the summary says to run next works here: coldstart is not on PATH, npx finds it.
    assert.match(profiled.stdout, /Open the profile: npx coldstart view report\/startup\.cpuprofile/, profiled.stdout);
    const report = JSON.parse(fs.readFileSync(path.join(app, 'report', 'report.json'), 'utf8'));
    assert.deepStrictEqual(report.modules.map((m) => m.file), ['server.js']);
    assert.ok(fs.existsSync(path.join(app, 'report', 'report.html')));

    const viewed = spawnSync('npx', ['coldstart', 'view', '--no-open', 'report/startup.cpuprofile'], { cwd: app, encoding: 'utf8', timeout: 60_000 });
    assert.strictEqual(viewed.status, 0, viewed.stdout + viewed.stderr);
    const url = /file:\/\/\S+/.exec(viewed.stdout);
    assert.ok(url, viewed.stdout);
    const page = decodeURIComponent(new URL(url[0]).pathname);
    assert.ok(page.startsWith(fs.realpathSync(app)) || page.startsWith(app), `speedscope from the app's own node_modules: ${page}`);
    assert.ok(fs.existsSync(page), page);
  } finally {
    rm(dir);
  }
});

// The summary's hint pasted as printed, into a shell with the user's PATH, where they are: in
// the checkout (npx finds it), in an app elsewhere with coldstart not on PATH (node and the
// path), and with coldstart linked onto PATH as a global install links it.
test('the summary\'s "Open the report" line, pasted as printed, runs where the user is', { timeout: 120_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-hint-'));
  try {
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'server.js'), "require('http').createServer((q, s) => s.end('ok')).listen(0, () => console.log('up'));\n");
    const linked = path.join(dir, 'bin');
    fs.mkdirSync(linked);
    fs.symlinkSync(path.join(REPO, 'bin', 'coldstart.js'), path.join(linked, 'coldstart'));
    // PATH as the user has it: node and the system's tools, no coldstart (unless linked).
    const plainPath = [path.dirname(process.execPath), ...(process.env.PATH || '').split(path.delimiter)]
      .filter((d) => d && !fs.existsSync(path.join(d, 'coldstart'))).join(path.delimiter);
    const places = [
      { where: 'the checkout', cwd: REPO, PATH: plainPath, expect: /^npx coldstart view / },
      { where: 'an app, coldstart not on PATH', cwd: app, PATH: plainPath, expect: /^node \S+bin\/coldstart\.js view / },
      { where: 'an app, coldstart linked onto PATH', cwd: app, PATH: `${linked}${path.delimiter}${plainPath}`, expect: /^coldstart view / },
    ];
    for (const [i, place] of places.entries()) {
      const out = path.join(dir, `report-${i}`);
      const env = { ...process.env, PATH: place.PATH, BROWSER: 'true', npm_config_offline: 'true' };
      const profiled = spawnSync(process.execPath, [path.join(REPO, 'bin', 'coldstart.js'), 'profile', '--out', out, '--', 'node', path.join(app, 'server.js')], { cwd: place.cwd, env, encoding: 'utf8', timeout: 60_000 });
      assert.strictEqual(profiled.status, 0, profiled.stdout + profiled.stderr);
      const hint = /Open the report: +(.+?) {3}\(a file any browser opens\)/.exec(profiled.stdout);
      assert.ok(hint, profiled.stdout);
      assert.match(hint[1], place.expect, place.where);
      const pasted = spawnSync('sh', ['-c', hint[1]], { cwd: place.cwd, env, encoding: 'utf8', timeout: 60_000 });
      assert.strictEqual(pasted.status, 0, `${place.where}: \`${hint[1]}\` exited ${pasted.status}: ${pasted.stdout}${pasted.stderr}`);
    }
  } finally {
    rm(dir);
  }
});

test('the command the summary suggests: npx coldstart for a local install in or above the working directory', () => {
  const { coldstartCommand } = require('../lib/report/terminal.js');
  assert.strictEqual(coldstartCommand('/srv/app/node_modules/coldstart', '/srv/app', ''), 'npx coldstart');
  assert.strictEqual(coldstartCommand('/srv/app/node_modules/coldstart', '/srv/app/services/api', ''), 'npx coldstart');
  assert.strictEqual(coldstartCommand('/home/u/.npm/_npx/1a2b/node_modules/coldstart', '/srv/app', ''), 'npx coldstart');
  assert.strictEqual(coldstartCommand('/srv/app/node_modules/coldstart', '/srv/other', ''), 'node /srv/app/node_modules/coldstart/bin/coldstart.js');
});
