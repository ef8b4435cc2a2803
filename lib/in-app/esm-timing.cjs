'use strict';
// The ES module loader hooks that time every resolve and load and mark each module's
// evaluation, written once for both ways Node runs hooks: module.registerHooks (Node 22.15+,
// 24, 26: synchronous, on the app's own thread, no cost to start) and module.register (Node 20:
// asynchronous, on a hooks thread that costs ~25 ms to start; see esm-hooks.mjs). Each next*()
// gives a value or a promise of one; the hooks answer in kind. Records go to `send`, with URLs: the
// agent turns them into paths when it hands the records over, after the ready moment, not while
// the app loads.
//
// The marks name their module by its URL written in, not by import.meta.url: reading import.meta
// makes Node build the module's import.meta (its filename, dirname and resolve()), work the
// module itself may never ask for.
const enterMark = (url) => `globalThis[Symbol.for("coldstart.esm")]?.enter(${JSON.stringify(url)});`;
const leaveMark = (url) => `\n;globalThis[Symbol.for("coldstart.esm")]?.leave(${JSON.stringify(url)});\n`;

const then = (value, fn) => (value && typeof value.then === 'function' ? value.then(fn) : fn(value));

/**
 * @param {(record: object) => void} send a resolution ({type: 'resolve', parentURL, specifier, url})
 *   or a loaded module ({url, format, parentURL, startUs, resolveStartUs, resolveMs, loadStartUs,
 *   loadMs, bytes, thread, required})
 * @param {'main'|'hooks'} thread where the hooks run: on the app's thread their resolve and load
 *   windows are the app's time; on the hooks thread they overlap the app's work and are not
 * @returns {{ resolve: Function, load: Function, cut: () => void }} cut: the app's thread moved on
 *   (a module's evaluation or a CommonJS load began): the module loaded last is compiled
 */
function esmTimingHooks(send, thread = 'main') {
  const now = () => Number(process.hrtime.bigint() / 1000n); // µs, the CPU profile's clock
  // On the app's thread each window is also timed on the CPU clock (µs): a busy machine's wait is
  // not the module's own time. On the hooks thread the process's clock is the app's work too.
  const cpu = thread === 'main' ? () => { const u = process.cpuUsage(); return u.user + u.system; } : () => 0;
  const parents = new Map(); // url -> parentURL of its first importer
  const resolveTimes = new Map(); // url -> [start, duration, CPU] of its first resolution (µs)
  const loaded = new Map(); // url -> its record, on the app's thread
  // On the app's thread, what follows a module's load until the loader's next step is its
  // compilation (and the loader's own work on it): the module's time too.
  let compiling = null;
  const cut = () => {
    if (compiling) {
      compiling.compiledUs = now();
      compiling.fetchCpuUs += cpu() - compiling.cpuMarkUs;
    }
    compiling = null;
  };
  return {
    cut,
    resolve(specifier, context, nextResolve) {
      cut();
      // In-thread hooks see require() too: what it loads is timed by the agent's loader patches.
      if (context.conditions && context.conditions.includes('require')) return nextResolve(specifier, context);
      const t = now();
      const c = cpu();
      // On the app's thread, resolving an import is the importing module's work, every time.
      const importer = thread === 'main' ? loaded.get(context.parentURL) : undefined;
      return then(nextResolve(specifier, context), (result) => {
        if (importer) {
          importer.importsUs.push([t, now()]);
          importer.fetchCpuUs += cpu() - c;
        }
        // (importing file, specifier) -> file: what `start --mode memory` replays without stats.
        if (result && result.url && result.url.startsWith('file:') && context.parentURL && context.parentURL.startsWith('file:')) {
          send({ type: 'resolve', parentURL: context.parentURL, specifier, url: result.url });
        }
        if (result && result.url && !parents.has(result.url)) {
          parents.set(result.url, context.parentURL || null);
          resolveTimes.set(result.url, [t, importer ? 0 : now() - t, importer ? 0 : cpu() - c]);
        }
        return result;
      });
    },
    load(url, context, nextLoad) {
      // require() of CommonJS is timed by the agent's loader patches; require() of an ES module
      // (require(esm), the top of a synchronously loaded graph) is marked here like any ES module.
      const required = Boolean(context.conditions && context.conditions.includes('require'));
      cut();
      const t = now();
      const c = cpu();
      return then(nextLoad(url, context), (result) => {
        const end = now();
        const cpuEnd = cpu();
        if (!url.startsWith('file:') || (required && (!result || result.format !== 'module'))) return result;
        let source = result.source;
        let bytes = 0;
        if (source != null) bytes = typeof source === 'string' ? Buffer.byteLength(source) : source.byteLength;
        if (result.format === 'module' && source != null) {
          // Read in place, not copied (Buffer.from of a Uint8Array copies it).
          const text = typeof source === 'string' ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8');
          // A shebang must stay first: such a module is timed without its evaluation.
          if (!text.startsWith('#!')) source = enterMark(url) + text + leaveMark(url);
        }
        const parentURL = parents.get(url) || null;
        const [resolveStartUs, resolveUs, resolveCpuUs] = resolveTimes.get(url) || [t, 0, 0];
        const record = {
          url,
          format: result.format,
          parentURL: parentURL && parentURL.startsWith('file:') ? parentURL : null,
          startUs: Math.min(resolveStartUs, t),
          resolveStartUs,
          resolveMs: resolveUs / 1000,
          loadStartUs: t,
          loadMs: (end - t) / 1000,
          bytes,
          thread,
          required,
          compiledUs: null, // set by the next cut(): in-thread hooks share the record with the agent
          importsUs: [], // [start, end] of each resolution of its imports, on the app's thread
          fetchCpuUs: resolveCpuUs + cpuEnd - c, // CPU in its resolve, load, compile and imports' resolutions (main thread)
          cpuMarkUs: cpuEnd,
        };
        if (thread === 'main') {
          compiling = record;
          loaded.set(url, record);
        }
        send(record);
        return source === result.source ? result : { ...result, source };
      });
    },
  };
}

module.exports = { esmTimingHooks };
