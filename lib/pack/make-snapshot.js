'use strict';
// pack --snapshot-blob FILE: a V8 startup snapshot of the app's CommonJS startup modules, evaluated
// once at pack time by `node --build-snapshot lib/start/snapshot-main.js`, for `node
// --snapshot-blob FILE entry.js` to start from. Made by the Node that runs pack, which must be the
// Node that runs the app (a blob from another Node makes node exit with code 14). Modules that
// cannot be evaluated ahead (an ES module, an addon, one that uses node:http while it loads or
// throws when loaded this way) load at start instead, each with its reason. When the app cannot
// have one at all (a preload that must see modules load, a module that leaves work going),
// nothing is written and the reason is returned: the archive alone still serves `coldstart start`.
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { parseNodeCommand, PRELOAD_FLAGS, ENV_FILE_FLAGS } = require('../node-command.js');
const { runInGroup } = require('./run-in-group.js');
const { INSTALL_DIR } = require('../paths.js');

const MAIN = path.join(__dirname, '..', 'start', 'snapshot-main.js');
const MAX_PASSES = 4;
// The tables of constants of built-in modules the builder cannot load that a module may read
// while it loads; the snapshot's stand-ins for those modules give them (snapshot-main.js).
const BUILTIN_TABLES = { http: ['METHODS', 'STATUS_CODES'], http2: ['constants'] };

/**
 * Why the app cannot have a snapshot, from its command alone, before it runs: a preload that must
 * see the modules load, or an ES module entry (by its extension or its package's type); null when
 * nothing rules it out yet. pack and `coldstart dockerfile --snapshot` refuse these up front.
 * @param {string[]} command `node [flags] entry [args]`
 * @param {string} cwd where the command runs
 * @returns {string|null}
 */
function refusedUpFront(command, cwd) {
  const parsed = parseNodeCommand(command);
  const preload = parsed.flags.find((f) => PRELOAD_FLAGS.has(f.name));
  if (preload) return `the app starts with ${preload.words.join(' ')}: a preload (an APM agent) must see the modules load, and in a snapshot they are loaded already`;
  if (!parsed.entry) return null;
  const entry = path.resolve(cwd, parsed.entry);
  const esm = entry.endsWith('.mjs') || (!entry.endsWith('.cjs') && require('../in-app/package-type.cjs').packageTypeReader()(entry) === 'module');
  return esm ? `the entry ${parsed.entry} is an ES module: the snapshot holds CommonJS modules (coldstart start serves ES modules from memory, with a code cache for the larger ones)` : null;
}

/** A refusal as one phrase: the module it is about first, when it is about one. */
function refusalText({ file, reason }) {
  return `${file ? `${file} ` : ''}${reason}`;
}

/**
 * @param {object} options
 * @param {string} options.out the snapshot file to write
 * @param {string} options.archive the archive just written (the snapshot's start serves it)
 * @param {string} options.root
 * @param {string[]} options.files the archive's files, root-relative
 * @param {string[]} options.order root-relative modules in the order the app loaded them
 * @param {object} options.index the startup index (formats, resolutions)
 * @param {?{blob: Buffer, index: {entries: Object<string, [number, number]>}}} [options.codeCache] the
 *   archive's code cache: the snapshot keeps what it holds for the modules that load at start
 * @param {{command: string[], cwd: string, env: object, timeoutMs: number}} options.appRun
 * @returns {Promise<{file: string, modules: number, leftOut: {file: string, reason: string}[], bytes: number}
 *   |{refused: {file: ?string, reason: string}}>} leftOut: modules that load at start instead, each with why
 */
