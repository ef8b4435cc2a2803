'use strict';
// `coldstart start`: the container's CMD. Puts the startup files on the in-memory writable
// layer (or a tmpfs given with --into), then runs the app in this same process. It is on every
// cold start's critical path: no yargs, synchronous file work, nothing left running. An archive
// problem never stops the app: one warning line, then the app starts as it would without us.
const fs = require('node:fs');
const path = require('node:path');
const { parseNodeCommand, isNode, entryExists, findRoot } = require('../node-command.js');
// Read on --help and on a command line start cannot use, never on a container start.
const usage = () => require('./usage.js').USAGE;


/**
 * Entry point of `coldstart start`, called by bin/coldstart.js with the words after `start`.
 * Sets process.exitCode = 2 (and runs nothing) only when no app command can be made out.
 * @param {string[]} argv
 */
function main(argv) {
  const started = performance.now();
  let options;
  try {
    options = parseStartArgs(argv);
  } catch (err) {
    if (!(err instanceof StartUsageError)) throw err;
    writeLine(2, `coldstart: ${err.message}`);
    writeLine(2, usage().split('\n')[0]);
    process.exitCode = 2;
    return;
  }
  if (options.help) return writeLine(1, `${usage()}\n${require('../deprecated-flags.js').deprecationHelp('start')}`);
  for (const message of options.warnings) warn(message);

  const cwd = process.cwd();
  let entry = path.resolve(cwd, options.app.entry);
  // A package binary (functions-framework, next) rather than a script: the Node script behind it.
  if (!entryExists(entry)) entry = require('../package-bin.js').packageBin(options.app.entry, cwd, warn) || entry;
  // Memory mode writes nothing: the entry must be there already (extract may bring it).
  const memory = options.mode === 'memory';
  if (memory && !entryFound(entry, options.app.entry)) return;
  // The archive's paths are under the root pack ran the app from, found by pack's own rule.
  const root = options.root ? path.resolve(cwd, options.root) : findRoot(entry, cwd);
  const runDir = loadArchive(options, root, started);
  if (runDir !== root) entry = require('./extract-mode.js').moveToRunDir(entry, root, runDir, options, warn);
  if (!memory && !entryFound(entry, options.app.entry)) return;
  // Node's own compile cache, which the app inherits: one look at whether it serves this app.
  if (process.env.NODE_COMPILE_CACHE) require('./node-compile-cache.js').checkCompileCache({ env: process.env, cwd, entry, warn });
  const { runApp } = require('./run-app.js');
  runApp({ ...options.app, entry });
}

// Returns the directory the app should run from: --into when the archive landed there, else root.
function loadArchive(options, root, started) {
  const fallback = options.into ? '; starting the app from the working directory' : '; starting the app without it';
  if (!options.archive) {
    warn('no --archive given; starting the app without it');
    return root;
  }
  if (options.mode !== 'extract' && options.mode !== 'memory') {
    warn(`unknown --mode ${options.mode} (supported: memory, extract)${fallback}`);
    return root;
  }
  if (options.mode === 'memory') {
    const { loadIntoMemory } = require('./memory-loader.js');
    loadIntoMemory({
      root, archive: options.archive, verify: options.verify, report: options.report, quiet: options.quiet, started, warn, warnRefused, writeLine,
    });
    return root;
  }
  return require('./extract-mode.js').loadExtracted(options, root, started, { fallback, warn, warnRefused, writeLine, listed });
}

// Entries an archive had that would land outside the root: one line, whichever mode.
function warnRefused(refused) {
  if (!refused.length) return;
  warn(`refused ${refused.length} unsafe archive entries: ${listed(refused)}`);
}

function listed(names) {
  const more = names.length > 5 ? `, and ${names.length - 5} more` : '';
  return names.slice(0, 5).join(', ') + more;
}

/** `-- npm start` or a shell line cannot run inside this Node process: one line, exit 2. */
function entryFound(file, given) {
  if (entryExists(file)) return true;
  writeLine(2, `coldstart: the app's entry ${given} is not a file here; start runs a Node script in this process: give -- node <script> (npm, npx and shell commands cannot run in-process)`);
  process.exitCode = 2;
  return false;
}

