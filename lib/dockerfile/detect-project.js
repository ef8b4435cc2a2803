'use strict';
// What a Dockerfile for the project in one directory needs to know: the entry file and its node
// flags, the package manager, the Node major, whether a TypeScript build comes first. Reads
// package.json, lockfiles, tsconfig.json and .dockerignore; returns plain data.
const fs = require('fs');
const path = require('path');
const { UsageError } = require('../errors.js');
const { parseNodeCommand } = require('../node-command.js');
const { splitShellWords } = require('../shell-words.js');
const { warning } = require('../warnings.js');
const { packageBin } = require('../package-bin.js');

const LOCKFILES = [
  ['package-lock.json', 'npm'],
  ['yarn.lock', 'yarn'],
  ['pnpm-lock.yaml', 'pnpm'],
];
const FALLBACK_ENTRIES = ['index.js', 'server.js', 'app.js'];
// The image runs coldstart from the app's node_modules.
const COLDSTART_BIN = 'node_modules/coldstart/bin/coldstart.js';
// Development-only options: a watcher would never let the pack step end, an inspector has no client.
const DEV_ONLY_FLAG = /^--(watch|watch-path|watch-preserve-output|inspect|inspect-brk|inspect-wait)(=|$)/;
const TYPESCRIPT_SOURCE = /\.(ts|mts|cts|tsx)$/;

/** A package.json script's words; null when it needs a shell (&&, pipes, $VAR, globs, ...). */
function splitScript(script) {
  try {
    return splitShellWords(script);
  } catch {
    return null;
  }
}

/**
 * `node [flags] <file> [args]` -> { file, flags, args, dropped }; null for anything else
 * (another program, a shell pipeline, node -e).
 */
function parseNodeScript(script) {
  const words = splitScript(script);
  if (!words || words[0] !== 'node') return null;
  const parsed = parseNodeCommand(words);
  if (parsed.problem) return null;
  const flags = [];
  const dropped = [];
  for (const flag of parsed.flags) (DEV_ONLY_FLAG.test(flag.words[0]) ? dropped : flags).push(...flag.words);
  return { file: parsed.entry, flags, args: parsed.args, dropped };
}

/** The highest Node major a semver range names (`^18 || ^20` -> 20, `>=18 <21` -> 20); null if none. */
function majorFromRange(range) {
  let best = null;
  for (const part of String(range).split(/\|\||\s+/)) {
    const m = /^(<=?|>=?|[~^=v]*)\s*v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?/.exec(part.trim());
    if (!m) continue;
    let major = Number(m[2]);
    // `<21` and `<21.0.0` exclude 21 itself; `<20.5` still allows 20.
    if (m[1] === '<' && !Number(m[3]) && !Number(m[4])) major -= 1;
    if (major > 0 && (best === null || major > best)) best = major;
  }
  return best;
}

function readJson(file, what) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw new UsageError(`cannot read ${what}: ${err instanceof SyntaxError ? 'not valid JSON' : err.code || err.message}`);
  }
}

function isFile(file) {
  try { return fs.statSync(file).isFile(); } catch { return false; }
}

/** The file node would load for `entry`, relative to root in POSIX form; null when none exists. */
function existingEntry(root, entry) {
  for (const candidate of [entry, `${entry}.js`, `${entry}.cjs`, `${entry}.mjs`, path.join(entry, 'index.js')]) {
    if (isFile(path.join(root, candidate))) return candidate;
  }
  return null;
}

/** Entry as written, normalised to a relative POSIX path inside root. */
function normaliseEntry(entry, from) {
  const normal = path.posix.normalize(String(entry).split(path.sep).join('/'));
  if (path.posix.isAbsolute(normal) || normal === '..' || normal.startsWith('../')) {
    throw new UsageError(`entry ${entry} (${from}) is outside the project: the image holds only the project directory`);
  }
  return normal;
}

/**
 * `functions-framework --target=fn`, `npx next start`: a package binary of the project that is a
 * Node script -> { binary, args }; null for anything else.
 */
