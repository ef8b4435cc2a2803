'use strict';
// The `node [flags] <entry> [args]` command a bundle replaces: which flags are preloads
// (--require, --import, --loader), which argument is the entry, and the same command
// rewritten to start the bundle from the output directory. Pure.
const path = require('path');
const { parseNodeCommand, isNode, PRELOAD_FLAGS } = require('../node-command.js');
const { UsageError } = require('../errors.js');

/** A preload given as a path (./tracing.js, /opt/x.js), not as a package name. */
function isPathSpec(spec) {
  return spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/') || spec.startsWith('file:') ||
    /^[A-Za-z]:[\\/]/.test(spec) || spec === '.' || spec === '..';
}

/**
 * @param {string[]} command e.g. ['node', '--require', './tracing.js', 'server.js', '--port', '3000']
 * @returns {{ node: string, flags: string[], preloads: Array<{flag: string, spec: string, at: number, inline: boolean, isPath: boolean}>,
 *             entry: string, entryAt: number, args: string[] }}
 */
function parseAppCommand(command) {
  if (!Array.isArray(command) || !command.length) {
    throw new UsageError('missing app command: put it after --, e.g. coldstart bundle -- node server.js');
  }
  if (!isNode(command[0])) {
    throw new UsageError(`bundle needs a node command with an entry file (got "${command[0]}"): e.g. coldstart bundle -- node --require ./tracing.js server.js`);
  }
  const parsed = parseNodeCommand(command);
  if (parsed.problem) throw new UsageError('bundle needs an entry file in the node command (node -e/-p and the REPL cannot be bundled)');
  const at = parsed.entryAt;
  const preloads = parsed.flags.filter((f) => PRELOAD_FLAGS.has(f.name))
    .map((f) => ({ flag: f.name, spec: f.value, at: f.inline ? f.at : f.at + 1, inline: f.inline, isPath: isPathSpec(f.value) }));
  return {
    node: command[0],
    flags: command.slice(1, at),
    preloads,
    entry: command[at],
    entryAt: at,
    args: command.slice(at + 1),
  };
}

/**
 * The command that starts the bundle from `outDir`: same node and flags, preloads given as
 * paths point at their copies, the entry at the bundle.
 * @param {string[]} command the original command
 * @param {ReturnType<typeof parseAppCommand>} parsed
 * @param {{ cwd: string, root: string, entryRel: string }} where entryRel: the bundle, relative to the output directory
 * @returns {string[]}
 */
function bundleCommand(command, parsed, { cwd, root, entryRel }) {
  const out = command.slice();
  for (const p of parsed.preloads) {
    if (!p.isPath || p.spec.startsWith('file:')) continue;
    const abs = path.resolve(cwd, p.spec);
    const rel = path.relative(root, abs);
    // Outside the app it is not copied: point at it where it is. Inside, the copy sits at the
    // same place under the output directory.
    const spec = rel.startsWith('..') || path.isAbsolute(rel) ? abs : `./${rel.split(path.sep).join('/')}`;
    out[p.at] = p.inline ? `${p.flag}=${spec}` : spec;
  }
  out[parsed.entryAt] = entryRel.split(path.sep).join('/');
  return out;
}

module.exports = { parseAppCommand, bundleCommand };
