'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { categorize, topFunctions, CATEGORIES } = require('../lib/analyze/cpuprofile-categories.js');
const { writeManyModulesApp, captureProfile } = require('./data/startup-apps.js');

const DATA = path.join(__dirname, 'data');
const loadProfile = (name) => JSON.parse(fs.readFileSync(path.join(DATA, name), 'utf8'));

const CJS = 'node:internal/modules/cjs/loader';
const USER = { functionName: '', url: 'file:///srv/app/index.js' };
const frame = (functionName, url = '') => ({ functionName, url });

/**
 * A profile from stacks given root -> leaf (the (root) frame is added), one sample per stack,
 * `deltas` µs apart (default 100 each) starting at `startTime`.
 */
function profileOf(stacks, { deltas, startTime = 1000, endTime } = {}) {
  const nodes = [{ id: 1, callFrame: callFrame(frame('(root)')), hitCount: 0, children: [] }];
  const samples = [];
  for (const stack of stacks) {
    let parent = nodes[0];
    for (const f of stack) {
      let child = parent.children.map((id) => nodes[id - 1])
        .find((n) => n.callFrame.functionName === f.functionName && n.callFrame.url === f.url);
      if (!child) {
        child = { id: nodes.length + 1, callFrame: callFrame(f), hitCount: 0, children: [] };
        nodes.push(child);
        parent.children.push(child.id);
      }
      parent = child;
    }
    parent.hitCount++;
    samples.push(parent.id);
  }
  const timeDeltas = deltas || samples.map(() => 100);
  const last = startTime + timeDeltas.reduce((a, b) => a + b, 0);
  return { nodes, startTime, endTime: endTime === undefined ? last + 100 : endTime, samples, timeDeltas };
}

function callFrame({ functionName, url, lineNumber = url ? 10 : -1 }) {
  return { functionName, scriptId: '0', url, lineNumber, columnNumber: url ? 2 : -1 };
}

/** The one category a single stack falls into. */
function categoryOf(stack) {
  const { categories } = categorize(profileOf([stack]));
  const hit = Object.keys(categories).filter((c) => categories[c] > 0);
  assert.equal(hit.length, 1, `one category expected, got ${hit.join(', ')}`);
  return hit[0];
}

function assertSumsToTotal(result) {
  const sum = Object.values(result.categories).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - result.totalMs) < 0.01, `categories sum to ${sum}, total is ${result.totalMs}`);
  assert.deepEqual(Object.keys(result.categories), CATEGORIES);
  for (const c of CATEGORIES) assert.ok(result.categories[c] >= 0, `${c} is negative`);
}

/** Every stored node whose frame matches, each sampled once: the categories they fall into. */
function categoriesOfStoredFrames(profile, match) {
  const ids = profile.nodes.filter((n) => match(n.callFrame)).map((n) => n.id);
  assert.ok(ids.length > 0, 'the stored profile has such a frame');
  return new Set(ids.map((id) => {
    const { categories } = categorize({ nodes: profile.nodes, startTime: 0, endTime: 1, samples: [id], timeDeltas: [0] });
    return Object.keys(categories).find((c) => categories[c] > 0);
  }));
}

// --- real Node 20 startups, captured by test/data/startup-apps.js

test('express startup: every loader stage shows up and the split adds up', () => {
  const profile = loadProfile('express.node20.cpuprofile');
  const result = categorize(profile);
  assertSumsToTotal(result);
  assert.equal(result.samples, profile.samples.length);
  // ~70 CJS files resolved through package.json "main"/"exports", read, wrapped and run.
  for (const c of ['resolve', 'read', 'compile', 'execute', 'gc']) assert.ok(result.categories[c] > 0, `${c} > 0`);
  // Weights run from the first sample to endTime, so the total is that span exactly.
  const firstSample = profile.startTime + profile.timeDeltas[0];
  assert.ok(Math.abs(result.totalMs - (profile.endTime - firstSample) / 1000) < 0.001);
  // Loading the packages, not bootstrap, is what this startup is made of.
  const loading = result.categories.resolve + result.categories.read + result.categories.compile;
  assert.ok(loading > result.categories.other, `loading ${loading} ms vs other ${result.categories.other} ms`);
});

