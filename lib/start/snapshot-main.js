'use strict';
// `pack --snapshot-blob`: run by `node --build-snapshot` (lib/pack/make-snapshot.js), it evaluates the
// app's CommonJS startup modules (all but the entry) into the heap that V8 keeps in the snapshot,
// and sets what runs when `node --snapshot-blob FILE entry.js` starts: the archive's files and
// resolutions served from memory as `coldstart start` does (from the snapshot itself), those
// modules put into require.cache as the Module objects Node would have made, then the entry. The
// modules then are evaluated already: nothing of theirs is read, compiled or run again. Each was
// compiled as its own script under its real file name, so stack traces, __filename,
// require.resolve and require.cache are what a plain start shows.
//
// Node's snapshot builder lends this script a require() for built-in modules only, and its CJS
// loader must not load anything before the snapshot is taken (the deserialised process would fail
// an assertion): the app's modules are evaluated here by a loader of our own, over the
// resolutions pack recorded, and become Module objects only after deserialisation.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const v8 = require('node:v8');

// Async resources a snapshot holds: promises, process.nextTick, the resolver node:dns makes once.
const BENIGN = new Set(['PROMISE', 'TickObject', 'Microtask', 'DNSCHANNEL']);
// Built-in modules Node's snapshot builder cannot hold (Node 20-26: the build aborts, or they
// throw in it). A module that requires one gets a stand-in that becomes the real module once
// the snapshot is deserialised; a module that uses it while it loads is left to load at start.
const NOT_IN_SNAPSHOT = new Set(['http', 'https', 'tls', 'http2']);
// Work the loads started may run to its end before the snapshot is taken; still going after this
// long, it is taken for work that never ends (a server, an interval).
const STILL_GOING_MS = 1000;
const IMPORTED = Symbol('imported by an ES module');

/**
 * Why a module is not in the snapshot. Not fatal: the module, and every module that was loading
 * it, load at start instead. Fatal: no snapshot can be made (work already started, a cycle).
 */
class Refusal extends Error {
  constructor(file, reason, fatal = false) {
    super(reason);
    this.file = file;
    this.fatal = fatal;
  }
}

// The snapshot builder's require(), for built-in modules only (the modules' own require() is named so too).
const builderRequire = require;

function build() {
  const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')); // written by lib/pack/make-snapshot.js
  // What a module reads of process.argv while it loads is what the app's start gives it.
  process.argv = plan.argv;
  const b = buildState(plan);
  const work = watchWork(b);
  const restoreLoader = guardLoader(b.Module, (what) => new Refusal(b.loading, `calls ${what} while it loads: Node's loader cannot be used before the snapshot is taken`));
  b.parseFacade = b.own.require('./esm-facade.js').parseFacade;
  evaluateStartup(b);
  // Every file of the archive as it was when these modules were evaluated: at start one stat
  // each says whether the snapshot (and the archive) still tells the truth.
  plan.stats = plan.files.map((rel) => {
    const st = fs.statSync(b.abs(rel));
    return [rel, st.size, st.mtimeMs];
  });
  plan.served = servedFiles(plan, b.records);
  for (const file of OWN_START_CODE) b.own.require(file);
  plan.own = b.own;
  // Modules left out after their code began to run: another pass, without them from the start.
  if (b.begunThenLeft.length) done(plan, { again: [...b.leftOut] }, 4);
  done(plan, { evaluated: b.records.size, leftOut: [...b.leftOut] });
  whenSnapshotTaken(b, work, restoreLoader);
}

