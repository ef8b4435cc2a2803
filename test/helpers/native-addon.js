'use strict';
// Builds fixtures/native-addon/addon-src (tiny-native, a Node-API addon) with node-gyp,
// offline: Node's own headers are used, never downloaded. Build once per test file,
// then copy the built package into each app copy's node_modules.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync, execFile } = require('child_process');
const { REPO, copyFixture } = require('./app.js');

const ADDON_SRC = path.join(REPO, 'fixtures', 'native-addon', 'addon-src');
const NODE_PREFIX = path.resolve(path.dirname(process.execPath), '..');

const runs = (cmd, args = ['--version']) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/** node-gyp as npm ships it (npm sets npm_config_node_gyp when it runs scripts). */
function findNodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  for (const dir of [path.dirname(process.execPath), ...(process.env.PATH || '').split(path.delimiter)]) {
    const npm = path.join(dir, 'npm');
    // bin/npm is a link to <npm>/bin/npm-cli.js (or lives next to lib/node_modules/npm).
    try {
      candidates.push(path.join(path.dirname(fs.realpathSync(npm)), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
    } catch {
      continue;
    }
    candidates.push(path.join(dir, '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  }
  return candidates.find((c) => c && fs.existsSync(c)) || null;
}

/**
 * Where node-gyp finds Node's headers without the network: npm's nodedir setting, the
 * include/node folder next to this node (official tarballs, distro packages), or null
 * when node-gyp's own cache has them. Undefined when there are none.
 */
function findNodeDir() {
  const hasHeaders = (dir) => fs.existsSync(path.join(dir, 'include', 'node', 'node_api.h'));
  const configured = process.env.npm_config_nodedir;
  if (configured && hasHeaders(configured)) return configured;
  if (hasHeaders(NODE_PREFIX)) return NODE_PREFIX;
  const cacheRoot = process.env.npm_config_devdir
    || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'node-gyp');
  if (hasHeaders(path.join(cacheRoot, process.versions.node))) return null;
  return undefined;
}

/**
 * Why tiny-native cannot be built on this machine, or null when it can.
 * @returns {string|null}
 */
function missingToolchain() {
  const missing = [];
  if (!findNodeGyp()) missing.push('node-gyp (it ships with npm)');
  if (!runs('python3') && !runs('python')) missing.push('python3');
  if (!runs('make')) missing.push('make');
  if (!runs(process.env.CC || 'cc')) missing.push(`a C compiler (${process.env.CC || 'cc'})`);
  // gyp's Makefiles link with the C++ driver, even for C sources.
  if (!runs(process.env.CXX || 'g++')) missing.push(`a C++ compiler to link with (${process.env.CXX || 'g++'})`);
  if (findNodeDir() === undefined) missing.push(`Node's headers (${path.join(NODE_PREFIX, 'include', 'node')})`);
  return missing.length ? `cannot build a native addon: missing ${missing.join(', ')}` : null;
}

/**
 * Builds tiny-native in a fresh temp dir (node-gyp rebuild, about a second).
 * @returns {Promise<{packageDir: string, remove: () => void}>} packageDir holds
 *   package.json, index.js and build/Release/tiny_native.node
 */
async function buildTinyNative() {
  const nodeGyp = findNodeGyp();
  const nodeDir = findNodeDir();
  if (!nodeGyp || nodeDir === undefined) throw new Error(missingToolchain() || 'node-gyp not found');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-tiny-native-'));
  const remove = () => fs.rmSync(tmp, { recursive: true, force: true });
  const packageDir = path.join(tmp, 'tiny-native');
  fs.cpSync(ADDON_SRC, packageDir, { recursive: true });
  const args = [nodeGyp, 'rebuild', ...(nodeDir ? [`--nodedir=${nodeDir}`] : [])];
  try {
    await new Promise((resolve, reject) => {
      execFile(process.execPath, args, { cwd: packageDir, timeout: 120000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`node-gyp rebuild of tiny-native failed (${err.code ?? err.signal}):\n${stdout}${stderr}`));
        else resolve();
      });
    });
    if (!fs.existsSync(path.join(packageDir, 'build', 'Release', 'tiny_native.node'))) {
      throw new Error('node-gyp rebuild succeeded but build/Release/tiny_native.node is missing');
    }
  } catch (err) {
    remove();
    throw err;
  }
  return { packageDir, remove };
}

/**
 * Copies fixtures/native-addon into a temp dir as an installed app: the built package
 * as node_modules/tiny-native, without the addon sources. Returns the dir.
 * @param {string} packageDir from buildTinyNative
 */
function nativeAddonApp(packageDir) {
  const dir = copyFixture('native-addon');
  fs.rmSync(path.join(dir, 'addon-src'), { recursive: true, force: true });
  fs.cpSync(packageDir, path.join(dir, 'node_modules', 'tiny-native'), { recursive: true });
  return dir;
}

module.exports = { missingToolchain, buildTinyNative, nativeAddonApp };
