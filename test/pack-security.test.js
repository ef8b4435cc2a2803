'use strict';
// What pack must never put in an archive: anything whose real place is outside the app root,
// whether the app names it through a symlinked file or through a symlinked directory.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { runCli, rm, runNodeUntil } = require('./helpers/app.js');

const SECRET = 'hunter2-do-not-pack';
const STORE = 'node_modules/.pnpm/linked@1.0.0/node_modules/linked';

// An app that reads two secrets at startup through links under its root, and requires a
// package through a pnpm link that stays inside the root.
function appWithLinks() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-links-')));
  const root = path.join(base, 'app');
  const secrets = path.join(base, 'outside', 'secrets');
  fs.mkdirSync(secrets, { recursive: true });
  fs.writeFileSync(path.join(secrets, 'db.json'), JSON.stringify({ password: SECRET }));
  fs.writeFileSync(path.join(secrets, 'token.txt'), SECRET);
  fs.mkdirSync(path.join(root, 'config'), { recursive: true });
  const store = path.join(root, 'node_modules', '.pnpm', 'linked@1.0.0', 'node_modules', 'linked');
  fs.mkdirSync(store, { recursive: true });
  fs.symlinkSync('../../outside/secrets/db.json', path.join(root, 'config', 'db.json'));
  fs.symlinkSync('../outside/secrets', path.join(root, 'vault'));
  fs.writeFileSync(path.join(store, 'index.js'), "module.exports = 'linked';\n");
  fs.writeFileSync(path.join(store, 'package.json'), '{"name":"linked","main":"index.js"}');
  fs.symlinkSync('.pnpm/linked@1.0.0/node_modules/linked', path.join(root, 'node_modules', 'linked'));
  fs.writeFileSync(path.join(root, 'package.json'), '{"name":"links-app"}');
  fs.writeFileSync(path.join(root, 'server.js'), `const fs = require('fs');
fs.readFileSync('config/db.json');
fs.readFileSync('vault/token.txt');
console.log('dependency ' + require('linked'));
require('http').createServer().listen(0, () => console.log('links-app listening'));
`);
  return { base, root };
}

function tarNames(tar) {
  return execFileSync('tar', ['-tf', tar], { encoding: 'utf8' }).trim().split('\n');
}

function tarText(tar) {
  return fs.readFileSync(tar).toString('latin1');
}

