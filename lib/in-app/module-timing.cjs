'use strict';
// Which modules the app loads before its ready moment and what each costs: CommonJS through the
// loader's own functions (resolve and load, with a stack for self time), ES modules through loader
// hooks (esm-timing.cjs) and marks around their evaluation. Runs inside the app: built-ins only.
const { readFileSync, realpathSync } = require('fs'); // taken before the app's reads are recorded: not one of them
const path = require('path');
const { pathToFileURL, fileURLToPath } = require('url'); // now: loaded later, it would count as the app's
const Module = require('module');

// coldstart's own files in the app (this agent and what it loads later): their requires are not the app's.
const OWN_FILES = path.join(__dirname, '..') + path.sep;

/**
 * Decides on ES module hooks and patches the CommonJS loader; recordEsm() then installs the hooks.
 * @param {{recording: boolean, stack: object[]}} state shared with the file reads: recording ends
 *   at the ready moment; the stack holds the CommonJS modules loading now
 * @param {{hrNow: () => number, cpuNow: () => number}} clock µs: wall (the CPU profile's clock), CPU used
 */
function recordModules(state, clock) {
  // In-thread hooks (Node 22.15+) cost nothing to start and see every ES module, those require()
  // loads included; but once registered, every require() takes Node's slow path through them (URL
  // conversions, hook contexts): 6-9% of a CommonJS app's startup. So an app that starts in
  // CommonJS gets them at its first sign of ES modules (onFirstEsm): before the first one loads.
  // The hooks thread of Node 20 costs ~25 ms and does not see require(esm).
  const inThreadHooks = typeof Module.registerHooks === 'function';
  const esmHooks = wantEsmHooks(inThreadHooks);
  const timedInThread = Boolean(esmHooks) && inThreadHooks; // ES modules timed by in-thread hooks
  const hooksThread = esmHooks === 'now' && !inThreadHooks ? require('./esm-hooks-thread.cjs') : null;
  const onFirstEsm = timedInThread && esmHooks === 'on-first-esm';
  // Then only, source is searched for the import keyword: it brings the hooks in, and keeps them.
  const importKeyword = onFirstEsm ? require('./import-keyword.cjs') : null;
  const seen = { modules: [], builtins: new Set(), resolutions: [], requires: [], esm: [], esmResolutions: [], esmMarks: new Map() };
  // The ES module hooks: in-thread ones once made, the hooks thread once started, the registration
  // while the hooks are in, and whether they stay in for good.
  const esm = { inThread: null, thread: null, hooks: null, keep: false };
  timeCommonJs(state, clock, seen, esm);
  recordRequires(state, seen);
  const noteEsm = (record) => {
    if (!state.recording) return;
    if (record.type === 'resolve') seen.esmResolutions.push([record.parentURL, record.specifier, record.url]);
    else seen.esm.push(record);
  };
  const registerInThread = inThreadHooks ? esmHooksInThread(state, esm, noteEsm, importKeyword) : null;
  return {
    esmTimed: () => esm.hooks !== null, // whether hooks time the ES modules loaded now (reads stand in for them otherwise)
    // Loader hooks time ES modules' resolve and load; these marks time their evaluation.
    recordEsm() {
      globalThis[Symbol.for('coldstart.esm')] = esmMarks(state, clock, seen.esmMarks, esm);
      if (timedInThread && !onFirstEsm) {
        esm.keep = true;
        registerInThread();
      } else if (hooksThread) esm.thread = hooksThread.startHooksThread();
    },
    /** Takes in the records the hooks thread sent that this thread has not read yet. */
    drainEsm() {
      if (esm.thread) esm.thread.drain(noteEsm);
    },
    records: (msSinceStart) => recorded(seen, msSinceStart),
  };
}

