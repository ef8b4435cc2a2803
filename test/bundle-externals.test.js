'use strict';
// The decisions behind `coldstart bundle`, from plain data: which packages stay external and
// why, which side (preload or entry) loaded what, the start command, the node_modules layout.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { decideExternals, completeExternals, hookTarget } = require('../lib/bundle/externals.js');
const { startupPackages } = require('../lib/bundle/startup-packages.js');
const { parseAppCommand, bundleCommand } = require('../lib/bundle/app-command.js');
const { planRuntimeModules } = require('../lib/bundle/runtime-modules.js');
const { loadingWarnings } = require('../lib/bundle/loading-warnings.js');

const ROOT = '/app';
const NM = `${ROOT}/node_modules`;
const BUILTINS = new Set(['http', 'https', 'fs', 'path']);

function mod(file, parent, kind = 'cjs') {
  return { file, parent, kind };
}

/** A capture of `node --require ./tracing.js server.js` with express hooked by the preload. */
function otelCapture() {
  return {
    root: ROOT,
    mainFile: `${ROOT}/server.js`,
    modules: [
      mod(`${ROOT}/tracing.js`, null),
      mod(`${NM}/@opentelemetry/instrumentation/build/src/index.js`, `${ROOT}/tracing.js`),
      mod(`${NM}/require-in-the-middle/index.js`, `${NM}/@opentelemetry/instrumentation/build/src/index.js`),
      mod(`${NM}/@opentelemetry/instrumentation-express/build/src/index.js`, `${ROOT}/tracing.js`),
      mod(`${ROOT}/server.js`, null),
      mod(`${NM}/express/index.js`, `${ROOT}/server.js`),
      mod(`${NM}/body-parser/index.js`, `${NM}/express/index.js`),
      mod(`${NM}/bcrypt/lib/binding/bcrypt_lib.node`, `${NM}/bcrypt/bcrypt.js`, 'addon'),
      mod(`${NM}/bcrypt/bcrypt.js`, `${ROOT}/server.js`),
      mod(`${NM}/protos-pkg/index.js`, `${ROOT}/server.js`),
      mod(`${ROOT}/lib/routes.js`, `${ROOT}/server.js`),
    ],
    files: [
      { path: 'config.json', bytes: 10, via: 'fs' },
      { path: 'node_modules/protos-pkg/protos/a.proto', bytes: 99, via: 'fs' },
      { path: 'node_modules/express/package.json', bytes: 99, via: 'fs' }, // the instrumentation's version check
    ],
    outsideRoot: [],
  };
}

const MANIFESTS = new Map([
  ['@opentelemetry/instrumentation', { dependencies: { 'require-in-the-middle': '^8', 'import-in-the-middle': '^3' } }],
  ['@opentelemetry/instrumentation-express', { dependencies: { '@opentelemetry/instrumentation': '*' } }],
  ['require-in-the-middle', { dependencies: {} }],
  ['express', { dependencies: { 'body-parser': '*' } }],
  ['body-parser', { dependencies: {} }],
  ['bcrypt', { dependencies: {} }],
  ['protos-pkg', { dependencies: {} }],
]);

const HOOKS = [
  { modules: ['http'], by: `${NM}/@opentelemetry/instrumentation-http/build/src/http.js` },
  { modules: ['express'], by: `${NM}/@opentelemetry/instrumentation-express/build/src/instrumentation.js` },
  { modules: ['pg'], by: `${NM}/@opentelemetry/instrumentation-pg/build/src/instrumentation.js` },
  { modules: ['mongodb'], by: `${NM}/@opentelemetry/instrumentation-mongodb/build/src/instrumentation.js` },
];

