'use strict';
// Runs the app as this process's main module, as `node [flags] entry args` would: a second
// Node start would cost what `coldstart start` exists to save. The app then owns the process:
// its exit code and signals are its own, since nothing here listens for them or holds the loop.
const path = require('node:path');
const Module = require('node:module');

/**
 * Replaces process.argv, loads the preloads, then runs entry as the main module (CJS or ESM).
 * Returns before an ESM entry or an --import preload has finished loading; their errors
 * surface as uncaught exceptions, as with a direct start.
 * @param {object} app
 * @param {string} app.entry absolute path of the entry file
 * @param {string[]} [app.args] arguments after the entry
 * @param {string[]} [app.requires] --require preloads, resolved from the current directory
 * @param {string[]} [app.imports] --import preloads, resolved from the current directory
 * @param {boolean} [app.enableSourceMaps]
 * @param {string[]} [app.nodeFlags] the flags as given, added to process.execArgv for child processes
 */
function runApp({ entry, args = [], requires = [], imports = [], enableSourceMaps = false, nodeFlags = [] }) {
  process.argv = [process.execPath, entry, ...args];
  if (nodeFlags.length) process.execArgv = [...process.execArgv, ...nodeFlags];
  if (enableSourceMaps) process.setSourceMapsEnabled(true);

  if (requires.length) preload(requires);
  if (!imports.length) {
    Module.runMain();
    return;
  }
  let chain = Promise.resolve();
  for (const specifier of imports) chain = chain.then(() => importFromCwd(specifier));
  // Leave the promise chain before starting the app, so its errors are uncaught exceptions
  // (printed and exit code 1) rather than unhandled rejections.
  chain.then(
    () => setImmediate(() => Module.runMain()),
    (err) => setImmediate(() => { throw err; }),
  );
}

function importFromCwd(specifier) {
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
    const { pathToFileURL } = require('node:url');
    return import(pathToFileURL(path.resolve(specifier)).href);
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) return import(specifier); // node:, file:, data: URLs
  return importBareFromCwd(specifier);
}

// A bare specifier must resolve from the working directory with ESM conditions, as Node's own
// --import does. Only a script whose filename lies there can ask the default loader for that.
function importBareFromCwd(specifier) {
  const vm = require('node:vm');
  const script = new vm.Script(`import(${JSON.stringify(specifier)})`, {
    filename: path.join(process.cwd(), '[coldstart-import]'),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const { withoutLoaderWarning } = require('./code-cache.js');
  return withoutLoaderWarning(() => script.runInThisContext());
}

// --require as Node does it: the parent is the module 'internal/preload', which some preloads
// check for (Yarn's .pnp.cjs sets itself up only then). Resolved from the working directory.
function preload(requests) {
  if (typeof Module._preloadModules === 'function') {
    Module._preloadModules(requests);
    return;
  }
  const requireFromCwd = Module.createRequire(path.join(process.cwd(), '[coldstart-preload]'));
  for (const request of requests) requireFromCwd(request);
}

module.exports = { runApp };