/** CommonJS: time resolve and load of every module, with a stack for self time. */
function timeCommonJs(state, { hrNow, cpuNow }, seen, esm) {
  let lastResolve = null;
  const origResolve = Module._resolveFilename;
  Module._resolveFilename = function coldstartResolve(request, parent, isMain, options) {
    if (!state.recording) return origResolve.apply(this, arguments);
    const t = hrNow();
    // The CPU clock is read here and where the load ends, not around each step: every reading is a
    // getrusage() of the whole process, which locks each of its running threads.
    const cpuStartUs = cpuNow();
    const filename = origResolve.apply(this, arguments);
    lastResolve = { filename, us: hrNow() - t, cpuStartUs };
    // (requesting directory, request) -> file: what `start --mode memory` replays without stats.
    // Node 22 passes { conditions } on every require; only `paths` makes a lookup special.
    if (parent && !(options && options.paths) && typeof request === 'string' && path.isAbsolute(filename)) {
      const from = parent.path || (parent.filename && path.dirname(parent.filename));
      if (from) seen.resolutions.push([from, request, filename]);
    }
    return filename;
  };

  const origModuleLoad = Module.prototype.load;
  Module.prototype.load = function coldstartModuleLoad(filename) {
    if (!state.recording) return origModuleLoad.apply(this, arguments);
    if (esm.inThread) esm.inThread.cut();
    const t0 = hrNow();
    const lr = lastResolve;
    const resolved = lr && lr.filename === filename;
    const resolveUs = resolved ? lr.us : 0;
    lastResolve = null;
    const top = state.stack[state.stack.length - 1];
    const rec = {
      file: filename, kind: kindOf(filename), parent: top ? top.file : (this.parent && this.parent.filename) || null,
      startUs: t0 - resolveUs, resolveUs, childUs: 0, endUs: 0,
      cpuUs: -(resolved ? lr.cpuStartUs : cpuNow()), // the CPU clock at its start (its resolution's), subtracted
      childCpuUs: 0,
    };
    state.stack.push(rec);
    try {
      return origModuleLoad.apply(this, arguments);
    } finally {
      state.stack.pop();
      rec.endUs = hrNow();
      rec.cpuUs += cpuNow();
      if (top) {
        top.childUs += rec.endUs - rec.startUs;
        top.childCpuUs += rec.cpuUs;
      }
      seen.modules.push(rec);
    }
  };
}

/** The built-in modules the app requires, and every require() of every file of the app. */
function recordRequires(state, seen) {
  const origLoad = Module._load;
  Module._load = function coldstartLoadRequest(request, parent) {
    if (state.recording && typeof request === 'string' && !(parent && parent.filename && parent.filename.startsWith(OWN_FILES))) {
      if (Module.isBuiltin(request)) seen.builtins.add(request.startsWith('node:') ? request : `node:${request}`);
      // Every require of every file, a module already loaded included (Node then skips resolution):
      // advice that defers a module must name each file that loads it.
      else if (parent && parent.filename) seen.requires.push([parent.filename, request]);
    }
    return origLoad.apply(this, arguments);
  };
}

/**
 * In-thread ES module hooks (Node 22.15+), kept on top of any the app registers later.
 * @param {?object} importKeyword import-keyword.cjs, where they come in at the first sign of ES modules
 * @returns {() => void} registers them (made the first time), unless they are in already
 */
function esmHooksInThread(state, esm, noteEsm, importKeyword) {
  function registerInThread() {
    if (esm.hooks) return;
    if (!esm.inThread) esm.inThread = ownModule(state, './esm-timing.cjs').esmTimingHooks(noteEsm);
    esm.hooks = registerHooks({ resolve: esm.inThread.resolve, load: loadAndWatch }); // in-thread: no hooks thread to start
  }
  // The load hook, which also sees each ES module's source: an import() in one keeps the hooks.
  function loadAndWatch(url, context, nextLoad) {
    const result = esm.inThread.load(url, context, nextLoad);
    if (!esm.keep && result && result.format === 'module' && importKeyword.mayImportLater(result.source)) esm.keep = true;
    return result;
  }
  if (importKeyword) hooksWhileEsmLoads(state, esm, registerInThread, importKeyword);
  // Hooks registered later run first: one that serves modules itself (start's preload serves them
  // from memory) would keep them from ours. Ours go back on top of any that come after them.
  const registerHooks = Module.registerHooks;
  Module.registerHooks = function registerHooksUnderTiming(theirs) {
    const registration = registerHooks.call(this, theirs);
    if (esm.hooks) { esm.hooks.deregister(); esm.hooks = null; registerInThread(); }
    return registration;
  };
  return registerInThread;
}

// CommonJS code compiled: the sign of ES modules to come. A require() of an ES module loads and
// runs its whole graph before it returns: the hooks are there for that long (a window). Code
// that may import() later (in CommonJS or in an ES module of such a graph) keeps them for good.
function hooksWhileEsmLoads(state, esm, registerInThread, { mayImport, mayImportLater }) {
  const origCompile = Module.prototype._compile;
  let windows = 0;
  Module.prototype._compile = function coldstartCompile(content, filename, format) {
    if (esm.keep || !state.recording || (format !== 'module' && !mayImport(content))) return origCompile.call(this, content, filename, format);
    const hooked = esm.hooks !== null;
    registerInThread();
    // require() of an ES module whose source the CommonJS loader read before the hooks were
    // there: their load hook's part (its record, the marks around its evaluation) done here.
    if (format === 'module' && !hooked && typeof content === 'string') {
      const url = pathToFileURL(filename).href;
      content = esm.inThread.load(url, { format, conditions: ['require'] }, () => ({ format, source: content })).source;
    }
    if (mayImportLater(content)) esm.keep = true;
    if (esm.keep) return origCompile.call(this, content, filename, format);
    windows++;
    try {
      return origCompile.call(this, content, filename, format);
    } finally {
      if (--windows === 0 && !esm.keep) {
        esm.hooks.deregister();
        esm.hooks = null;
      }
    }
  };
}