function parseBinaryScript(script, root) {
  const words = splitScript(script);
  if (words && words[0] === 'npx') words.shift();
  if (!words || !words.length || !packageBin(words[0], root)) return null;
  return { binary: words[0], args: words.slice(1) };
}

function findEntry({ root, manifest, entryOption, typescript }) {
  const scripts = (manifest && manifest.scripts) || {};
  const candidates = [];
  if (entryOption) candidates.push({ file: entryOption, from: '--entry', flags: [], args: [], dropped: [] });
  const start = typeof scripts.start === 'string' ? parseNodeScript(scripts.start) : null;
  if (start) candidates.push({ ...start, from: 'scripts.start' });
  // A start script that runs a package binary (the Functions Framework, next): the platform's command.
  const binary = !start && !entryOption && typeof scripts.start === 'string' ? parseBinaryScript(scripts.start, root) : null;
  if (binary) return { file: null, ...binary, from: 'scripts.start', flags: [], dropped: [] };
  if (manifest && typeof manifest.main === 'string' && manifest.main) {
    candidates.push({ file: manifest.main, from: 'main', flags: [], args: [], dropped: [] });
  }
  const chosen = candidates[0];
  if (!chosen) {
    const found = FALLBACK_ENTRIES.find((name) => isFile(path.join(root, name)));
    if (found) return { file: found, from: found, flags: [], args: [], dropped: [] };
    const startNote = typeof scripts.start === 'string' ? ` (scripts.start "${scripts.start}" is not "node <file>")` : '';
    throw new UsageError(`no entry file found in ${root}${startNote}: give --entry FILE, e.g. --entry server.js`);
  }
  const file = normaliseEntry(chosen.file, chosen.from);
  if (typescript) {
    // The compiled output does not exist before the build stage runs: nothing to check on disk.
    if (TYPESCRIPT_SOURCE.test(file)) {
      throw new UsageError(`entry ${file} (${chosen.from}) is TypeScript source: give the compiled file, e.g. --entry dist/server.js`);
    }
    return { ...chosen, file };
  }
  const onDisk = existingEntry(root, file);
  if (!onDisk) throw new UsageError(`entry file not found: ${file} (${chosen.from}) in ${root}`);
  return { ...chosen, file: chosen.from === 'main' ? normaliseEntry(onDisk, 'main') : file };
}

// Next.js's configuration files, in the order Next looks for them.
const NEXT_CONFIGS = ['next.config.js', 'next.config.mjs', 'next.config.ts', 'next.config.cjs', 'next.config.mts'];

/**
 * A Next.js app built with `output: 'standalone'`: its server is .next/standalone/server.js, a tree
 * of its own (package.json and the node_modules Next traced) that runs from where it is copied.
 * @returns {?{config: ?string, buildScript: string, public: boolean}}
 */