test('express startup: loader frames land in the category they stand for', () => {
  const profile = loadProfile('express.node20.cpuprofile');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parentOf.set(c, byId.get(n.id));
  const under = (name, url) => (f) => profile.nodes.some((n) => n.callFrame === f
    && parentOf.get(n.id) && parentOf.get(n.id).callFrame.functionName === name && parentOf.get(n.id).callFrame.url === url);

  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.functionName === 'internalModuleStat'), new Set(['resolve']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.url.endsWith('package_json_reader')), new Set(['resolve']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.functionName === 'readFileUtf8'), new Set(['read']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.functionName === 'wrapSafe'), new Set(['compile']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.url.includes('/node_modules/mime-types/')), new Set(['execute']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.functionName === '(garbage collector)'), new Set(['gc']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.functionName === '(idle)'), new Set(['idle']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.functionName === '(program)'), new Set(['other']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.url.endsWith('pre_execution')), new Set(['other']));
  // node:crypto's top-level code, run because etag required it: not compiling, the app's require.
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.url === 'node:crypto'
    && under('compileForInternalLoader', 'node:internal/bootstrap/realm')(f)), new Set(['execute']));
});

test('express startup: topFunctions lists self time with wrapSafe near the top', () => {
  const profile = loadProfile('express.node20.cpuprofile');
  const top = topFunctions(profile, 5);
  assert.equal(top.length, 5);
  for (let i = 1; i < top.length; i++) assert.ok(top[i - 1].selfMs >= top[i].selfMs);
  const wrapSafe = top.find((f) => f.functionName === 'wrapSafe');
  assert.ok(wrapSafe, 'compiling CJS files is among the five most expensive functions');
  assert.equal(wrapSafe.url, CJS);
  assert.ok(wrapSafe.lineNumber > 0);
  const all = topFunctions(profile, Infinity);
  assert.equal(new Set(all.map((f) => `${f.functionName}|${f.url}|${f.lineNumber}`)).size, all.length, 'frames merged');
  const { idle, offCpu } = categorize(profile).categories;
  const selfSum = all.reduce((a, f) => a + f.selfMs, 0);
  assert.ok(Math.abs(selfSum + idle + offCpu - categorize(profile).totalMs) < 0.01, 'self times cover everything but idle and time off the CPU');
});

test('ESM startup: resolve, fs/promises reads after await, ModuleWrap compile and evaluation', () => {
  const profile = loadProfile('esm.node20.cpuprofile');
  const result = categorize(profile);
  assertSumsToTotal(result);
  for (const c of ['resolve', 'read', 'compile', 'execute']) assert.ok(result.categories[c] > 0, `${c} > 0`);
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.url === 'node:internal/modules/esm/resolve'), new Set(['resolve']));
  // After an await the stack starts again at (root): read <- readFileHandle <- (root).
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.url === 'node:internal/fs/promises'), new Set(['read']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.functionName === 'cjsPreparseModuleExports'), new Set(['compile']));
  assert.deepEqual(categoriesOfStoredFrames(profile, (f) => f.url.endsWith('/src/shared.mjs')), new Set(['execute']));
});

test('300 small modules: resolving them is the biggest cost', () => {
  const result = categorize(loadProfile('many-modules.node20.cpuprofile'));
  assertSumsToTotal(result);
  // Each require walks extensions, directories and node_modules with package.json "main"; the
  // module bodies are one line. Stored capture: resolve 30 ms of 54 ms.
  const { resolve, ...rest } = result.categories;
  for (const [c, ms] of Object.entries(rest)) assert.ok(resolve > ms, `resolve ${resolve} ms > ${c} ${ms} ms`);
});