async function makeSnapshot({ out, archive, root, files, order, index, codeCache = null, appRun }) {
  const parsed = parseNodeCommand(appRun.command);
  const upFront = refusedUpFront(appRun.command, appRun.cwd);
  if (upFront) return { refused: { file: null, reason: upFront } };
  const entry = path.resolve(appRun.cwd, parsed.entry);
  const entryRel = path.relative(root, entry).split(path.sep).join('/');
  // An entry that ends the process while it loads has no format recorded: only ES modules are turned away.
  const entryFormat = index.formats[entryRel] || (entryRel.endsWith('.mjs') ? 'module' : 'commonjs');
  if (entryFormat !== 'commonjs') return { refused: { file: entryRel, reason: 'the entry is an ES module: the snapshot holds CommonJS modules' } };
  // ES modules too: one that only passes on a CommonJS module's exports can be held (esm-facade.js).
  const modules = order.filter((rel) => rel !== entryRel && ['commonjs', 'json', 'module'].includes(index.formats[rel]));

  const partial = `${out}.partial-${process.pid}`;
  const { dir, watch } = require('../death-watch.js').watchedTempDir('coldstart-snapshot-', [['rm', '-rf', partial]]); // pack killed (SIGKILL)
  try {
    const planFile = path.join(dir, 'plan.json');
    const resultFile = path.join(dir, 'result.json');
    const cacheFile = codeCache ? path.join(dir, 'code-cache.bin') : null;
    if (cacheFile) fs.writeFileSync(cacheFile, codeCache.blob);
    const plan = {
      root, entry, archive, lib: path.join(INSTALL_DIR, 'lib'), result: resultFile,
      argv: [process.execPath, entry, ...parsed.args],
      codeCache: cacheFile && { file: cacheFile, entries: codeCache.index.entries },
      wrapper: Module.wrap('\0').split('\0'), builtins: Module.builtinModules,
      builtinTables: builtinTables(),
      modules, files, formats: index.formats, resolutions: index.resolutions, esmResolutions: index.esmResolutions || [],
      installRecords: index.installRecords || [],
      leftOut: [],
    };
    // A pass that leaves out a module whose code had begun to run is done again with every
    // module left out so far never run: the next one normally leaves out nothing new.
    let exit;
    let result;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      fs.rmSync(resultFile, { force: true });
      fs.writeFileSync(planFile, JSON.stringify(plan));
      // The app's node flags too: its modules load under them.
      exit = await runInGroup(process.execPath, [...parsed.flags.flatMap((f) => f.words), '--snapshot-blob', partial, '--build-snapshot', MAIN, planFile], {
        cwd: appRun.cwd, env: withEnvFiles(parsed.flags, appRun), timeoutMs: appRun.timeoutMs, leftovers: [partial, dir],
      });
      result = fs.existsSync(resultFile) ? JSON.parse(fs.readFileSync(resultFile, 'utf8')) : null;
      if (!result || !result.again) break;
      plan.leftOut = result.again;
    }
    if (result && result.again) return { refused: { file: null, reason: `modules were still left out after their code began to run in ${MAX_PASSES} passes` } };
    if (result && result.refused) return { refused: result.refused };
    if (!result || exit.code !== 0 || !fs.existsSync(partial)) {
      const why = exit.timedOut ? `did not finish in ${Math.round(appRun.timeoutMs / 1000)} s` : `failed (${exit.signal || `exit code ${exit.code}`})`;
      const last = exit.stderr.trim().split('\n').filter(Boolean).pop();
      return { refused: { file: null, reason: `node --build-snapshot ${why}${last ? `: ${last}` : ''}` } };
    }
    fs.renameSync(partial, out);
    const leftOut = result.leftOut.map(([file, reason]) => ({ file, reason }));
    return { file: out, modules: result.evaluated, leftOut, bytes: fs.statSync(out).size };
  } finally {
    fs.rmSync(partial, { force: true });
    fs.rmSync(dir, { recursive: true, force: true });
    watch.dismiss();
  }
}

/**
 * The app's environment with what its --env-file flags add (the variables already set win, a
 * later file over an earlier one, as Node has it), which node --build-snapshot does not read.
 */
function withEnvFiles(flags, { cwd, env }) {
  const added = {};
  for (const flag of flags) {
    if (!ENV_FILE_FLAGS.has(flag.name)) continue;
    let text;
    try {
      text = fs.readFileSync(path.resolve(cwd, flag.value), 'utf8');
    } catch {
      continue; // node itself says so when the app starts
    }
    Object.assign(added, require('node:util').parseEnv(text));
  }
  return { ...added, ...(env || process.env) };
}

// BUILTIN_TABLES as this Node has them.
function builtinTables() {
  const tables = {};
  for (const [name, keys] of Object.entries(BUILTIN_TABLES)) {
    const real = require(`node:${name}`);
    tables[name] = Object.fromEntries(keys.map((key) => [key, real[key]]));
  }
  return tables;
}

module.exports = { refusedUpFront, makeSnapshot, refusalText };