test('pack: a symlink out of the root is never packed', async () => {
  const { base, root } = appWithLinks();
  try {
    const tar = path.join(base, 'startup.tar');
    const r = await runCli(['pack', '--json', '--out', tar, '--', 'node', 'server.js'], { cwd: root });
    assert.strictEqual(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.ok(summary.outsideRoot.some((f) => f.endsWith(path.join('config', 'db.json'))), summary.outsideRoot.join(', '));
    assert.ok(summary.outsideRoot.some((f) => f.endsWith(path.join('vault', 'token.txt'))), summary.outsideRoot.join(', '));
    assert.deepStrictEqual(summary.warnings.map((w) => w.code), ['PACK_LINK_OUTSIDE_ROOT']);
    const warningLines = r.stderr.split('\n').filter((l) => l.includes('warning'));
    assert.strictEqual(warningLines.length, 1, r.stderr);
    assert.match(warningLines[0], /^coldstart: warning: not packed: config\/db\.json, vault\/token\.txt lead outside the root through a symlink$/);
    const names = tarNames(tar);
    assert.ok(!names.some((n) => n.startsWith('config/db.json') || n.startsWith('vault')), names.join(', '));
    assert.ok(!tarText(tar).includes(SECRET), 'the secret is nowhere in the archive');
    // A link that stays inside (pnpm) is packed as a link with its target.
    assert.ok(names.includes('node_modules/linked'), names.join(', '));
    assert.ok(names.includes(`${STORE}/index.js`), names.join(', '));

    // The summary for people lists them, and --strict makes the warning an error.
    const human = await runCli(['pack', '--out', tar, '--', 'node', 'server.js'], { cwd: root });
    assert.match(human.stdout, /not packed, outside the root/);
    assert.match(human.stdout, /config\/db\.json/);
    const strict = await runCli(['pack', '--strict', '--out', path.join(base, 'strict.tar'), '--', 'node', 'server.js'], { cwd: root });
    assert.strictEqual(strict.code, 1);
    assert.match(strict.stderr, /^coldstart: --strict: .*PACK_LINK_OUTSIDE_ROOT/m);
  } finally { rm(base); }
});

test('pack --manifest: a symlink out of the root is never packed', async () => {
  const { base, root } = appWithLinks();
  try {
    fs.writeFileSync(path.join(root, 'list.txt'), 'server.js\nconfig/db.json\nvault/token.txt\nnode_modules/linked/index.js\n');
    const tar = path.join(base, 'manifest.tar');
    const r = await runCli(['pack', '--json', '--manifest', 'list.txt', '--out', tar], { cwd: root });
    assert.strictEqual(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.deepStrictEqual(summary.outsideRoot.sort(), ['config/db.json', 'vault/token.txt']);
    assert.strictEqual(summary.warnings.length, 1);
    assert.strictEqual(r.stderr.split('\n').filter((l) => l.includes('warning')).length, 1, r.stderr);
    assert.ok(!tarText(tar).includes(SECRET), 'the secret is nowhere in the archive');
    assert.deepStrictEqual(tarNames(tar).filter((n) => !n.endsWith('/')).sort(),
      [`${STORE}/index.js`, 'node_modules/linked', 'server.js']);
  } finally { rm(base); }
});

test('pack: a directory on the way that leads out of the root and back in is refused', async () => {
  const { base, root } = appWithLinks();
  try {
    // out -> ../outside, and ../outside/back -> the app's own package store: real place inside,
    // but the way there leaves the root.
    fs.symlinkSync(path.join(root, 'node_modules', '.pnpm'), path.join(base, 'outside', 'back'));
    fs.symlinkSync('../outside', path.join(root, 'out'));
    fs.writeFileSync(path.join(root, 'list.txt'), 'server.js\nout/back/linked@1.0.0/node_modules/linked/index.js\n');
    const tar = path.join(base, 'way.tar');
    const r = await runCli(['pack', '--json', '--manifest', 'list.txt', '--out', tar], { cwd: root });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.deepStrictEqual(JSON.parse(r.stdout).outsideRoot, ['out/back/linked@1.0.0/node_modules/linked/index.js']);
    assert.deepStrictEqual(tarNames(tar), ['server.js']);
  } finally { rm(base); }
});

test('pack: the archive of an app with links inside the root starts the app alone', async () => {
  const { base, root } = appWithLinks();
  try {
    fs.writeFileSync(path.join(root, 'server.js'), "console.log('dependency ' + require('linked'));\nrequire('http').createServer().listen(0, () => console.log('links-app listening'));\n");
    const tar = path.join(base, 'inside.tar');
    const r = await runCli(['pack', '-q', '--out', tar, '--', 'node', 'server.js'], { cwd: root });
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(r.stderr, '');
    const empty = path.join(base, 'empty');
    fs.mkdirSync(empty);
    execFileSync('tar', ['-xf', tar, '-C', empty]);
    const out = await runNodeUntil(empty, ['server.js'], /links-app listening/);
    assert.match(out, /dependency linked/);
  } finally { rm(base); }
});

test('pack: a module required through a link that leads out of the root is left out, and the archive\'s check runs with the link as the disk has it', async () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-rel-link-')));
  try {
    const root = path.join(base, 'app');
    fs.mkdirSync(path.join(base, 'outside'));
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(base, 'outside', 'mod.js'), "module.exports = 'from outside';\n");
    fs.symlinkSync('../outside/mod.js', path.join(root, 'rel-link.js'));
    fs.writeFileSync(path.join(root, 'package.json'), '{"name":"rel-link-app"}');
    fs.writeFileSync(path.join(root, 'server.js'), "console.log(require('./rel-link'));\nrequire('http').createServer().listen(0);\n");
    const tar = path.join(base, 'startup.tar');
    const r = await runCli(['pack', '--json', '--out', tar, '--', 'node', 'server.js'], { cwd: root });
    assert.strictEqual(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.ok(summary.outsideRoot.includes(path.join(root, 'rel-link.js')), summary.outsideRoot.join(', '));
    assert.match(r.stderr, /not packed: rel-link\.js leads outside the root through a symlink/);
    assert.ok(!tarNames(tar).some((n) => n.startsWith('rel-link')), tarNames(tar).join(', '));
    assert.ok(summary.check && summary.check.readyAt > 0, JSON.stringify(summary.check));
  } finally { rm(base); }
});