/** One build's state: the plan, what its modules resolve to, the modules evaluated so far and why others load at start. */
function buildState(plan) {
  const Module = require('node:module');
  const requireOf = new WeakMap(); // module -> the require() it was given
  const esmResolutions = new Map((plan.esmResolutions || []).map(([from, specifier, to]) => [`${from}\0${specifier}`, to]));
  // Modules the startup reached only through import (an import() of a CommonJS file): no parent.
  const importedOnly = new Set(esmResolutions.values());
  for (const [, , to] of plan.resolutions) importedOnly.delete(to);
  return {
    plan, abs: (rel) => path.join(plan.root, rel), builtins: new Set(plan.builtins), esmResolutions, importedOnly,
    resolutions: new Map(plan.resolutions.map(([from, request, to]) => [`${from}\0${request}`, to])),
    records: new Map(), // rel -> { module, live, tainted }
    // Modules an earlier pass left out are not evaluated at all: what a module did before it was
    // refused would stay in the heap and be done again when it loads at start.
    leftOut: new Map(plan.leftOut || []), // rel -> why it loads at start
    begunThenLeft: [], // modules left out after their code had begun to run
    handedUnfinished: new Set(), // modules whose unfinished exports another module got (a cycle)
    loading: null, // the module being evaluated
    live: false, // deserialised: the stand-ins and the modules' require() are Node's from then on
    buildCache: Object.create(null), // what require.cache shows a module while it is built
    buildExtensions: Object.freeze({ '.js': null, '.json': null, '.node': null }), // a hook registered now would be lost
    entryStandIn: { id: '.', filename: plan.entry, path: path.dirname(plan.entry), loaded: false, children: [] },
    own: ownCode(plan, require),
    // While they load the modules are Modules, as Node makes them (instanceof, constructor, paths),
    // with our require() as module.require; Node's loader itself refuses until the snapshot is taken.
    Module, requireOf,
    buildProto: Object.create(Module.prototype, {
      require: { value: function require(request) { return requireOf.get(this)(request); }, writable: true, configurable: true },
    }),
    parseFacade: null, // esm-facade.js's, evaluated into the snapshot
    standIns: new Map(), // built-in module name -> its stand-in
  };
}

// Work a module starts while it loads (a timer, a socket) and that is still going when the
// snapshot is taken would not survive into it, even unref'd: seen through async hooks, which
// see every kind of it, each traced to the module whose load started it.
function watchWork(b) {
  const owners = new Map(); // asyncId -> the module that started it, directly or through a callback
  const going = new Map(); // asyncId -> { type, rel }: not ended yet
  const hook = require('node:async_hooks').createHook({
    init(asyncId, type, triggerAsyncId) {
      const rel = b.loading || owners.get(triggerAsyncId);
      if (!rel) return;
      owners.set(asyncId, rel);
      if (!BENIGN.has(type)) going.set(asyncId, { type, rel });
    },
    destroy(asyncId) {
      owners.delete(asyncId);
      going.delete(asyncId);
    },
  }).enable();
  return { hook, going };
}

/** Evaluates the startup's modules in the plan's order; those refused are left to load at start. */
function evaluateStartup(b) {
  const { plan } = b;
  // The builder runs without stack traces (Node gives the limit back after deserialisation);
  // modules that read their caller from the stack at load (depd) need them as at a plain start.
  const stackTraceLimit = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
  Error.stackTraceLimit = 10;
  for (const rel of plan.modules) {
    try {
      load(b, rel, null);
    } catch (err) {
      if (err instanceof Refusal && !err.fatal) continue; // left to load at start, with its reason
      const refusal = err instanceof Refusal ? err : new Refusal(rel, `threw while it loads: ${err && err.message}`);
      done(plan, { refused: { file: refusal.file, reason: refusal.message } }, 3);
    }
  }
  if (stackTraceLimit) Object.defineProperty(Error, 'stackTraceLimit', stackTraceLimit);
  else delete Error.stackTraceLimit;
  if (!b.records.size) {
    const [file, reason] = [...b.leftOut][0] || [null, ''];
    done(plan, { refused: { file, reason: `${reason}${reason ? ', and ' : ''}no other startup module can be evaluated ahead of the start` } }, 3);
  }
}

/** The build's answer to make-snapshot.js, in plan.result; with a code, the build ends here. */
function done(plan, result, code) {
  fs.writeFileSync(plan.result, JSON.stringify(result));
  if (code !== undefined) process.exit(code);
}

// Node takes the snapshot once the event loop is empty: what the loads started has ended by
// then, or is still going and cannot be in it: unref'd (seen as the snapshot is taken), or
// keeping the loop alive (an interval, a server: seen a second after the loads).
function whenSnapshotTaken(b, { hook, going }, restoreLoader) {
  const refuseGoing = () => {
    if (!going.size) return;
    const [{ rel }] = going.values();
    const kinds = [...new Set([...going.values()].filter((g) => g.rel === rel).map((g) => g.type))].join(', ');
    done(b.plan, { refused: { file: rel, reason: `starts work while it loads (${kinds}) that is still going when the snapshot is taken, which a snapshot cannot carry over` } }, 3);
  };
  setTimeout(refuseGoing, STILL_GOING_MS).unref();
  v8.startupSnapshot.addSerializeCallback(() => {
    hook.disable();
    refuseGoing();
    restoreLoader();
    asNodeModules(b.records, b.plan.entry);
  });
  v8.startupSnapshot.setDeserializeMainFunction(() => {
    b.live = true;
    start(b.plan, b.records);
  });
}

