'use strict';
// coldstart's own code inside a profiled app (the agent, the ES module hooks, start's memory
// loader): its frames wrap the app's requires and its files load before the app's. None of it is
// the app's work, so no finding, top module or package may name it. The installed-package form
// covers profiles taken by another copy of coldstart (in a container) and read here.
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { INSTALL_DIR } = require('../paths.js');

// lib/ and bin/ only: the package's fixtures and tests are apps like any other.
const OWN_DIRS = ['lib', 'bin'].map((name) => path.join(INSTALL_DIR, name));
const OWN_PREFIXES = OWN_DIRS.flatMap((dir) => [dir + path.sep, pathToFileURL(dir).href + '/']);
const INSTALLED = /\/node_modules\/coldstart(-start)?\/(lib|bin)\//; // the CLI, or the runtime alone

/** Whether a file path or a frame's url (file://, a path) is coldstart's own code. */
function isOwnCode(fileOrUrl) {
  if (typeof fileOrUrl !== 'string' || fileOrUrl === '') return false;
  if (INSTALLED.test(fileOrUrl.replace(/\\/g, '/'))) return true;
  return OWN_PREFIXES.some((prefix) => fileOrUrl.startsWith(prefix));
}

module.exports = { isOwnCode };
