'use strict';
// Splits a V8 CPU profile of a Node startup into what the time went to: finding modules
// (resolve), reading them from disk (read), compiling them (compile), running the app's and its
// packages' code (execute), garbage collection, idle, and the rest.
//
// The frame rules below were read off real Node 20 startup profiles (an express app, an ESM app,
// an app of 300 small modules: test/data/). Node renames loader internals between releases; to
// teach this file a new release, capture profiles (`node test/data/startup-apps.js --write`),
// look at which loader frames land in `other` or `execute`, and add them to LOADER_FRAMES.

const { isOwnCode } = require('./own-code.js');

// Also the order reports show them in. offCpu: time the thread was not running at all (below).
const CATEGORIES = Object.freeze(['resolve', 'read', 'compile', 'execute', 'gc', 'idle', 'other', 'offCpu']);

// A sample weighs the time to the next one. The sampler ticks every interval while the thread runs,
// blocking calls included (a spawnSync waiting on its child keeps being sampled); a gap far above
// the interval is time neither the thread nor the sampler ran: the machine was busy (or the process
// stalled on page faults). Beyond this multiple of the interval, only one interval is the frame's
// work and the rest is nobody's: the offCpu category, never the frame that was on the stack.
const OFF_CPU_GAP = 2;

// Native bindings (C++ functions) appear in profiles with an empty url.
const NATIVE = '';

/**
 * Loader frames: { category, url, names }. `names: '*'` matches every function of that url.
 * `leafOnly` rules count only the frame's own (self) time: their callees are something else.
 */
const LOADER_FRAMES = [
  // --- resolve: from a specifier to a file, including the package.json reads that needs.
  {
    category: 'resolve',
    url: 'node:internal/modules/cjs/loader',
    names: [
      'Module._resolveFilename', 'Module._findPath', 'Module._resolveLookupPaths', 'Module._nodeModulePaths',
      'tryExtensions', 'tryFile', 'tryPackage', 'trySelf', 'stat', 'resolveExports', 'finalizeEsmResolution',
      'findLongestRegisteredExtension', 'resolveForCJSWithHooks',
    ],
  },
  { category: 'resolve', url: 'node:internal/modules/helpers', names: ['toRealPath'] },
  { category: 'resolve', url: 'node:internal/modules/run_main', names: ['resolveMainPath'] },
  // Also reached from Module._extensions..js (readPackageScope: is this file ESM or CJS?).
  { category: 'resolve', url: 'node:internal/modules/package_json_reader', names: '*' },
  { category: 'resolve', url: 'node:internal/modules/esm/resolve', names: '*' },
  // Deciding a module's format reads package.json "type", like readPackageScope does for CJS.
  { category: 'resolve', url: 'node:internal/modules/esm/get_format', names: '*' },
  {
    category: 'resolve',
    url: 'node:internal/modules/esm/loader',
    names: ['resolve', 'resolveSync', 'defaultResolve', '#cachedDefaultResolve', '#cachedResolveSync',
      '#resolveAndMaybeBlockOnLoaderThread'],
  },
  {
    category: 'resolve',
    url: NATIVE,
    names: ['internalModuleStat', 'internalModuleReadJSON',
      // Node >= 22 reads package.json through internalBinding('modules').
      'readPackageJSON', 'getNearestParentPackageJSON', 'getNearestParentPackageJSONType',
      'getNearestRawParentPackageJSON', 'getPackageScopeConfig', 'getPackageType'],
  },

  // --- read: module sources (and any other file) coming off the disk.
  { category: 'read', url: 'node:internal/modules/cjs/loader', names: ['loadSource'] },
  {
    category: 'read',
    url: 'node:internal/modules/esm/load',
    names: ['getSource', 'getSourceSync', 'defaultLoad', 'defaultLoadSync'],
  },
  // Buffer -> string of an ESM source, the ESM side of readFileSync(file, 'utf8').
  { category: 'read', url: 'node:internal/modules/esm/translators', names: ['stringify'] },
  {
    category: 'read',
    url: 'node:fs',
    names: ['readFileSync', 'openSync', 'readSync', 'closeSync', 'fstatSync', 'tryStatSync', 'tryCreateBuffer',
      'tryReadSync', 'readFile'],
  },
  // ESM sources are read with fs/promises; after each await the stack restarts at (root), so
  // these frames show up with no loader frame above them.
  { category: 'read', url: 'node:internal/fs/promises', names: '*' },
  {
    category: 'read',
    url: NATIVE,
    names: ['readFileUtf8', 'open', 'read', 'close', 'fstat', 'openFileHandle', 'readBuffers'],
  },

  // --- compile: source text to V8 functions or module records.
  { category: 'compile', url: 'node:internal/modules/cjs/loader', names: ['wrapSafe', 'Module._extensions..json'] },
  { category: 'compile', url: 'node:internal/modules/esm/utils', names: ['compileSourceTextModule'] },
  {
    category: 'compile',
    url: 'node:internal/modules/esm/translators',
    names: ['moduleStrategy', 'jsonStrategy', 'cjsPreparseModuleExports'],
  },
  // cjs-module-lexer parses a CJS file imported from ESM to find its named exports.
  { category: 'compile', url: 'node:internal/deps/cjs-module-lexer/lexer', names: '*' },
  { category: 'compile', url: 'node:internal/deps/cjs-module-lexer/dist/lexer', names: '*' },
  {
    category: 'compile',
    url: NATIVE,
    names: ['compileFunctionForCJSLoader', 'compileFunction', 'ModuleWrap', 'containsModuleSyntax'],
  },
  // Compiling a Node builtin (require('http')) from its embedded source. Its callee is the
  // builtin's top-level code running, which is not compiling: self time only.
  { category: 'compile', url: 'node:internal/bootstrap/realm', names: ['compileForInternalLoader'], leafOnly: true },
];