// parent: the rel of the module whose require() loads it; null for the entry; IMPORTED for a
// module an ES module facade imports (Node gives those no parent).
function load(b, rel, parent) {
  const { plan, records, leftOut } = b;
  const known = records.get(rel);
  if (known) {
    if (!known.module.loaded) b.handedUnfinished.add(rel);
    if (typeof parent === 'string') addChild(records.get(parent).module, known.module);
    return known.module.exports;
  }
  if (leftOut.has(rel)) throw new Refusal(rel, leftOut.get(rel));
  const format = plan.formats[rel];
  const facade = format === 'module' && parent !== IMPORTED ? b.parseFacade(fs.readFileSync(b.abs(rel), 'utf8')) : null;
  if (format !== 'commonjs' && format !== 'json' && !facade) {
    const reason = format === 'addon' ? 'is a native addon' : 'is an ES module';
    leftOut.set(rel, reason);
    throw new Refusal(rel, reason);
  }
  const filename = b.abs(rel);
  // parent: the module that loaded it first, the entry for those the entry loads (a module that
  // takes a missing parent for "I am the main module" would run as one).
  const byImport = parent === IMPORTED || (parent === null && b.importedOnly.has(rel));
  const parentModule = byImport ? undefined : parent ? records.get(parent).module : b.entryStandIn;
  const module = Object.setPrototypeOf({ id: filename, filename, path: path.dirname(filename), exports: {}, loaded: false, children: [], parent: parentModule }, b.buildProto);
  lazyPaths(module, b.Module);
  const record = { module, live: null, tainted: false };
  records.set(rel, record);
  if (parentModule) addChild(parentModule, module); // as Node does, before the child runs
  try {
    if (facade) evaluateFacade(b, rel, record, facade);
    else evaluate(b, rel, record);
    // A refusal the module caught (an optional require) left it built on a wrong answer.
    if (record.tainted) throw new Refusal(rel, `requires ${record.tainted}, which loads at start`);
  } catch (err) {
    records.delete(rel);
    if (parentModule) parentModule.children.splice(parentModule.children.indexOf(module), 1);
    const refusal = err instanceof Refusal ? err : new Refusal(rel, `throws while it loads at pack time: ${err && err.message}`);
    if (refusal.fatal) throw refusal;
    b.begunThenLeft.push(rel);
    leftOut.set(rel, refusal.file === rel ? refusal.message : `requires ${record.tainted || refusal.file}, which loads at start`);
    if (b.handedUnfinished.has(rel)) throw new Refusal(rel, 'is in a require cycle and loads at start', true);
    throw refusal;
  }
  return module.exports;
}

function addChild(parentModule, child) {
  if (!parentModule.children.includes(child)) parentModule.children.push(child);
}

