'use strict';
// Runs inside the app during `coldstart bundle`'s first capture (NODE_OPTIONS=--require, after
// capture's own preload, before the app's preloads). It records two things bundling breaks:
// - the module names instrumentation asks require-in-the-middle / import-in-the-middle to hook
//   (OpenTelemetry's InstrumentationBase.enable() passes every InstrumentationNodeModuleDefinition
//   name to `new Hook([name])`; other tracers call Hook([...names]) themselves);
// - directories listed with readdir/opendir at startup (glob-based loading of routes or entities).
// One JSON line per event goes to COLDSTART_BUNDLE_PROBE. It never throws into the app.

const LOG = process.env.COLDSTART_BUNDLE_PROBE;
const HOOK_PACKAGES = ['require-in-the-middle', 'import-in-the-middle'];
const MAX_READDIRS = 2000;

if (LOG && !globalThis[Symbol.for('coldstart.bundleProbe')]) {
  globalThis[Symbol.for('coldstart.bundleProbe')] = true;
  try {
    install();
  } catch { /* the probe must never break the app */ }
}

function install() {
  const fs = require('fs');
  const path = require('path');
  const Module = require('module');
  const appendFileSync = fs.appendFileSync;

  const write = (event) => {
    try { appendFileSync(LOG, JSON.stringify(event) + '\n'); } catch { /* the CLI is gone */ }
  };

  // The file that asked: the first stack frame outside this probe, Node's internals and the
  // hook libraries themselves (for OpenTelemetry, the instrumentation package's own file).
  const SKIP = [__filename, `${path.sep}require-in-the-middle${path.sep}`, `${path.sep}import-in-the-middle${path.sep}`,
    `${path.sep}@opentelemetry${path.sep}instrumentation${path.sep}`];
  function caller() {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 40;
    const stack = new Error().stack || '';
    Error.stackTraceLimit = limit;
    for (const line of stack.split('\n').slice(1)) {
      const m = /\(?((?:file:\/\/)?\/[^():]+|[A-Za-z]:\\[^():]+):\d+:\d+\)?$/.exec(line.trim());
      if (!m) continue;
      const file = m[1].startsWith('file://') ? require('url').fileURLToPath(m[1]) : m[1];
      if (SKIP.some((s) => file === s || file.includes(s))) continue;
      return file;
    }
    return null;
  }

  function wrapHook(orig) {
    if (typeof orig !== 'function' || orig.__coldstartProbe) return orig;
    function coldstartHook(modules) {
      if (Array.isArray(modules)) {
        const names = modules.filter((m) => typeof m === 'string');
        if (names.length) write({ type: 'hook', modules: names, by: caller() });
      }
      return new.target ? Reflect.construct(orig, arguments) : orig.apply(this, arguments);
    }
    for (const key of Object.keys(orig)) coldstartHook[key] = orig[key];
    coldstartHook.prototype = orig.prototype;
    coldstartHook.__coldstartProbe = true;
    if (orig.Hook === orig) coldstartHook.Hook = coldstartHook;
    else if (typeof orig.Hook === 'function') coldstartHook.Hook = wrapHook(orig.Hook);
    return coldstartHook;
  }

  const isHookLibrary = (filename) => HOOK_PACKAGES.some((name) =>
    filename.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`));

  // Wrap the hook library's exports when it loads: `module.exports = Hook; module.exports.Hook = Hook`.
  const origLoad = Module.prototype.load;
  Module.prototype.load = function coldstartProbeLoad(filename) {
    const out = origLoad.apply(this, arguments);
    try {
      if (typeof filename === 'string' && isHookLibrary(filename)) {
        const exp = this.exports;
        if (typeof exp === 'function' && (exp.Hook === exp || exp.Hook === undefined)) this.exports = wrapHook(exp);
        else if (exp && typeof exp.Hook === 'function') exp.Hook = wrapHook(exp.Hook);
      }
    } catch { /* leave the library as it is */ }
    return out;
  };

  let readdirs = 0;
  const noteDir = (dir) => {
    if (readdirs >= MAX_READDIRS) return;
    let abs = null;
    if (typeof dir === 'string') abs = path.resolve(dir);
    else if (Buffer.isBuffer(dir)) abs = path.resolve(dir.toString());
    else if (dir instanceof URL && dir.protocol === 'file:') abs = require('url').fileURLToPath(dir);
    if (!abs) return;
    readdirs++;
    write({ type: 'readdir', dir: abs, by: caller() });
  };
  const wrapList = (obj, name) => {
    const orig = obj[name];
    if (typeof orig !== 'function') return;
    obj[name] = function (dir) {
      try { noteDir(dir); } catch { /* never the app's problem */ }
      return orig.apply(this, arguments);
    };
    Object.defineProperty(obj[name], 'name', { value: name });
  };
  for (const name of ['readdirSync', 'readdir', 'opendirSync', 'opendir']) wrapList(fs, name);
  for (const name of ['readdir', 'opendir']) wrapList(fs.promises, name);
}