// Leaf frames V8 itself names; anything else without a user frame above it is `other`
// ((program): time in V8/Node native code not attributed to JS, bootstrap, the inspector).
const LEAF_CATEGORIES = new Map([
  ['(garbage collector)', 'gc'],
  ['(idle)', 'idle'],
]);

const RULES = compileRules(LOADER_FRAMES);

function compileRules(table) {
  const byUrl = new Map();
  for (const rule of table) {
    let entry = byUrl.get(rule.url);
    if (!entry) byUrl.set(rule.url, (entry = { any: null, names: new Map() }));
    if (rule.names === '*') entry.any = rule;
    else for (const name of rule.names) entry.names.set(name, rule);
  }
  return byUrl;
}

function loaderRule(callFrame) {
  const entry = RULES.get(callFrame.url || '');
  if (!entry) return null;
  return entry.names.get(callFrame.functionName) || entry.any;
}

/** The file of a profile frame's url: a file:// URL as a path, any other url (node:…, a path) as it is. */
const fileOfUrl = (url) => (url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url);

/** The app's or its packages' code: a script with a url that is not Node's own or coldstart's. */
function isUserFrame(callFrame) {
  const url = callFrame.url || '';
  if (url === '' || url.startsWith('node:')) return false;
  return !isOwnCode(url);
}

/**
 * Absolute sample times and their weights (µs), sorted by time.
 * V8 can emit a sample stamped earlier than the one before it (a negative timeDelta, seen in
 * real Chrome and Node profiles: jlfwong/speedscope#80). speedscope clamps such a delta to zero,
 * which shifts every later sample; sorting by absolute time instead keeps the profile clock
 * right, and `ranges` are on that clock.
 */
function timedSamples(profile) {
  const samples = Array.isArray(profile && profile.samples) ? profile.samples : [];
  const deltas = Array.isArray(profile && profile.timeDeltas) ? profile.timeDeltas : [];
  const startTime = Number.isFinite(profile && profile.startTime) ? profile.startTime : 0;
  const timed = [];
  let t = startTime;
  for (let i = 0; i < samples.length; i++) {
    // A truncated timeDeltas array (hand-edited or cut-off profile): the sample shares the previous time.
    const delta = Number.isFinite(deltas[i]) ? deltas[i] : 0;
    t += delta;
    timed.push({ id: samples[i], t, order: i });
  }
  timed.sort((a, b) => a.t - b.t || a.order - b.order);
  const last = timed.length ? timed[timed.length - 1].t : startTime;
  const endTime = Number.isFinite(profile && profile.endTime) ? profile.endTime : last;
  for (let i = 0; i < timed.length; i++) {
    const next = i + 1 < timed.length ? timed[i + 1].t : Math.max(endTime, last);
    timed[i].weight = next - timed[i].t;
  }
  const interval = samplingInterval(timed);
  for (const s of timed) {
    s.offCpu = interval && s.weight > OFF_CPU_GAP * interval ? s.weight - interval : 0;
    s.onCpu = s.weight - s.offCpu;
  }
  return timed;
}

/** The sampling interval a profile was taken at (µs): its median gap between samples; 0 when unknown. */
function samplingInterval(timed) {
  const gaps = timed.map((s) => s.weight).filter((w) => w > 0).sort((a, b) => a - b);
  return gaps.length >= 10 ? gaps[gaps.length >> 1] : 0;
}

/** The part of a sample's weight the thread ran (a function's time is never the machine's). */
const onCpuShare = (sample) => (sample.weight ? sample.onCpu / sample.weight : 1);

