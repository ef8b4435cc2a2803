// ES module loader hooks (module.register): they run on Node's hooks thread, time
// every resolve and load, and mark each module's evaluation so the main thread
// can measure it. Results go back through the MessagePort given in `data`.
import { fileURLToPath } from 'node:url';

let port = null;
const now = () => Number(process.hrtime.bigint() / 1000n);
const parents = new Map(); // url -> parentURL of its first importer
const resolveTimes = new Map();

export function initialize(data) {
  port = data && data.port;
}

export async function resolve(specifier, context, nextResolve) {
  const t = now();
  const result = await nextResolve(specifier, context);
  // (importing file, specifier) -> file: what `start --mode memory` replays without stats.
  if (port && result && result.url && result.url.startsWith('file:') && context.parentURL && context.parentURL.startsWith('file:')) {
    port.postMessage({ type: 'resolve', parent: fileURLToPath(context.parentURL), specifier, file: fileURLToPath(result.url) });
  }
  if (result && result.url && !parents.has(result.url)) {
    parents.set(result.url, context.parentURL || null);
    resolveTimes.set(result.url, now() - t);
  }
  return result;
}

const ENTER = 'globalThis[Symbol.for("coldstart.esm")]?.enter(import.meta.url);';
const LEAVE = '\n;globalThis[Symbol.for("coldstart.esm")]?.leave(import.meta.url);\n';

export async function load(url, context, nextLoad) {
  const t = now();
  const result = await nextLoad(url, context);
  const end = now();
  if (!url.startsWith('file:')) return result;
  let source = result.source;
  let bytes = 0;
  if (source != null) bytes = typeof source === 'string' ? Buffer.byteLength(source) : source.byteLength;
  if (result.format === 'module' && source != null) {
    let text = typeof source === 'string' ? source : Buffer.from(source).toString('utf8');
    // A shebang must stay first; the enter mark then goes after it on the same line count.
    if (!text.startsWith('#!')) {
      text = ENTER + text + LEAVE;
      source = text;
    }
  }
  if (port) {
    const parentURL = parents.get(url) || null;
    port.postMessage({
      url,
      file: fileURLToPath(url),
      format: result.format,
      parent: parentURL && parentURL.startsWith('file:') ? fileURLToPath(parentURL) : null,
      startUs: t - (resolveTimes.get(url) || 0),
      resolveMs: (resolveTimes.get(url) || 0) / 1000,
      loadMs: (end - t) / 1000,
      bytes,
    });
  }
  return source === result.source ? result : { ...result, source };
}
