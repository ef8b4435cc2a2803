'use strict';
// Runs inside the app (loaded by agent.cjs when COLDSTART_LAZY is set): profile --verify-advice
// starts the app with some of its requires made lazy, to measure what deferring them saves. The
// require named (a requiring file and its specifier) returns a stand-in that loads the real
// module the first time anything touches it: a property read, a call, `new`, `instanceof`.
// When that happens before the ready moment, startup needed the module after all.

const LAZY_ENV = 'COLDSTART_LAZY';

/**
 * @param {string} spec JSON: [{ parent: absolute file, request: the specifier as written }]
 * @param {() => number} now ms since process start
 * @returns {{ loaded(): Array<{ parent: string, request: string, atMs: number, at: {file: string, line: number}|null, error?: string }> }}
 */
function installStandIns(spec, now) {
  const Module = require('module');
  const wanted = new Set(JSON.parse(spec).map((w) => `${w.parent}\0${w.request}`));
  const standIns = new Map();
  const loaded = [];
  const origLoad = Module._load;
  Module._load = function coldstartLazyLoad(request, parent, isMain) {
    const key = parent && !isMain ? `${parent.filename}\0${request}` : null;
    if (!key || !wanted.has(key)) return origLoad.apply(this, arguments);
    if (!standIns.has(key)) {
      const self = this;
      const args = arguments;
      let real;
      let done = false;
      standIns.set(key, standIn(() => {
        if (!done) {
          done = true;
          const rec = { parent: parent.filename, request, atMs: now(), at: touchedFrom() };
          loaded.push(rec);
          try {
            real = origLoad.apply(self, args);
          } catch (err) {
            rec.error = err && err.message;
            throw err;
          }
        }
        return real;
      }));
    }
    return standIns.get(key);
  };
  return { loaded: () => loaded };
}

/** The app's line that first touched a stand-in (skipping this file's proxy traps), or null. */
function touchedFrom() {
  try {
    const { callerSite } = require('./caller-site.cjs');
    const site = callerSite(__filename, touchedFrom);
    return site && typeof site === 'object' ? site : null;
  } catch {
    return null;
  }
}

/** A proxy for the exports load() returns, loading them at the first touch. */
function standIn(load) {
  // A function target, so the stand-in can be called and constructed like a module that exports one.
  const target = function lazyModule() {};
  const real = () => {
    const r = load();
    return r !== null && (typeof r === 'object' || typeof r === 'function') ? r : Object(r);
  };
  const proxy = new Proxy(target, {
    get: (_, key) => Reflect.get(real(), key),
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    ownKeys: () => {
      const keys = Reflect.ownKeys(real());
      return keys.includes('prototype') ? keys : [...keys, 'prototype']; // the target's own, which must be listed
    },
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(real(), key);
      // The target's `prototype` cannot be configurable; everything else is reported configurable,
      // which the proxy's rules allow for a property the target does not have.
      if (key === 'prototype') return { value: found ? found.value : target.prototype, writable: true, enumerable: false, configurable: false };
      return found && { ...found, configurable: true };
    },
    apply: (_, thisArg, args) => Reflect.apply(real(), thisArg, args),
    construct: (_, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
  });
  return proxy;
}

module.exports = { installStandIns, LAZY_ENV };