// One of the agent's own modules, loaded while the app runs (an app that never shows ES modules
// never loads it): its load, reads and requires are not the app's.
function ownModule(state, request) {
  const recording = state.recording;
  state.recording = false;
  try {
    return require(request);
  } finally {
    state.recording = recording;
  }
}

/** The marks ES modules call around their evaluation (the load hook writes them in). */
function esmMarks(state, { hrNow, cpuNow }, marks, esm) {
  return {
    enter(url) {
      if (!state.recording) return;
      if (esm.inThread) esm.inThread.cut();
      marks.set(url, { enterUs: hrNow(), leaveUs: 0, cpuUs: -cpuNow() }); // CPU too: a busy machine inflates the wall
    },
    leave(url) { const m = marks.get(url); if (m && state.recording) { m.leaveUs = hrNow(); m.cpuUs += cpuNow(); } },
  };
}

/** What was recorded, times in ms since the process started (msSinceStart). */
function recorded(seen, msSinceStart) {
  return {
    modules: seen.modules.map((m) => ({
      file: m.file, kind: m.kind, parent: m.parent, startMs: msSinceStart(m.startUs), resolveMs: m.resolveUs / 1000,
      inclusiveMs: (m.endUs - m.startUs) / 1000, childMs: m.childUs / 1000, cpuMs: m.cpuUs / 1000, childCpuMs: m.childCpuUs / 1000,
    })),
    esm: seen.esm.map((e) => {
      const mark = seen.esmMarks.get(e.url);
      return {
        ...e,
        file: fileURLToPath(e.url),
        parent: e.parentURL ? fileURLToPath(e.parentURL) : null,
        parentURL: undefined, importsUs: undefined, cpuMarkUs: undefined, // the hooks' own fields
        startMs: msSinceStart(e.startUs),
        resolveStartMs: e.resolveStartUs == null ? null : msSinceStart(e.resolveStartUs),
        loadStartMs: e.loadStartUs == null ? null : msSinceStart(e.loadStartUs),
        compiledMs: e.compiledUs == null ? null : (e.compiledUs - e.loadStartUs) / 1000,
        importWindows: e.importsUs ? e.importsUs.map(([from, to]) => [msSinceStart(from), msSinceStart(to)]) : [],
        evalStartMs: mark ? msSinceStart(mark.enterUs) : null,
        evalMs: mark && mark.leaveUs ? (mark.leaveUs - mark.enterUs) / 1000 : null, evalCpuMs: mark && mark.leaveUs ? mark.cpuUs / 1000 : null,
      };
    }),
    builtins: [...seen.builtins].sort(),
    resolutions: seen.resolutions,
    requires: seen.requires,
    esmResolutions: seen.esmResolutions.map(([parentURL, specifier, url]) => [fileURLToPath(parentURL), specifier, fileURLToPath(url)]),
  };
}

/**
 * When the ES module hooks go in: 'now', 'on-first-esm' (in-thread hooks, an app that starts in
 * CommonJS) or null (none: COLDSTART_ESM=never, or a CommonJS app on Node 20).
 */
function wantEsmHooks(inThreadHooks) {
  const mode = process.env.COLDSTART_ESM || 'auto';
  if (mode === 'always') return 'now';
  if (mode === 'never') return null;
  if (startsAsEsm()) return 'now';
  // A hooks thread costs ~25 ms on Node 20: only paid for when the app is ESM.
  return inThreadHooks ? 'on-first-esm' : null;
}

function startsAsEsm() {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS || ''].join(' ');
  if (/--(import|loader|experimental-loader)\b/.test(flags)) return true;
  if (!process.argv[1]) return false;
  // Node runs the entry's real path: a package binary's link (node_modules/.bin/x) names no extension.
  let entry = path.resolve(process.argv[1]);
  try { entry = realpathSync(entry); } catch { /* server for server.js: its package decides */ }
  if (/\.(mjs|mts)$/.test(entry)) return true;
  if (/\.(cjs|cts|json)$/.test(entry)) return false;
  // The reader pack classifies files with, given the agent's unrecorded read.
  return require('./package-type.cjs').packageTypeReader(readFileSync)(entry) === 'module';
}

function kindOf(filename) {
  if (filename.endsWith('.json')) return 'json';
  if (filename.endsWith('.node')) return 'addon';
  if (filename.endsWith('.mjs')) return 'esm'; // require(esm)
  return 'cjs';
}

module.exports = { recordModules };