function evaluate(b, rel, { module }) {
  const { plan } = b;
  const [head, tail] = plan.wrapper;
  const { filename } = module;
  const source = fs.readFileSync(filename, 'utf8');
  if (plan.formats[rel] === 'json') {
    module.exports = JSON.parse(source.replace(/^\uFEFF/, ''));
  } else {
    // The columns of line 1 as Node's own wrapper leaves them (lib/start/code-cache.js).
    // import() needs Node's loader behind the script; Node warns the first time one is used.
    const dynamicImport = /\bimport\s*\(/.test(source);
    plan.dynamicImport = plan.dynamicImport || dynamicImport;
    const script = new vm.Script(head + source + tail, {
      filename, columnOffset: -head.length, importModuleDynamically: dynamicImport ? vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER : undefined,
    });
    const fn = script.runInThisContext({ displayErrors: true });
    const outer = b.loading;
    b.loading = rel;
    try {
      const moduleRequire = buildRequire(b, rel, b.records.get(rel));
      b.requireOf.set(module, moduleRequire);
      fn.call(module.exports, module.exports, moduleRequire, module, filename, module.path);
    } finally {
      b.loading = outer;
    }
  }
  module.loaded = true;
}

// What require() of an ES module facade gives, as Node does it: the binding it exports as
// 'module.exports', from the modules it imports (loaded here in their order, without a parent).
function evaluateFacade(b, rel, { module }, facade) {
  const binding = facade.exports.get('module.exports');
  if (!binding) throw new Refusal(rel, 'is an ES module (require() of it gives its namespace, which a snapshot cannot stand in for)');
  const imported = new Map(); // specifier -> the CommonJS module's exports
  for (const { specifier } of facade.imports) {
    if (imported.has(specifier)) continue;
    const to = specifier.startsWith('./') || specifier.startsWith('../')
      ? path.posix.normalize(path.posix.join(path.posix.dirname(rel), specifier)) : b.esmResolutions.get(`${rel}\0${specifier}`);
    const format = to && b.plan.formats[to];
    if (format !== 'commonjs' && format !== 'json') throw new Refusal(rel, `imports ${specifier}, which is not a CommonJS module of the startup`);
    imported.set(specifier, load(b, to, IMPORTED));
  }
  // Imported from CommonJS: the default (and 'module.exports') is module.exports, a name its property.
  const fromCjs = (exports, name) => (name === 'default' || name === 'module.exports' ? exports : exports[name]);
  let value;
  if ('local' in binding) {
    const from = facade.imports.find(({ names }) => names.some(([, local]) => local === binding.local));
    const [name] = from.names.find(([, local]) => local === binding.local);
    value = fromCjs(imported.get(from.specifier), name);
  } else {
    value = fromCjs(imported.get(binding.specifier), binding.imported);
  }
  module.exports = value;
  module.loaded = true;
}

// The require() a module keeps: ours while the snapshot is built, Node's once it is deserialised.
function buildRequire(b, rel, record) {
  const dir = path.posix.dirname(rel);
  const bare = (request) => (request.startsWith('node:') ? request.slice(5) : request);
  const isBuiltin = (request) => b.builtins.has(request) || request.startsWith('node:');
  function require(request) {
    if (record.live) return record.live.require(request);
    const to = b.resolutions.get(`${dir}\0${request}`);
    if (to) {
      try {
        return load(b, to, rel);
      } catch (err) {
        if (err instanceof Refusal && !err.fatal) record.tainted = to;
        throw err;
      }
    }
    if (NOT_IN_SNAPSHOT.has(bare(request))) return standIn(b, bare(request));
    if (isBuiltin(request)) return builderRequire(request);
    // Not loaded at startup: the app's start survived this require failing (an optional package).
    const err = new Error(`Cannot find module '${request}'`);
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  }
  // Node records require.resolve() at startup like require(): the same answers here.
  require.resolve = (request, options) => {
    if (record.live) return record.live.constructor._resolveFilename(request, record.live, false, options);
    const to = !options && b.resolutions.get(`${dir}\0${request}`);
    if (to) return b.abs(to);
    if (isBuiltin(request)) return request;
    record.tainted = request;
    throw new Refusal(rel, `calls require.resolve('${request}') while it loads, which the startup run did not record`);
  };
  require.resolve.paths = (request) => {
    if (record.live) return record.live.constructor._resolveLookupPaths(request, record.live);
    record.tainted = request;
    throw new Refusal(rel, `calls require.resolve.paths('${request}') while it loads`);
  };
  Object.defineProperties(require, {
    cache: { get: () => (record.live ? record.live.constructor._cache : b.buildCache), enumerable: true },
    main: { get: () => (record.live ? process.mainModule : b.entryStandIn), enumerable: true },
    extensions: { get: () => (record.live ? record.live.constructor._extensions : b.buildExtensions), enumerable: true },
  });
  return require;
}

// One stand-in per built-in module Node cannot snapshot: after deserialisation every use goes
// to the real module (patched by an APM agent or not); before it, a use means the module that
// is loading needs it now, and loads at start instead.
function standIn(b, name) {
  if (b.standIns.has(name)) return b.standIns.get(name);
  const { plan } = b;
  let real = null;
  const refuse = (what) => {
    const rel = b.loading;
    if (rel && b.records.has(rel)) b.records.get(rel).tainted = name;
    throw new Refusal(rel, `${what} while it loads, which Node cannot put in a snapshot`);
  };
  const target = () => {
    if (b.live) return real || (real = builderRequire(name));
    return refuse(`uses node:${name}`);
  };
  const tables = new Map();
  const proxy = new Proxy({}, {
    get: (_, key) => {
      if (b.live || !Object.hasOwn(plan.builtinTables[name] || {}, key)) return Reflect.get(target(), key);
      if (!tables.has(key)) tables.set(key, tableStandIn(b, plan.builtinTables[name][key], () => target()[key], () => refuse(`changes node:${name}.${key}`)));
      return tables.get(key);
    },
    has: (_, key) => Reflect.has(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, value),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(target(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(target(), key),
  });
  b.standIns.set(name, proxy);
  return proxy;
}

// A table of constants of one of them (plan.builtinTables, which pack read from this Node):
// modules read them while they load (express: http.METHODS, googleapis: http2.constants).
// Read-only while the snapshot is built; once it is deserialised every operation goes to the
// real table, and since what a Proxy says of keys and descriptors must agree with its target,
// the copy is first made equal to the table.
function tableStandIn(b, copy, realTable, refuse) {
  const mirror = () => {
    const real = realTable();
    for (const key of Reflect.ownKeys(copy)) if (!Object.hasOwn(real, key)) Reflect.deleteProperty(copy, key);
    for (const key of Reflect.ownKeys(real)) Reflect.defineProperty(copy, key, Reflect.getOwnPropertyDescriptor(real, key));
    if (!Object.isExtensible(real)) Object.preventExtensions(copy);
    return real;
  };
  const change = (op) => (table, ...args) => {
    if (!b.live) return refuse();
    const done = Reflect[op](realTable(), ...args);
    mirror();
    return done;
  };
  const read = (op) => (table, ...args) => {
    if (b.live) mirror();
    return Reflect[op](table, ...args);
  };
  return new Proxy(copy, {
    get: (table, key) => Reflect.get(b.live ? realTable() : table, key),
    has: (table, key) => Reflect.has(b.live ? realTable() : table, key),
    set: (table, key, value) => change('set')(table, key, value),
    defineProperty: change('defineProperty'),
    deleteProperty: change('deleteProperty'),
    preventExtensions: change('preventExtensions'),
    ownKeys: read('ownKeys'),
    getOwnPropertyDescriptor: read('getOwnPropertyDescriptor'),
    isExtensible: read('isExtensible'),
  });
}

/**
 * The archive's files as they are now, kept in the snapshot itself so that the archive is not
 * read at start: the resolutions are answered for every one of them, and the files no module
 * here stands for (the entry, the modules left to load at start, files read at startup) are
 * served; with the code cache of those modules.
 */
function servedFiles(plan, records) {
  // A module evaluated here is in require.cache at start; its bytes are read (from disk, checked
  // with the rest) only if something takes it out of the cache and loads it again.
  const files = new Map(plan.files.map((rel) => [rel, records.has(rel) ? null : fs.readFileSync(path.join(plan.root, rel))]));
  let codeCache = null;
  if (plan.codeCache) {
    const blob = fs.readFileSync(plan.codeCache.file);
    const parts = [];
    const entries = {};
    let offset = 0;
    for (const [rel, [at, length]] of Object.entries(plan.codeCache.entries)) {
      if (records.has(rel)) continue;
      entries[rel] = [offset, length];
      parts.push(blob.subarray(at, at + length));
      offset += length;
    }
    codeCache = { blob: Buffer.concat(parts), entries };
  }
  delete plan.codeCache;
  // The ES modules it holds are in require.cache: no loader hooks at start for them.
  const formats = Object.fromEntries(Object.entries(plan.formats).filter(([rel, format]) => format !== 'module' || !records.has(rel)));
  return { files, codeCache, formats };
}

// coldstart's files the start needs at once, evaluated here as the app's modules are: at start
// they are in the heap, with nothing to find, read or compile. Any other file of ours (needed
// only to warn or report) is loaded by Node when asked for.
const OWN_START_CODE = ['./memory-loader.js', '../archive-format.js', './code-cache.js'];

/**
 * A require() for coldstart's own files, here in the builder (whose require() loads built-in
 * modules only): what is required while the snapshot is built is evaluated into it; once it is
 * deserialised, Node loads anything else.
 */
function ownCode(plan, builderRequire) {
  const [head, tail] = plan.wrapper;
  const evaluated = new Map(); // absolute file -> module
  const requireFrom = (file) => (id) => {
    if (!id.startsWith('.')) return builderRequire(id); // built-in
    const target = path.resolve(path.dirname(file), id);
    if (evaluated.has(target)) return evaluated.get(target).exports;
    if (!v8.startupSnapshot.isBuildingSnapshot()) return require('node:module').createRequire(file)(id);
    const module = { exports: {}, filename: target };
    evaluated.set(target, module);
    const fn = new vm.Script(head + fs.readFileSync(target, 'utf8') + tail, { filename: target }).runInThisContext();
    fn.call(module.exports, module.exports, requireFrom(target), module, target, path.dirname(target));
    return module.exports;
  };
  return { require: requireFrom(path.join(plan.lib, 'start', 'snapshot-main.js')) };
}

// The deserialised process: checks the files, serves the archive, hands the modules to Node.
function start(plan, records) {
  const Module = require('node:module');
  // The launcher's file only when there is something to say or the archive to read.
  const launcher = () => plan.own.require('./launcher.js');
  const warn = (message) => launcher().warn(message);
  if (plan.dynamicImport) plan.own.require('./code-cache.js').keepLoaderWarningOff();
  // `node --snapshot-blob FILE` alone starts the entry the snapshot was made for.
  const entry = process.argv[1] ? path.resolve(process.argv[1]) : plan.entry;
  const checked = process.env.COLDSTART_VERIFY === 'none' ? null : { files: 0, trees: [] };
  const stale = plan.entry === entry && checked ? staleFile(plan, checked) : null;
  const usable = plan.entry === entry && !stale;
  if (!usable) {
    const why = plan.entry !== entry ? `the snapshot was made for ${plan.entry}, not ${entry}`
      : `${stale.rel} ${stale.missing ? 'is missing' : 'changed'} on disk since the snapshot was made (re-run coldstart pack --snapshot-blob)`;
    withoutSnapshot(why, entry, warn);
  }
  // The rest of the startup files (the entry, files read at startup) and every resolution come
  // from memory, as under `coldstart start`: from the snapshot itself when it is used (checked
  // above), else from the archive, each file checked against the disk.
  if (usable) {
    const { files, codeCache, formats } = plan.served;
    const { readFileSync } = fs; // before the memory loader serves it
    const get = (rel) => {
      const data = files.get(rel);
      return data === null ? readFileSync(path.join(plan.root, rel)) : data;
    };
    const view = { has: (rel) => files.has(rel), get };
    plan.own.require('./memory-loader.js').installMemoryLoader({
      root: plan.root, archive: plan.archive, files: view, verify: 'none', checked, report: process.env.COLDSTART_REPORT, warn, mode: 'snapshot',
      index: { resolutions: plan.resolutions, formats, codeCache: codeCache && { entries: codeCache.entries } },
      codeCache: codeCache && codeCache.blob,
    });
  } else {
    plan.own.require('./memory-loader.js').loadIntoMemory({
      root: plan.root, archive: plan.archive, verify: 'size', report: process.env.COLDSTART_REPORT,
      quiet: true, started: performance.now(), warn, warnRefused: () => {}, writeLine: launcher().writeLine,
    });
  }
  // coldstart's own files are not the app's: out of require.cache, as a plain start has them.
  const ours = plan.lib + path.sep;
  for (const file of Object.keys(Module._cache)) if (file.startsWith(ours)) delete Module._cache[file];
  if (usable) {
    for (const record of records.values()) {
      Module._cache[record.module.filename] = record.module;
      record.live = record.module;
    }
  }
  process.argv[1] = entry;
  Module.runMain(entry);
}

/**
 * The snapshot's modules ran at pack time, and what they did to this process (globals, listeners)
 * is here: a plain start needs a fresh process. Where Node can replace this one (process.execve,
 * 22.15 and later), node starts the entry again without the snapshot; elsewhere the app starts
 * here, with the files from the archive, and the warning says what may be doubled.
 */
function withoutSnapshot(why, entry, warn) {
  if (typeof process.execve !== 'function') {
    warn(`${why}; starting the app without it, in this process, where the snapshot's modules already ran once (global effects they have may be doubled)`);
    return;
  }
  warn(`${why}; starting the app without it`);
  const execArgv = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const flag = process.execArgv[i];
    if (flag === '--snapshot-blob') i++;
    else if (!flag.startsWith('--snapshot-blob=')) execArgv.push(flag);
  }
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {}; // execve's "experimental" line is ours, not the app's
  try {
    process.execve(process.execPath, [process.execPath, ...execArgv, entry, ...process.argv.slice(2)], process.env);
  } finally {
    process.emitWarning = emitWarning; // only reached when execve could not replace the process
  }
}

/**
 * The evaluated modules made what Node's loader makes, once no code of theirs runs before the
 * snapshot is taken (a Module's own require() would load files now): at start they only go
 * into require.cache.
 */
function asNodeModules(records, entry) {
  const Module = require('node:module');
  for (const { module } of records.values()) {
    Object.setPrototypeOf(module, Module.prototype);
    if (!module.parent) continue; // imported by an ES module: Node gives it none
    // The module that loaded it first, as it is then: the entry, or a module that loads at start.
    const parentFile = module.parent.filename;
    Object.defineProperty(module, 'parent', {
      configurable: true,
      enumerable: true,
      get: () => (parentFile === entry ? process.mainModule : Module._cache[parentFile]),
      set(value) { Object.defineProperty(module, 'parent', { value, writable: true, configurable: true, enumerable: true }); },
    });
  }
}

/**
 * Node's loader refusing while the snapshot is built: a module that loads a file through it
 * (module.constructor._load, new module.constructor()._compile) is left to load at start.
 * @returns {() => void} puts Node's functions back, before the snapshot is taken
 */
function guardLoader(Module, refusal) {
  const guarded = [[Module, '_load'], [Module, '_resolveFilename'], [Module.prototype, 'load'], [Module.prototype, '_compile']];
  const originals = guarded.map(([owner, name]) => owner[name]);
  for (const [owner, name] of guarded) {
    owner[name] = function refused() { throw refusal(`Module${owner === Module ? '' : '.prototype'}.${name}()`); };
  }
  return () => guarded.forEach(([owner, name], i) => { owner[name] = originals[i]; });
}

// module.paths, worked out when first read: a module whose requires all resolve from the index
// never needs its node_modules lookup paths.
function lazyPaths(module, Module) {
  Object.defineProperty(module, 'paths', {
    configurable: true,
    enumerable: true,
    get() {
      const paths = Module._nodeModulePaths(module.path);
      Object.defineProperty(module, 'paths', { value: paths, writable: true, configurable: true, enumerable: true });
      return paths;
    },
    set(value) {
      Object.defineProperty(module, 'paths', { value, writable: true, configurable: true, enumerable: true });
    },
  });
}

/**
 * The first file of the archive whose size or modification time is not what it was when the
 * snapshot was made, and whether it is gone; null when all are. What it read is counted in
 * `checked` (the startup report's).
 * A node_modules tree is checked by its install record (lib/start/install-check.js): while it
 * holds, the tree's files are as installed; once it moved, the snapshot (whose modules hold
 * where each request into the tree led) is left aside.
 */
function staleFile(plan, checked) {
  const { fileHolds, installTreeOf } = plan.own.require('../archive-format.js');
  const stat = (rel) => fs.statSync(path.join(plan.root, rel), { throwIfNoEntry: false });
  for (const [tree, record, size, mtimeMs] of plan.installRecords) {
    const st = stat(record);
    const held = fileHolds(st, size, mtimeMs);
    checked.trees.push({ tree, record, held });
    if (!held) return { rel: record, missing: !st };
  }
  const installed = new Set(plan.installRecords.map(([tree]) => tree));
  for (const [rel, size, mtimeMs] of plan.stats) {
    if (installed.size && installed.has(installTreeOf(rel))) continue;
    const st = stat(rel);
    checked.files++;
    if (!fileHolds(st, size, mtimeMs)) return { rel, missing: !st };
  }
  return null;
}

if (v8.startupSnapshot.isBuildingSnapshot()) build();
