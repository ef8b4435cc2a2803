'use strict';
// The ES module loader hooks that time every resolve and load and mark each module's
// evaluation, written once for both ways Node runs hooks: module.registerHooks (Node 22.15+,
// 24, 26: synchronous, on the app's own thread, no cost to start) and module.register (Node 20:
// asynchronous, on a hooks thread that costs ~25 ms to start; see esm-hooks.mjs). Each next*()
// gives a value or a promise of one; the hooks answer in kind. Records go to `send`.
const { fileURLToPath } = require('url');

const ENTER = 'globalThis[Symbol.for("coldstart.esm")]?.enter(import.meta.url);';
const LEAVE = '\n;globalThis[Symbol.for("coldstart.esm")]?.leave(import.meta.url);\n';

const then = (value, fn) => (value && typeof value.then === 'function' ? value.then(fn) : fn(value));

/**
 * @param {(record: object) => void} send a resolution ({type: 'resolve', parent, specifier, file})
 *   or a loaded module ({url, file, format, parent, startUs, resolveMs, loadMs, bytes})
 * @returns {{ resolve: Function, load: Function }}
 */
function esmTimingHooks(send) {
  const now = () => Number(process.hrtime.bigint() / 1000n); // µs, the CPU profile's clock
  const parents = new Map(); // url -> parentURL of its first importer
  const resolveTimes = new Map();
  return {
    resolve(specifier, context, nextResolve) {
      // In-thread hooks see require() too: what it loads is timed by the agent's loader patches.
      if (context.conditions && context.conditions.includes('require')) return nextResolve(specifier, context);
      const t = now();
      return then(nextResolve(specifier, context), (result) => {
        // (importing file, specifier) -> file: what `start --mode memory` replays without stats.
        if (result && result.url && result.url.startsWith('file:') && context.parentURL && context.parentURL.startsWith('file:')) {
          send({ type: 'resolve', parent: fileURLToPath(context.parentURL), specifier, file: fileURLToPath(result.url) });
        }
        if (result && result.url && !parents.has(result.url)) {
          parents.set(result.url, context.parentURL || null);
          resolveTimes.set(result.url, now() - t);
        }
        return result;
      });
    },
    load(url, context, nextLoad) {
      if (context.conditions && context.conditions.includes('require')) return nextLoad(url, context);
      const t = now();
      return then(nextLoad(url, context), (result) => {
        const end = now();
        if (!url.startsWith('file:')) return result;
        let source = result.source;
        let bytes = 0;
        if (source != null) bytes = typeof source === 'string' ? Buffer.byteLength(source) : source.byteLength;
        if (result.format === 'module' && source != null) {
          const text = typeof source === 'string' ? source : Buffer.from(source).toString('utf8');
          // A shebang must stay first: such a module is timed without its evaluation.
          if (!text.startsWith('#!')) source = ENTER + text + LEAVE;
        }
        const parentURL = parents.get(url) || null;
        send({
          url,
          file: fileURLToPath(url),
          format: result.format,
          parent: parentURL && parentURL.startsWith('file:') ? fileURLToPath(parentURL) : null,
          startUs: t - (resolveTimes.get(url) || 0),
          resolveMs: (resolveTimes.get(url) || 0) / 1000,
          loadMs: (end - t) / 1000,
          bytes,
        });
        return source === result.source ? result : { ...result, source };
      });
    },
  };
}

module.exports = { esmTimingHooks };