test('hookTarget: packages, deep paths, scoped names and built-ins', () => {
  assert.deepEqual(hookTarget('express', BUILTINS), { package: 'express' });
  assert.deepEqual(hookTarget('@grpc/grpc-js/build/src/server.js', BUILTINS), { package: '@grpc/grpc-js' });
  assert.deepEqual(hookTarget('node:http', BUILTINS), { builtin: 'http' });
  assert.deepEqual(hookTarget('fs/promises', BUILTINS), { builtin: 'fs' });
  assert.deepEqual(hookTarget(`${NM}/pg/lib/index.js`, BUILTINS), { package: 'pg' });
  assert.equal(hookTarget(`${ROOT}/lib/db.js`, BUILTINS), null);
});

test('startupPackages: the preload side and the entry side, addons and own-file reads', () => {
  const facts = startupPackages(otelCapture());
  const p = (name) => facts.packages.get(name);
  assert.deepEqual([p('@opentelemetry/instrumentation').preload, p('@opentelemetry/instrumentation').main], [true, false]);
  assert.deepEqual([p('require-in-the-middle').preload, p('require-in-the-middle').main], [true, false]);
  assert.deepEqual([p('express').preload, p('express').main], [false, true]);
  assert.equal(p('body-parser').main, true, 'loaded by express, which the entry loaded');
  assert.deepEqual(p('bcrypt').addons, [`${NM}/bcrypt/lib/binding/bcrypt_lib.node`]);
  assert.deepEqual(p('protos-pkg').reads, [`${NM}/protos-pkg/protos/a.proto`]);
  assert.deepEqual(p('express').reads, [], 'package.json reads are metadata, not own files');
  assert.deepEqual(facts.app, { main: [`${ROOT}/lib/routes.js`, `${ROOT}/server.js`], preload: [`${ROOT}/tracing.js`], reads: [`${ROOT}/config.json`] });
});

test('decideExternals: hooked, native addon and own-file packages, each with its reason', () => {
  const facts = startupPackages(otelCapture());
  const d = decideExternals({
    packages: facts.packages, hooks: HOOKS, manifests: MANIFESTS, installed: new Set(['express', 'pg']),
    builtins: BUILTINS, root: ROOT,
  });
  const byName = Object.fromEntries(d.externals.map((e) => [e.name, e.reasons]));
  assert.deepEqual(Object.keys(byName), ['bcrypt', 'express', 'pg', 'protos-pkg']);
  assert.equal(byName.express[0].code, 'HOOKED');
  assert.match(byName.express[0].detail, /by @opentelemetry\/instrumentation-express \(loaded at startup\)/);
  assert.match(byName.pg[0].detail, /not loaded at startup, but installed/, 'a lazily required hooked package stays external too');
  assert.equal(byName.mongodb, undefined, 'hooked but not installed: nothing to keep');
  assert.deepEqual(byName.bcrypt, [{ code: 'NATIVE_ADDON', detail: 'loads native addon lib/binding/bcrypt_lib.node' }]);
  assert.deepEqual(byName['protos-pkg'], [{ code: 'READS_OWN_FILES', detail: 'reads its own files at startup: protos/a.proto' }]);
  assert.deepEqual(d.hookedBuiltins, [{ name: 'http', by: '@opentelemetry/instrumentation-http' }]);
  assert.deepEqual(d.preloadOnly, ['@opentelemetry/instrumentation', '@opentelemetry/instrumentation-express', 'require-in-the-middle']);
});

test('decideExternals: instrumentation loaded by the entry itself stays external, with the chain to the hook library', () => {
  const capture = otelCapture();
  // No preload: server.js sets up tracing itself.
  capture.modules[0].parent = `${ROOT}/server.js`;
  const facts = startupPackages(capture);
  const d = decideExternals({ packages: facts.packages, hooks: [], manifests: MANIFESTS, builtins: BUILTINS, root: ROOT });
  const byName = Object.fromEntries(d.externals.map((e) => [e.name, e.reasons]));
  assert.deepEqual(byName['require-in-the-middle'], [{ code: 'INSTRUMENTATION', detail: 'installs require/import hooks' }]);
  assert.deepEqual(byName['@opentelemetry/instrumentation-express'], [{
    code: 'INSTRUMENTATION',
    detail: 'instrumentation: depends on require-in-the-middle through @opentelemetry/instrumentation',
  }]);
});

