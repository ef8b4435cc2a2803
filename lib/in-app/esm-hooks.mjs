// The ES module timing hooks (esm-timing.cjs) on Node's hooks thread, for Nodes without
// module.registerHooks (Node 20): records go back to the app's thread through the
// MessagePort given in `data`.
import { createRequire } from 'node:module';

const { esmTimingHooks } = createRequire(import.meta.url)('./esm-timing.cjs');
let hooks = esmTimingHooks(() => {}, 'hooks');

export function initialize(data) {
  const port = data && data.port;
  if (port) hooks = esmTimingHooks((record) => port.postMessage(record), 'hooks');
}

export function resolve(specifier, context, nextResolve) {
  return hooks.resolve(specifier, context, nextResolve);
}

export function load(url, context, nextLoad) {
  return hooks.load(url, context, nextLoad);
}