/** Merged, sorted [start, end) windows, or null for "the whole profile". */
function normaliseRanges(ranges) {
  if (ranges === undefined || ranges === null) return null;
  const list = (Array.isArray(ranges) ? ranges : [ranges])
    .filter((r) => r && Number.isFinite(r.start) && Number.isFinite(r.end) && r.end > r.start)
    .map((r) => ({ start: r.start, end: r.end }))
    .sort((a, b) => a.start - b.start);
  const merged = [];
  for (const r of list) {
    const prev = merged[merged.length - 1];
    if (prev && r.start <= prev.end) prev.end = Math.max(prev.end, r.end);
    else merged.push(r);
  }
  return merged;
}

/**
 * How much of [t, t + weight) falls inside the windows; byStamp: all of it when the sample was
 * taken inside one (the stack it shows is what ran then), else none.
 */
function weightInside(t, weight, windows, byStamp = false) {
  if (!windows) return weight;
  if (byStamp) {
    // The windows are merged and sorted: the last one that starts at or before t decides.
    let lo = 0;
    let hi = windows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (windows[mid].start <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && t < windows[lo - 1].end ? weight : 0;
  }
  let inside = 0;
  for (const w of windows) {
    if (w.start >= t + weight) break;
    inside += Math.max(0, Math.min(t + weight, w.end) - Math.max(t, w.start));
  }
  return inside;
}

function indexNodes(profile) {
  const nodes = new Map();
  const parents = new Map();
  for (const node of Array.isArray(profile && profile.nodes) ? profile.nodes : []) {
    if (node && node.id !== undefined) nodes.set(node.id, node);
  }
  for (const node of nodes.values()) {
    // Trace-event profiles link child -> parent instead of parent -> children.
    if (node.parent !== undefined) parents.set(node.id, node.parent);
    for (const child of Array.isArray(node.children) ? node.children : []) parents.set(child, node.id);
  }
  return { nodes, parents };
}

const EMPTY_FRAME = { functionName: '', url: '', lineNumber: -1, columnNumber: -1 };

function frameOf(node) {
  return (node && node.callFrame) || EMPTY_FRAME;
}

/** The category of one stack, given its leaf node id. */
function categoryOfStack(leafId, { nodes, parents }) {
  const leaf = nodes.get(leafId);
  if (!leaf) return 'other'; // the sample names a node the profile does not have
  let sawUser = false;
  const seen = new Set();
  for (let id = leafId; id !== undefined && nodes.has(id) && !seen.has(id); id = parents.get(id)) {
    seen.add(id); // a malformed profile with a cycle must not hang us
    const frame = frameOf(nodes.get(id));
    const rule = loaderRule(frame);
    if (rule && (!rule.leafOnly || id === leafId)) return rule.category;
    if (!sawUser && isUserFrame(frame)) sawUser = true;
  }
  if (sawUser) return 'execute';
  return LEAF_CATEGORIES.get(frameOf(leaf).functionName) || 'other';
}

/**
 * Splits a V8 CPU profile (Profiler.stop result or a .cpuprofile file) into startup categories.
 * A sample weighs the time to the next sample (the last one: until endTime). Its category comes
 * from its stack, leaf to root: the first resolve/read/compile loader frame wins; otherwise
 * `execute` if any frame is the app's or a package's code; otherwise gc/idle/other by the leaf.
 * A gap of more than two sampling intervals after a sample (not idle) is the thread off the CPU:
 * one interval stays the sample's category, the rest is `offCpu`.
 * @param {object} profile { nodes, startTime, endTime, samples, timeDeltas }, times in µs
 * @param {{ ranges?: Array<{start: number, end: number}>, byStamp?: boolean }} [options] count only
 *   these windows (µs on the profile clock, end exclusive); samples are clipped to them, or with
 *   byStamp counted whole when taken inside one (for many short windows, such as requests)
 * @returns {{ totalMs: number, categories: Record<'resolve'|'read'|'compile'|'execute'|'gc'|'idle'|'other'|'offCpu', number>,
 *   samples: number }} ms per category, summing to totalMs; samples = samples counted
 */
function categorize(profile, { ranges, byStamp } = {}) {
  const index = indexNodes(profile);
  const windows = normaliseRanges(ranges);
  const micros = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
  const cache = new Map();
  let total = 0;
  let counted = 0;
  for (const sample of timedSamples(profile)) {
    const weight = weightInside(sample.t, sample.weight, windows, byStamp);
    if (windows && weight <= 0) continue;
    let category = cache.get(sample.id);
    if (category === undefined) cache.set(sample.id, (category = categoryOfStack(sample.id, index)));
    // Waiting on the event loop is idle however long it lasts; any other long gap is off the CPU.
    const offCpu = category === 'idle' || !sample.weight ? 0 : (sample.offCpu * weight) / sample.weight;
    micros[category] += weight - offCpu;
    micros.offCpu += offCpu;
    total += weight;
    counted++;
  }
  const categories = Object.fromEntries(CATEGORIES.map((c) => [c, micros[c] / 1000]));
  return { totalMs: total / 1000, categories, samples: counted };
}

/**
 * The functions with the most self time, identical frames (name, url, line, column) merged.
 * (idle) is left out: it is waiting, not work.
 * @param {object} profile a V8 CPU profile
 * @param {number} [n=10] how many to return
 * @param {{ ranges?: Array<{start: number, end: number}> }} [options] as for categorize
 * @returns {Array<{ functionName: string, url: string, lineNumber: number|null, selfMs: number }>}
 *   lineNumber is 1-based as editors show it (V8's is 0-based), null for native functions
 */
function topFunctions(profile, n = 10, { ranges } = {}) {
  const { nodes } = indexNodes(profile);
  const windows = normaliseRanges(ranges);
  const byFrame = new Map();
  for (const sample of timedSamples(profile)) {
    const node = nodes.get(sample.id);
    if (!node) continue;
    const weight = onCpuShare(sample) * weightInside(sample.t, sample.weight, windows);
    if (weight <= 0) continue;
    const frame = frameOf(node);
    if (frame.functionName === '(idle)') continue;
    const key = `${frame.functionName}\0${frame.url}\0${frame.lineNumber}\0${frame.columnNumber}`;
    let entry = byFrame.get(key);
    if (!entry) {
      entry = {
        functionName: frame.functionName || '',
        url: frame.url || '',
        lineNumber: Number.isInteger(frame.lineNumber) && frame.lineNumber >= 0 ? frame.lineNumber + 1 : null,
        self: 0,
      };
      byFrame.set(key, entry);
    }
    entry.self += weight;
  }
  return [...byFrame.values()]
    .sort((a, b) => b.self - a.self || a.functionName.localeCompare(b.functionName) || a.url.localeCompare(b.url))
    .slice(0, Math.max(0, n))
    .map(({ functionName, url, lineNumber, self }) => ({ functionName, url, lineNumber, selfMs: self / 1000 }));
}

/**
 * The app's and its packages' functions by total time (their own and their callees'): a timer
 * callback that calls a helper holds the helper's time too, so the work is named by what started
 * it. A sample with no such function on its stack counts for its leaf when that is one of V8's
 * own ((garbage collector), (program)) and for "(Node.js internals)" otherwise; (idle) and
 * coldstart's own frames are left out.
 * @returns {Array<{ functionName: string, url: string, lineNumber: number|null, totalMs: number }>}
 *   lineNumber 1-based, null for V8's own entries
 */
function functionTotals(profile, n = 10, { ranges, byStamp } = {}) {
  const index = indexNodes(profile);
  const windows = normaliseRanges(ranges);
  const byFrame = new Map();
  const add = (frame, weight) => {
    const key = `${frame.functionName}\0${frame.url}\0${frame.lineNumber}\0${frame.columnNumber}`;
    let entry = byFrame.get(key);
    if (!entry) {
      const lineNumber = Number.isInteger(frame.lineNumber) && frame.lineNumber >= 0 ? frame.lineNumber + 1 : null;
      byFrame.set(key, (entry = { functionName: frame.functionName || '(anonymous)', url: frame.url || '', lineNumber, total: 0 }));
    }
    entry.total += weight;
  };
  for (const sample of timedSamples(profile)) {
    const leaf = index.nodes.get(sample.id);
    if (!leaf || frameOf(leaf).functionName === '(idle)') continue;
    const weight = onCpuShare(sample) * weightInside(sample.t, sample.weight, windows, byStamp);
    if (weight <= 0) continue;
    const frames = new Map();
    let own = false;
    for (let id = sample.id; id !== undefined && index.nodes.has(id) && !frames.has(id); id = index.parents.get(id)) {
      const frame = frameOf(index.nodes.get(id));
      if (isUserFrame(frame)) frames.set(id, frame);
      else if (frame.url && !frame.url.startsWith('node:')) own = true;
    }
    const distinct = new Map([...frames.values()].map((f) => [`${f.functionName}\0${f.url}\0${f.lineNumber}\0${f.columnNumber}`, f]));
    if (distinct.size) for (const frame of distinct.values()) add(frame, weight); // a recursive function once
    else if (frameOf(leaf).functionName.startsWith('(')) add(frameOf(leaf), weight);
    else if (!own) add({ functionName: '(Node.js internals)', url: '', lineNumber: -1, columnNumber: -1 }, weight);
  }
  return [...byFrame.values()]
    .sort((a, b) => b.total - a.total || a.functionName.localeCompare(b.functionName))
    .slice(0, Math.max(0, n))
    .map(({ total, ...f }) => ({ ...f, totalMs: total / 1000 }));
}

module.exports = { categorize, fileOfUrl, functionTotals, isUserFrame, topFunctions, timedSamples, CATEGORIES };