test('decideExternals: --external adds, --no-auto-external keeps only those', () => {
  const facts = startupPackages(otelCapture());
  const d = decideExternals({
    packages: facts.packages, hooks: HOOKS, manifests: MANIFESTS, installed: new Set(['express']),
    builtins: BUILTINS, root: ROOT, user: ['body-parser'], auto: false,
  });
  assert.deepEqual(d.externals, [{ name: 'body-parser', reasons: [{ code: 'USER', detail: 'named with --external' }] }]);
  assert.deepEqual(d.hookedBuiltins, []);
});

test('completeExternals: shared with the preload, and requires ncc could not follow', () => {
  const facts = startupPackages(otelCapture());
  facts.packages.set('plugin-x', { name: 'plugin-x', dirs: [], files: [], addons: [], reads: [], main: true, preload: false });
  facts.packages.set('lodash', { name: 'lodash', dirs: [], files: [], addons: [], reads: [], main: true, preload: false });
  const d = decideExternals({ packages: facts.packages, hooks: HOOKS, manifests: MANIFESTS, installed: new Set(['express', 'pg']), builtins: BUILTINS, root: ROOT });
  assert.ok(d.externals.some((e) => e.name === 'pg'), 'kept external for the build, in case the bundle requires it');
  const done = completeExternals(d, {
    bundled: new Set(['lodash']), // in the bundle
    referenced: new Set(['express', 'bcrypt', 'protos-pkg', '@opentelemetry/instrumentation']),
  }, facts.packages, MANIFESTS);
  const byName = Object.fromEntries(done.externals.map((e) => [e.name, e.reasons.map((r) => r.code)]));
  assert.deepEqual(byName['@opentelemetry/instrumentation'], ['SHARED_WITH_PRELOAD']);
  assert.deepEqual(byName['plugin-x'], ['DYNAMIC_REQUIRE']);
  assert.equal(byName['body-parser'], undefined, 'loaded by external express from node_modules: not a dynamic require');
  assert.equal(byName.lodash, undefined);
  assert.equal(byName.pg, undefined, 'hooked, installed, but not used by the bundle: not kept');
  assert.ok(!done.preloadOnly.includes('@opentelemetry/instrumentation'));
});

test('parseAppCommand and bundleCommand: preloads kept, paths pointed at their copies', () => {
  const command = ['node', '--require=./tracing.js', '-r', 'dd-trace/init', '--max-old-space-size', '512', 'dist/index.js', '--port', '3000'];
  const parsed = parseAppCommand(command);
  assert.equal(parsed.entry, 'dist/index.js');
  assert.deepEqual(parsed.args, ['--port', '3000']);
  assert.deepEqual(parsed.preloads.map((p) => [p.flag, p.spec, p.isPath]), [['--require', './tracing.js', true], ['-r', 'dd-trace/init', false]]);
  assert.deepEqual(bundleCommand(command, parsed, { cwd: '/app', root: '/app', entryRel: 'dist/index.js' }),
    ['node', '--require=./tracing.js', '-r', 'dd-trace/init', '--max-old-space-size', '512', 'dist/index.js', '--port', '3000']);
  // Run from a subdirectory of the app: paths become relative to the bundle directory.
  const fromSub = ['node', '-r', '../tracing.js', 'index.js'];
  assert.deepEqual(bundleCommand(fromSub, parseAppCommand(fromSub), { cwd: '/app/dist', root: '/app', entryRel: 'dist/index.js' }),
    ['node', '-r', './tracing.js', 'dist/index.js']);
  const outside = ['node', '-r', '../../opt/apm.js', 'index.js'];
  assert.deepEqual(bundleCommand(outside, parseAppCommand(outside), { cwd: '/app/dist', root: '/app', entryRel: 'dist/index.js' }),
    ['node', '-r', '/opt/apm.js', 'dist/index.js'], 'a preload outside the app is used where it is');
});

