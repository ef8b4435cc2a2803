'use strict';
// A real Node-API addon (fixtures/native-addon, built with node-gyp) through profile,
// pack and start. Addons are dlopen'ed from disk, never from memory: these tests guard
// that they are recorded, packed, and left to Node's loader in both start modes.
const test = require('./helpers/suite.js').testLeftOutOfFast('a native addon compiled');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { runCli, spawnCli, runNodeUntil, waitFor, rm } = require('./helpers/app.js');
const { missingToolchain, buildTinyNative, nativeAddonApp } = require('./helpers/native-addon.js');

const ADDON = 'node_modules/tiny-native/build/Release/tiny_native.node';
const LISTENING = /native-addon listening on (\d+)/;

// No compiler here: skip loudly on a workstation, fail in CI (where the toolchain is expected).
const missing = missingToolchain();
const skip = missing && !process.env.CI ? `SKIPPED: ${missing}` : false;
if (skip) process.stderr.write(`${skip}\n`);

let addon;
test.before(async () => {
  if (skip) return;
  if (missing) throw new Error(`${missing} (CI must install it)`);
  addon = await buildTinyNative();
});
test.after(() => { if (addon) addon.remove(); });

async function packed() {
  const dir = nativeAddonApp(addon.packageDir);
  const tar = path.join(dir, '.startup.tar');
  const r = await runCli(['pack', '-q', '--out', tar, '--', 'node', 'server.js'], { cwd: dir });
  assert.strictEqual(r.code, 0, r.stderr);
  return { dir, tar };
}

/** Runs `coldstart start ...args` in cwd until it listens, asks it over HTTP, then kills it. */
async function startAndAsk(cwd, args) {
  const app = spawnCli(['start', ...args], { cwd });
  let exited = false;
  app.child.on('exit', () => { exited = true; });
  try {
    const text = () => app.output().stdout + app.output().stderr;
    await waitFor(() => exited || LISTENING.test(text()), 15000, 'the app to listen');
    const match = LISTENING.exec(text());
    assert.ok(match, `exited before listening:\n${text()}`);
    const res = await fetch(`http://127.0.0.1:${match[1]}/`);
    return { output: text(), body: await res.text() };
  } finally {
    app.child.kill('SIGKILL');
    await app.done;
  }
}

test('profile records the .node file as an addon of tiny-native and lists it as a startup file', { skip }, async () => {
  const dir = nativeAddonApp(addon.packageDir);
  try {
    const r = await runCli(['profile', '--json', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    const mod = report.modules.find((m) => m.file === ADDON);
    assert.ok(mod, `no ${ADDON} in ${report.modules.map((m) => m.file).join(', ')}`);
    assert.strictEqual(mod.kind, 'addon');
    assert.strictEqual(mod.package, 'tiny-native');
    assert.strictEqual(mod.parent, 'node_modules/tiny-native/index.js');

    const list = fs.readFileSync(path.join(dir, report.artifacts.files), 'utf8').trim().split('\n');
    assert.ok(list.includes(ADDON), list.join('\n'));
    assert.ok(list.includes('node_modules/tiny-native/package.json'), list.join('\n'));
    // node-gyp leaves a second copy and object files under build/Release/obj.target: not loaded.
    assert.ok(!list.some((f) => f.includes('obj.target')), list.join('\n'));
  } finally { rm(dir); }
});

test('pack: the tar holds the addon and, extracted alone into an empty directory, starts the app', { skip }, async () => {
  const dir = nativeAddonApp(addon.packageDir);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-unpacked-native-'));
  try {
    const tar = path.join(dir, 'startup.tar');
    const r = await runCli(['pack', '--json', '--out', tar, '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const listing = execFileSync('tar', ['-tf', tar], { encoding: 'utf8' }).split('\n');
    assert.ok(listing.includes(ADDON), listing.join('\n'));
    assert.ok(!listing.some((f) => f.includes('obj.target') || f.endsWith('.o')), listing.join('\n'));

    execFileSync('tar', ['-xf', tar, '-C', empty]);
    assert.ok(fs.readFileSync(path.join(empty, ADDON)).equals(fs.readFileSync(path.join(dir, ADDON))), 'addon bytes survive the tar');
    await runNodeUntil(empty, ['server.js'], LISTENING);
  } finally { rm(dir); rm(empty); }
});

test('start --mode memory: the addon is dlopen\'ed from disk while the JavaScript comes from the archive', { skip }, async () => {
  const { dir, tar } = await packed();
  try {
    const { output, body } = await startAndAsk(dir, ['--archive', tar, '--', 'node', 'server.js']);
    assert.match(output, /coldstart: serving \d+ files, .* from memory/);
    assert.doesNotMatch(output, /warning/);
    assert.strictEqual(body, 'native hello\n');
  } finally { rm(dir); }
});

test('start --mode extract: the archive alone, extracted into an empty directory, runs the addon', { skip }, async () => {
  const { dir, tar } = await packed();
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-extract-native-'));
  try {
    const { output, body } = await startAndAsk(empty, ['--archive', tar, '--mode', 'extract', '--', 'node', 'server.js']);
    assert.doesNotMatch(output, /warning/);
    assert.strictEqual(body, 'native hello\n');
    assert.ok(fs.existsSync(path.join(empty, ADDON)), 'the addon was written to disk');
  } finally { rm(dir); rm(empty); }
});