function findNextStandalone(root, manifest) {
  const deps = { ...((manifest && manifest.dependencies) || {}), ...((manifest && manifest.devDependencies) || {}) };
  if (!deps.next) return null;
  const config = NEXT_CONFIGS.find((name) => isFile(path.join(root, name))) || null;
  let text = '';
  try { text = config ? fs.readFileSync(path.join(root, config), 'utf8') : ''; } catch { /* unreadable: the built tree decides */ }
  if (!/\boutput\s*:\s*['"`]standalone['"`]/.test(text) && !isFile(path.join(root, '.next', 'standalone', 'server.js'))) return null;
  const build = manifest.scripts && manifest.scripts.build;
  if (typeof build !== 'string') throw new UsageError('a Next.js standalone app needs a build script (next build) in package.json');
  // `next build ...` runs with node alone (an image without npm builds it too); anything else through npm.
  const words = splitScript(build);
  const command = words && words[0] === 'next' ? ['node', 'node_modules/next/dist/bin/next', ...words.slice(1)] : ['npm', 'run', 'build'];
  return { config, buildScript: build, command, public: isDirectory(path.join(root, 'public')) };
}

function isDirectory(p) {
  try { return fs.statSync(p).isDirectory(); } catch { return false; }
}

function findPackageManager(root, manifest, warnings) {
  const declared = manifest && typeof manifest.packageManager === 'string'
    ? manifest.packageManager.split('@')[0] : null;
  const present = LOCKFILES.filter(([file]) => isFile(path.join(root, file)));
  if (!present.length) {
    const name = ['npm', 'yarn', 'pnpm'].includes(declared) ? declared : 'npm';
    return { name, lockfile: null };
  }
  const chosen = present.find(([, name]) => name === declared) || present[0];
  if (present.length > 1) {
    warnings.push(warning('SEVERAL_LOCKFILES',
      `several lockfiles (${present.map(([f]) => f).join(', ')}): the Dockerfile assumes ${chosen[1]}`,
      { lockfiles: present.map(([f]) => f) }));
  }
  return { name: chosen[1], lockfile: chosen[0] };
}

// The files version managers (nvm, fnm, volta's import, asdf's legacy mode) pin a Node with:
// what developers run, so what the image should run. They win over an engines range.
const VERSION_FILES = ['.node-version', '.nvmrc'];

function findNodeMajor(root, manifest, runningVersion, warnings) {
  const running = Number(/^v?(\d+)/.exec(runningVersion)[1]);
  const { neededNodeMajor } = require('./dependency-engines.js');
  const needed = neededNodeMajor(root);
  const chosen = declaredNodeMajor(root, manifest, running, warnings);
  if (needed && running < needed.major) {
    warnings.push(warning('NODE_BELOW_DEPENDENCIES', `this Node (${runningVersion}) is older than the dependencies need (${needed.major}: ${askers(needed)}): pack and profile run the app with it`, { needed: needed.major }));
  }
  if (!needed || needed.major <= chosen.major) return chosen;
  if (chosen.from === 'running node' || (chosen.from === 'engines.node' && openAbove(chosen.range))) {
    return { major: needed.major, from: 'dependencies', range: askers(needed) };
  }
  warnings.push(warning('NODE_PIN_BELOW_DEPENDENCIES', `${chosen.from} sets Node ${chosen.major}, older than the dependencies need (${needed.major}: ${askers(needed)}): the image keeps ${chosen.major}`, { major: chosen.major, needed: needed.major }));
  return chosen;
}

// The packages that ask for the major, as a line says them.
function askers({ packages }) {
  const named = packages.slice(0, 3).map((p) => `${p.name.replace(/[^\w@./-]/g, '?')} ${JSON.stringify(p.range)}`).join(', ');
  return packages.length > 3 ? `${named} and ${packages.length - 3} more` : named;
}

// A range with an alternative that has no upper bound (`>=18`): any newer major satisfies it.
function openAbove(range) {
  return String(range).split('||').some((alternative) => /(^|\s)>/.test(alternative.trim()) && !/</.test(alternative));
}

/** The Node major a version file or engines.node declares, else the running Node's. */
function declaredNodeMajor(root, manifest, running, warnings) {
  for (const file of VERSION_FILES) {
    let text;
    try { text = fs.readFileSync(path.join(root, file), 'utf8').trim(); } catch { continue; }
    const version = text.split(/\s+/)[0] || '';
    const m = /^v?(\d+)(\.\d+){0,2}$/.exec(version);
    if (m) return { major: Number(m[1]), from: file, range: version };
    warnings.push(warning('NODE_VERSION_FILE_UNREADABLE', `${file} ${JSON.stringify(version)} names no Node version number: it is not used for the base image`, { file, text }));
  }
  const range = manifest && manifest.engines && manifest.engines.node;
  if (typeof range === 'string' && range.trim()) {
    const major = majorFromRange(range);
    if (major) return { major, from: 'engines.node', range };
    warnings.push(warning('ENGINES_UNREADABLE', `engines.node ${JSON.stringify(range)} names no Node major: using ${running}, the running Node's`, { range }));
  }
  return { major: running, from: 'running node', range: null };
}

function findTypescript(root, manifest, packageManager) {
  const build = manifest && manifest.scripts && manifest.scripts.build;
  if (!isFile(path.join(root, 'tsconfig.json')) || typeof build !== 'string') return null;
  // A plain `tsc ...` build runs with node alone; anything else goes through npm, which runs a
  // package.json script whatever the lockfile (node images ship npm).
  const words = splitScript(build);
  const command = words && words[0] === 'tsc'
    ? ['node', 'node_modules/typescript/bin/tsc', ...words.slice(1)]
    : ['npm', 'run', 'build'];
  return { tsconfig: 'tsconfig.json', buildScript: build, command, packageManager: packageManager.name };
}

/**
 * What the Dockerfile writes from the repository or the flags must not hold a line break: in a
 * Dockerfile it ends the line, and what follows would be an instruction of its own.
 * @param {Object<string, ?Array<?string>>} values words by what they are, as a line names them
 */
function refuseLineBreaks(values) {
  for (const [what, words] of Object.entries(values)) {
    const broken = (words || []).find((word) => /[\r\n]/.test(word || ''));
    if (broken !== undefined) throw new UsageError(`${what} holds a line break, which would end a Dockerfile line: ${JSON.stringify(broken)}`);
  }
}

/** The devDependencies (not also dependencies) the image runs from node_modules: coldstart, a Lambda's runtime client. */
function devDependenciesTheImageRuns(manifest, function_) {
  const deps = (manifest && manifest.dependencies) || {};
  const devDeps = (manifest && manifest.devDependencies) || {};
  return ['coldstart', ...(function_ ? ['aws-lambda-ric'] : [])].filter((name) => devDeps[name] && !deps[name]);
}

/** Warnings about a context the generated Dockerfile cannot work with. */
function contextWarnings(root, manifest) {
  const warnings = [];
  const deps = (manifest && manifest.dependencies) || {};
  const devDeps = (manifest && manifest.devDependencies) || {};
  if (!deps.coldstart && coldstartBin(manifest) === COLDSTART_BIN) {
    warnings.push(devDeps.coldstart
      ? warning('COLDSTART_DEV_DEPENDENCY', 'coldstart is a devDependency: an install without devDependencies leaves it out of node_modules, and the image runs it from there (move it to dependencies)')
      : warning('COLDSTART_NOT_A_DEPENDENCY', 'coldstart is not in dependencies: the image runs it from node_modules (npm install coldstart)'));
  }
  let ignore = '';
  try { ignore = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8'); } catch { /* none */ }
  const ignoresModules = ignore.split('\n').map((l) => l.trim())
    .some((l) => /^(\/|\*\*\/)?node_modules\/?(\*\*?)?$/.test(l));
  if (ignoresModules) {
    warnings.push(warning('DOCKERIGNORE_NODE_MODULES', '.dockerignore leaves out node_modules: the Dockerfile installs nothing and needs it in the build context'));
  }
  return warnings;
}

/** Where the image finds coldstart's CLI: in node_modules, or at home in coldstart's own repository. */
function coldstartBin(manifest) {
  const own = manifest && manifest.name === 'coldstart' && manifest.bin && manifest.bin.coldstart;
  return own ? path.posix.normalize(own) : COLDSTART_BIN;
}

function imageName(manifest) {
  const name = manifest && typeof manifest.name === 'string' ? manifest.name : '';
  const cleaned = name.toLowerCase().replace(/^@/, '').replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return cleaned || 'my-app';
}

/**
 * A Lambda function's handler (--lambda handler.js:fn) and first event: paths relative to the task
 * root, the runtime interface client among its node_modules (pack runs the function with it).
 */
function lambdaFunction(root, spec, event) {
  const { parseLambdaHandler, runtimeClient, readEvent } = require('../capture/lambda-function.js');
  const { handler, file, name } = parseLambdaHandler(spec, root);
  if (event != null) readEvent(event, root);
  const posix = (p) => path.relative(root, path.resolve(root, p)).split(path.sep).join('/');
  return { handler, file: posix(file), name, event: event != null ? posix(event) : null, runtimeClient: posix(runtimeClient(root)) };
}

/**
 * Describes the project in `root` for a Dockerfile: plain data, printed by `--json` and rendered
 * by render-dockerfile.js.
 * @param {{root: string, entry?: string, lambda?: string, event?: string, distroless?: boolean,
 *   runningNodeVersion?: string}} options lambda: a Lambda function's handler (handler.js:fn), event:
 *   the JSON file of its first invocation
 * @returns {{root: string, name: string, entry: ?string, entryFrom: string, binary: ?string,
 *   lambda: null|{handler: string, file: string, name: string, event: ?string, runtimeClient: string},
 *   appCommand: string[], nodeFlags: string[],
 *   appArgs: string[], packageManager: {name: 'npm'|'yarn'|'pnpm', lockfile: string|null},
 *   node: {major: number, from: string, range: string|null},
 *   typescript: null|{tsconfig: string, buildScript: string, command: string[], packageManager: string},
 *   next: null|{config: ?string, buildScript: string, command: string[], public: boolean}, a Next.js standalone server
 *     (entry server.js, run from the standalone tree),
 *   devDependenciesRun: string[],
 *   distroless: boolean, warnings: {code: string, message: string, context: object}[]}}
 * @throws {UsageError} when no entry file is found or package.json cannot be read
 */
function detectProject({ root, entry, lambda, event, distroless = false, runningNodeVersion = process.version }) {
  const dir = path.resolve(root);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`no such project directory: ${root}`);
  const manifest = readJson(path.join(dir, 'package.json'), 'package.json');
  const warnings = contextWarnings(dir, manifest);
  const packageManager = findPackageManager(dir, manifest, warnings);
  const typescript = findTypescript(dir, manifest, packageManager);
  const function_ = lambda != null ? lambdaFunction(dir, lambda, event) : null;
  const next = function_ || entry ? null : findNextStandalone(dir, manifest);
  const chosen = function_ ? { file: function_.file, from: '--lambda', flags: [], args: [], dropped: [] }
    : next ? { file: 'server.js', from: `Next.js's standalone output${next.config ? ` (${next.config})` : ''}`, flags: [], args: [], dropped: [] }
      : findEntry({ root: dir, manifest, entryOption: entry, typescript });
  if (chosen.dropped.length) {
    warnings.push(warning('DEV_FLAGS_DROPPED', `left out development-only node flags of scripts.start: ${chosen.dropped.join(' ')}`, { flags: chosen.dropped }));
  }
  const devDependenciesRun = devDependenciesTheImageRuns(manifest, function_);
  if (function_ && devDependenciesRun.includes('aws-lambda-ric')) {
    warnings.push(warning('LAMBDA_RIC_DEV_DEPENDENCY', 'aws-lambda-ric is a devDependency: the image\'s ENTRYPOINT runs it from node_modules, and an install without devDependencies leaves it out (move it to dependencies, or install them all as the Dockerfile says)'));
  }
  const appCommand = function_ ? ['node', function_.runtimeClient, function_.handler]
    : chosen.binary ? [chosen.binary, ...chosen.args]
      : ['node', ...chosen.flags, chosen.file, ...chosen.args];
  refuseLineBreaks({
    'the app command': appCommand,
    'the Lambda handler': function_ && [function_.handler, function_.file, function_.event, function_.runtimeClient],
    'scripts.build': (typescript && typescript.command) || (next && next.command),
  });
  return {
    root: dir,
    name: imageName(manifest),
    entry: chosen.file,
    entryFrom: chosen.from,
    binary: chosen.binary || null,
    lambda: function_,
    appCommand,
    nodeFlags: chosen.flags,
    appArgs: chosen.args,
    packageManager,
    node: findNodeMajor(dir, manifest, runningNodeVersion, warnings),
    typescript: next ? null : typescript,
    next,
    devDependenciesRun,
    distroless: Boolean(distroless),
    coldstartBin: coldstartBin(manifest),
    warnings,
  };
}

module.exports = { detectProject };