test('planRuntimeModules: hoisted like npm, a second version nested under its dependent', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bundle-plan-'));
  const pkg = (rel, name, version, deps = {}, extra = {}) => {
    fs.mkdirSync(path.join(dir, rel), { recursive: true });
    fs.writeFileSync(path.join(dir, rel, 'package.json'), JSON.stringify({ name, version, dependencies: deps, ...extra }));
  };
  try {
    pkg('node_modules/a', 'a', '1.0.0', { b: '^2', c: '*' }, { optionalDependencies: { 'not-there': '*' } });
    pkg('node_modules/a/node_modules/b', 'b', '2.0.0');
    pkg('node_modules/b', 'b', '1.0.0');
    pkg('node_modules/c', 'c', '1.0.0', { b: '^1', gone: '*' });
    pkg('node_modules/unused', 'unused', '1.0.0');
    const real = fs.realpathSync(dir);
    const { placements, missing } = planRuntimeModules([{ name: 'a', dir: path.join(real, 'node_modules/a') }]);
    assert.deepEqual(placements.map((p) => [p.dest, p.version]), [
      ['node_modules/a', '1.0.0'],
      ['node_modules/b', '2.0.0'],
      ['node_modules/c', '1.0.0'],
      ['node_modules/c/node_modules/b', '1.0.0'],
    ]);
    assert.deepEqual(missing, [{ name: 'gone', from: 'c' }], 'optional dependencies may be missing; others are reported');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('loadingWarnings: a listed directory that modules were loaded from, and module globs in the source', () => {
  const warnings = loadingWarnings({
    root: ROOT,
    readdirs: [
      { dir: `${ROOT}/routes`, by: `${ROOT}/server.js` },
      { dir: `${NM}/express/lib`, by: `${NM}/x/index.js` },
      { dir: `${ROOT}/public`, by: `${ROOT}/server.js` },
    ],
    loaded: [`${ROOT}/server.js`, `${ROOT}/routes/users.js`, `${ROOT}/routes/admin/index.js`, `${ROOT}/public/app.js`],
    bundled: new Set([`${ROOT}/server.js`, `${ROOT}/public/app.js`]), // ncc followed the listing of public/
    sources: [
      { file: `${ROOT}/server.js`, text: "const fs = require('fs');\nfor (const f of fs.readdirSync(dir)) require(f);\n" },
      { file: `${ROOT}/db.js`, text: "module.exports = {\n  entities: ['dist/**/*.entity.js'],\n};\n" },
      { file: `${ROOT}/plain.js`, text: "module.exports = 'a*b';\n" },
    ],
  });
  assert.deepEqual(warnings.map((w) => w.code), ['READDIR_LOADING', 'MODULE_GLOB']);
  assert.match(warnings[0].message, /^routes is listed with readdir at startup \(by server\.js\) and 2 modules were loaded from it that ncc could not follow/);
  assert.deepEqual(warnings[0].context.files, ['routes/users.js', 'routes/admin/index.js']);
  assert.match(warnings[1].message, /^db\.js:2 names modules by a glob \(dist\/\*\*\/\*\.entity\.js\)/);
});

test('readsNotSeen: startup reads the bundle did not repeat, matched by name and size', () => {
  const { readsNotSeen } = require('../lib/bundle/verify.js');
  const original = [
    { file: `${ROOT}/proto/greeter.proto`, bytes: 200 },
    { file: `${ROOT}/config/app.json`, bytes: 40 },
    { file: `${NM}/express/package.json`, bytes: 900 },
  ];
  const bundle = [{ file: '/out/greeter.proto', bytes: 200 }]; // ncc moved it beside the bundle
  assert.deepEqual(readsNotSeen(original, bundle), [`${ROOT}/config/app.json`]);
});