test('a fresh startup profile on this Node still has loader frames the rules know', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-cats-'));
  try {
    const profile = captureProfile(writeManyModulesApp(dir, 300));
    const result = categorize(profile);
    assertSumsToTotal(result);
    const split = `on Node ${process.version}: ${JSON.stringify(result.categories)}`;
    // Only the stages that take a large share here: on a busy machine V8's sampler thread can
    // get as few as ~60 samples of this startup, and read (~6%) may then get none by chance.
    for (const c of ['resolve', 'compile', 'execute']) assert.ok(result.categories[c] > 0, `${c} > 0 ${split}`);
    const { resolve, read, compile, other } = result.categories;
    assert.ok(resolve + read + compile > other, `loader frames recognised ${split}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// --- one rule at a time

test('resolve: a loader frame wins over the user frame that called require', () => {
  const require = [USER, frame('Module._load', CJS), frame('Module._resolveFilename', CJS), frame('Module._findPath', CJS)];
  assert.equal(categoryOf([...require, frame('stat', CJS), frame('internalModuleStat')]), 'resolve');
  assert.equal(categoryOf([...require, frame('resolve', 'node:path')]), 'resolve');
  assert.equal(categoryOf([USER, frame('readPackageScope', 'node:internal/modules/package_json_reader')]), 'resolve');
  assert.equal(categoryOf([frame('moduleResolve', 'node:internal/modules/esm/resolve'), frame('lstat')]), 'resolve');
});

test('read: module sources and other files coming off the disk', () => {
  assert.equal(categoryOf([USER, frame('Module.load', CJS), frame('loadSource', CJS), frame('readFileSync', 'node:fs'),
    frame('readFileUtf8')]), 'read');
  assert.equal(categoryOf([frame('readFileHandle', 'node:internal/fs/promises'), frame('read')]), 'read');
  assert.equal(categoryOf([frame('defaultLoad', 'node:internal/modules/esm/load')]), 'read');
  // The app reading its own config during startup is disk time too.
  assert.equal(categoryOf([USER, frame('readFileSync', 'node:fs'), frame('readFileUtf8')]), 'read');
});

test('compile: CJS wrappers, ESM module records, JSON modules, builtins', () => {
  assert.equal(categoryOf([USER, frame('Module._compile', CJS), frame('wrapSafe', CJS)]), 'compile');
  assert.equal(categoryOf([frame('compileSourceTextModule', 'node:internal/modules/esm/utils')]), 'compile');
  assert.equal(categoryOf([USER, frame('Module._extensions..json', CJS)]), 'compile');
  assert.equal(categoryOf([USER, frame('compileForInternalLoader', 'node:internal/bootstrap/realm')]), 'compile');
});

test('compileForInternalLoader counts only its own time, not the builtin it then runs', () => {
  const loadHttp = [frame('compileForInternalLoader', 'node:internal/bootstrap/realm'), frame('', 'node:http')];
  assert.equal(categoryOf([USER, frame('require', 'node:internal/modules/helpers'), ...loadHttp]), 'execute');
  assert.equal(categoryOf(loadHttp), 'other');
});

test('execute: the app or a package on the stack, below any loader frame', () => {
  assert.equal(categoryOf([USER]), 'execute');
  assert.equal(categoryOf([USER, frame('Server.listen', 'node:net'), frame('setupListenHandle', 'node:net')]), 'execute');
  assert.equal(categoryOf([frame('run', 'node:internal/modules/esm/module_job'), frame('evaluate'),
    frame('', 'file:///srv/app/node_modules/pkg/index.mjs')]), 'execute');
});

test('gc, idle and other by the leaf when no app frame is on the stack', () => {
  assert.equal(categoryOf([frame('(garbage collector)')]), 'gc');
  assert.equal(categoryOf([frame('(idle)')]), 'idle');
  assert.equal(categoryOf([frame('(program)')]), 'other');
  assert.equal(categoryOf([frame('prepareExecution', 'node:internal/process/pre_execution')]), 'other');
});

test("coldstart's own frames in the app do not count as the app's code", () => {
  const agentUrl = pathToFileURL(path.join(__dirname, '..', 'lib', 'in-app', 'agent.cjs')).href;
  assert.equal(categoryOf([frame('', agentUrl), frame('Module._load', CJS), frame('Module.load', CJS)]), 'other');
  assert.equal(categoryOf([frame('wrapLoad', '/opt/x/node_modules/coldstart/lib/in-app/agent.cjs'),
    frame('Module._load', CJS)]), 'other');
  assert.equal(categoryOf([frame('', agentUrl), USER]), 'execute');
});

// --- timing and quirky input

test('a sample weighs the time to the next one; the last one runs to endTime', () => {
  const gc = [frame('(garbage collector)')];
  const result = categorize(profileOf([[USER], gc, [USER]], { deltas: [10, 20, 30], startTime: 1000, endTime: 1100 }));
  // samples at 1010, 1030, 1060: weights 20, 30, 40 µs
  assert.equal(result.categories.execute, 0.06);
  assert.equal(result.categories.gc, 0.03);
  assert.equal(result.totalMs, 0.09);
  assert.equal(result.samples, 3);
});

test('negative timeDeltas (V8 samples out of order) are put back in time order', () => {
  const stacks = [[USER], [frame('(garbage collector)')], [frame('(idle)')], [USER]];
  const result = categorize(profileOf(stacks, { deltas: [10, 50, -20, 30], startTime: 1000, endTime: 1100 }));
  // times 1010, 1060, 1040, 1070 -> sorted 1010 (user), 1040 (idle), 1060 (gc), 1070 (user)
  assertSumsToTotal(result);
  assert.equal(result.categories.execute, 0.03 + 0.03);
  assert.equal(result.categories.idle, 0.02);
  assert.equal(result.categories.gc, 0.01);
  assert.equal(result.totalMs, 0.09, 'from the first sample to endTime, nothing counted twice');
});

test('an endTime before the last sample gives it no weight, never a negative one', () => {
  const result = categorize(profileOf([[USER], [USER]], { deltas: [10, 10], startTime: 0, endTime: 5 }));
  assert.equal(result.totalMs, 0.01);
  assertSumsToTotal(result);
});

test('samples naming nodes the profile lacks count as other; timeDeltas cut short mean no time', () => {
  const profile = profileOf([[USER], [USER]], { startTime: 0 });
  profile.samples.push(999);
  profile.timeDeltas.push(100);
  profile.endTime += 100;
  const result = categorize(profile);
  assert.equal(result.samples, 3);
  assert.equal(result.categories.other, 0.1);
  assert.equal(result.categories.execute, 0.2);
  const short = profileOf([[USER], [USER], [USER]], { deltas: [100], startTime: 0, endTime: 300 });
  assert.equal(categorize(short).totalMs, 0.2);
  assert.deepEqual(topFunctions({ ...profile, samples: [999] }, 5), []);
});

test('empty and missing profiles give zeros, not errors', () => {
  for (const profile of [undefined, null, {}, { nodes: [], samples: [], timeDeltas: [], startTime: 5, endTime: 9 }]) {
    const result = categorize(profile);
    assert.equal(result.totalMs, 0);
    assert.equal(result.samples, 0);
    assertSumsToTotal(result);
    assert.deepEqual(topFunctions(profile, 3), []);
  }
});

test('a malformed tree with a cycle does not hang', () => {
  const profile = profileOf([[frame('a', 'node:x'), frame('b', 'node:x')]]);
  profile.nodes[2].children.push(1); // b -> (root), and (root) -> a -> b
  const result = categorize(profile);
  assert.equal(result.categories.other, 0.1);
});

test('child -> parent links (trace-event profiles) work like children lists', () => {
  const profile = profileOf([[USER, frame('Module._resolveFilename', CJS), frame('internalModuleStat')]]);
  for (const node of profile.nodes) {
    for (const child of node.children) profile.nodes[child - 1].parent = node.id;
    delete node.children;
  }
  assert.equal(categorize(profile).categories.resolve, 0.1);
});

test('ranges count only the time inside the windows, clipping samples at the edges', () => {
  const gc = [frame('(garbage collector)')];
  const profile = profileOf([[USER], gc, [USER]], { deltas: [10, 20, 30], startTime: 1000, endTime: 1100 });
  // sample intervals: user [1010, 1030), gc [1030, 1060), user [1060, 1100)
  const one = categorize(profile, { ranges: [{ start: 1020, end: 1050 }] });
  assert.equal(one.totalMs, 0.03);
  assert.equal(one.categories.execute, 0.01);
  assert.equal(one.categories.gc, 0.02);
  assert.equal(one.samples, 2);
  const overlapping = categorize(profile, { ranges: [{ start: 1020, end: 1040 }, { start: 1030, end: 1050 }] });
  assert.deepEqual(overlapping, one);
  const apart = categorize(profile, { ranges: [{ start: 1000, end: 1015 }, { start: 1090, end: 2000 }] });
  assert.equal(apart.categories.execute, 0.015);
  assert.equal(categorize(profile, { ranges: [] }).totalMs, 0);
  assert.equal(topFunctions(profile, 5, { ranges: [{ start: 1030, end: 1060 }] })[0].functionName, '(garbage collector)');
});

test('topFunctions merges one function seen under two callers, skips idle, gives 1-based lines', () => {
  const helper = { functionName: 'helper', url: 'file:///srv/app/util.js' };
  const profile = profileOf([
    [USER, frame('a', USER.url), helper],
    [USER, frame('b', USER.url), helper],
    [frame('(idle)')], [frame('(idle)')], [frame('(idle)')],
    [USER, frame('b', USER.url)],
    [frame('internalModuleStat')],
  ]);
  const top = topFunctions(profile, 10);
  assert.deepEqual(top.map((f) => [f.functionName, f.selfMs]), [['helper', 0.2], ['b', 0.1], ['internalModuleStat', 0.1]]);
  assert.deepEqual(top[0], { functionName: 'helper', url: helper.url, lineNumber: 11, selfMs: 0.2 });
  assert.equal(top[2].lineNumber, null, 'native functions have no line');
  assert.equal(topFunctions(profile, 1).length, 1);
});

test('a gap far above the sampling interval is time off the CPU, not the frame that was on the stack', () => {
  // 40 samples 1 ms apart in an app function, one of them followed by a 30 ms gap (descheduled).
  const nodes = [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2, 3] },
    { id: 2, callFrame: { functionName: 'work', url: 'file:///app/server.js', lineNumber: 3, columnNumber: 13 } },
    { id: 3, callFrame: { functionName: '(idle)', url: '', lineNumber: -1, columnNumber: -1 } },
  ];
  const samples = [];
  const timeDeltas = [];
  for (let i = 0; i < 40; i++) { samples.push(2); timeDeltas.push(i === 21 ? 30_000 : 1000); }
  samples.push(3); timeDeltas.push(1000); // then a long wait on the event loop: idle, however long
  samples.push(2); timeDeltas.push(50_000);
  const profile = { nodes, samples, timeDeltas, startTime: 0, endTime: 0 };
  profile.endTime = timeDeltas.reduce((a, b) => a + b, 0) + 1000;
  const { categories, totalMs } = categorize(profile);
  assert.ok(Math.abs(categories.offCpu - 29) < 0.01, `off the CPU: ${categories.offCpu} ms`);
  assert.ok(Math.abs(categories.execute - 41) < 0.01, `the function's own time: ${categories.execute} ms`);
  assert.ok(Math.abs(categories.idle - 50) < 0.01, `idle: ${categories.idle} ms`);
  assert.ok(Math.abs(totalMs - Object.values(categories).reduce((a, b) => a + b, 0)) < 0.01, 'categories add up');
  assert.ok(Math.abs(topFunctions(profile, 1)[0].selfMs - 41) < 0.01, 'a function is never charged the gap');
});