class StartUsageError extends Error {}

/**
 * Parses `[start options] [--] command...` by hand (yargs costs more than the whole extraction).
 * @param {string[]} argv
 * @returns {{archive?: string, into?: string, mode: string, quiet: boolean, help: boolean,
 *   warnings: string[], app: object}}
 */
function parseStartArgs(argv) {
  const options = { mode: undefined, verify: 'size', report: process.env.COLDSTART_REPORT || undefined, quiet: false, help: false, warnings: [] };
  let i = 0;
  const valueOf = (name, inline) => {
    if (inline !== undefined) return inline;
    i += 1;
    if (i >= argv.length || argv[i] === '--') throw new StartUsageError(`${name} needs a value`);
    return argv[i];
  };
  for (; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') {
      i += 1;
      break;
    }
    if (!word.startsWith('-') || word === '-') break; // the command starts without `--`
    const eq = word.indexOf('=');
    const name = eq === -1 ? word : word.slice(0, eq);
    const inline = eq === -1 ? undefined : word.slice(eq + 1);
    if (name === '--archive') options.archive = valueOf(name, inline);
    else if (name === '--into') options.into = valueOf(name, inline);
    else if (name === '--root') options.root = valueOf(name, inline);
    else if (name === '--report-file') options.report = valueOf(name, inline);
    else if (name === '--mode') options.mode = valueOf(name, inline);
    else if (name === '--trust-archive') options.verify = 'none';
    else if (name === '--report' || name === '--verify') require('../deprecated-flags.js').oldStartFlag(name, valueOf(name, inline), options);
    else if (name === '--quiet' || name === '-q') options.quiet = true;
    else if (name === '--help' || name === '-h') options.help = true;
    else options.warnings.push(`unknown start option ${word} ignored`);
  }
  // Memory wins in every setup measured (BENCHMARKS.md); --into asks for files on disk.
  if (options.mode === undefined) options.mode = options.into ? 'extract' : 'memory';
  if (options.help) return options;
  options.app = appToRun(argv.slice(i), options.warnings);
  return options;
}

// The app as it will run in this process: preloads and flags applied here, the rest told about.
function appToRun(command, warnings) {
  if (command.length === 0) throw new StartUsageError('name the app to run after --, e.g. -- node server.js');
  const { flags, entry, args, problem } = parseNodeCommand(command, isNode(command[0]) ? 1 : 0);
  if (problem && problem.code === 'NO_ENTRY_MODE') {
    throw new StartUsageError(`node ${problem.flag} runs no entry file; coldstart start needs one (node app.js)`);
  }
  if (problem && problem.code === 'MISSING_VALUE') throw new StartUsageError(`node ${problem.flag} needs a value`);
  if (problem) throw new StartUsageError('no entry file in the app command, e.g. -- node server.js');
  const app = { requires: [], imports: [], enableSourceMaps: false, nodeFlags: [], entry, args };
  const ignored = [];
  for (const flag of flags) {
    app.nodeFlags.push(...flag.words);
    if (flag.name === '--require' || flag.name === '-r') app.requires.push(flag.value);
    else if (flag.name === '--import') app.imports.push(flag.value);
    else if (flag.name === '--enable-source-maps') app.enableSourceMaps = true;
    else ignored.push(flag.words.join(' '));
  }
  if (ignored.length) {
    warnings.push(`node flags ignored when the app runs in-process: ${ignored.join(' ')} (put them in NODE_OPTIONS)`);
  }
  return app;
}

// One line, whatever it names: an archive entry's name can hold a line break (a forged
// "coldstart: serving ..." line in the app's log) or terminal escapes. Shown as \uXXXX.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const escaped = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

function warn(message) {
  writeLine(2, `coldstart: warning: ${String(message).replace(CONTROL, escaped)}`);
}

// Straight to the descriptor: creating process.stderr here would be work the app may not need.
function writeLine(fd, line) {
  try {
    fs.writeSync(fd, `${line}\n`);
  } catch {
    // a closed stderr must not stop the app
  }
}

module.exports = { main, parseStartArgs, loadArchive, warn, writeLine };
