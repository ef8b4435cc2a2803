'use strict';
// coldstart pack -- <command>: capture to the ready moment (no profiler), then a
// deterministic tar of the startup files. Or --manifest: pack a saved list.
const path = require('path');
const { UsageError, CommandError } = require('../errors.js');
const { captureOptions, captureOptionsFromArgv } = require('./profile.js');

module.exports = {
  command: 'pack [command..]',
  describe: 'archive the files an app needs to start (run it to listen, or --manifest a saved list)',
  builder: (yargs) => captureOptions(yargs)
    .option('manifest', { type: 'string', describe: 'pack the paths listed in this file (startup-files.txt) instead of running the app' })
    .option('code-cache', { type: 'boolean', default: false, describe: 'also store V8 code cache for the CommonJS startup modules, used by start --mode memory (the cache bytes differ from pack to pack)' })
    .example('$0 pack --out /startup.tar -- node dist/index.js', '')
    .example('$0 pack --manifest .coldstart/startup-files.txt --out startup.tar', ''),
  async run(argv, ctx) {
    const out = path.resolve(ctx.cwd, argv.out || 'startup.tar');
    const started = process.hrtime.bigint();
    const { readManifestFile, confineToRoot, treeSize } = require('../pack/manifest.js');
    let root;
    let listed;
    let outsideRoot = [];
    let readyAt = null;
    let extraEntries = [];
    let leadEntry = null;

    if (argv.manifest) {
      if (argv.appCommand.length) throw new UsageError('give either --manifest or an app command, not both');
      root = path.resolve(ctx.cwd, argv.root || '.');
      listed = readManifestFile(path.resolve(ctx.cwd, argv.manifest));
    } else {
      const { capture } = require('../capture/capture.js');
      const { withInterrupts } = require('../interrupt.js');
      const options = captureOptionsFromArgv(argv, ctx);
      const result = await withInterrupts((traps) => capture({
        ...options,
        profile: false,
        signal: traps.signal,
        force: traps.force,
      }));
      if (result.partial) throw new CommandError('interrupted: nothing packed', { exitCode: 130 });
      root = result.root;
      listed = result.files.map((f) => f.path);
      ({ leadEntry, extraEntries } = startupIndexEntries(result, { codeCache: argv.codeCache }));
      outsideRoot = result.outsideRoot;
      readyAt = result.readyAt;
    }

    const { files, outside, missing } = confineToRoot(listed, root);
    outsideRoot = [...outsideRoot, ...outside];
    if (!files.length) throw new CommandError('nothing to pack: no startup file inside the root');
    const rel = path.relative(root, out);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel) && files.includes(rel.split(path.sep).join('/'))) {
      throw new UsageError(`--out ${out} would overwrite a startup file`);
    }
    const { writeArchive } = require('../pack/archive.js');
    let written;
    try {
      written = writeArchive({ root, files, out, extraEntries, leadEntry });
    } catch (err) {
      if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'ENOTDIR' || err.code === 'EROFS') {
        throw new UsageError(`cannot write --out ${out}: ${err.code}`);
      }
      throw err;
    }
    const tree = treeSize(root);
    const summary = {
      archive: out,
      root,
      files: files.length,
      bytes: written.bytes - written.generatedBytes,
      archiveBytes: written.archiveBytes,
      tree,
      readyAt,
      outsideRoot,
      missing,
      ms: Number(process.hrtime.bigint() - started) / 1e6,
    };
    if (argv.json) ctx.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else if (!argv.quiet) ctx.stdout.write(renderPackSummary(summary));
    if (argv.strict && (outsideRoot.length || missing.length)) {
      throw new CommandError(`--strict: ${outsideRoot.length} files outside the root, ${missing.length} listed files missing`);
    }
    return 0;
  },
};

/**
 * The index `start --mode memory` reads (resolutions, module formats, where each file lies in
 * the archive), written first, and the code cache.
 */
function startupIndexEntries(result, { codeCache }) {
  const fs = require('fs');
  const { buildStartupIndex, INDEX_PATH } = require('../pack/startup-index.js');
  const { relativeInside } = require('../capture/module-records.js');
  const scopeCache = new Map();
  const scopeTypeOf = (file) => {
    let dir = path.dirname(file);
    const seen = [];
    let type = 'commonjs';
    for (;;) {
      if (scopeCache.has(dir)) { type = scopeCache.get(dir); break; }
      seen.push(dir);
      try {
        type = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).type || 'commonjs';
        break;
      } catch { /* no readable package.json here: look further up */ }
      const up = path.dirname(dir);
      if (up === dir || path.basename(dir) === 'node_modules') break;
      dir = up;
    }
    for (const d of seen) scopeCache.set(d, type);
    return type;
  };
  const index = buildStartupIndex(result, scopeTypeOf, (f) => relativeInside(result.root, f));
  const extraEntries = [];
  if (codeCache) {
    const { buildCodeCache, CACHE_PATH } = require('../pack/code-cache.js');
    const commonjs = Object.keys(index.formats).filter((rel) => index.formats[rel] === 'commonjs');
    const cache = buildCodeCache(result.root, commonjs);
    index.codeCache = cache.index;
    extraEntries.push({ path: CACHE_PATH, data: cache.blob });
  }
  const leadEntry = { path: INDEX_PATH, data: (layout) => Buffer.from(JSON.stringify({ ...index, layout })) };
  return { leadEntry, extraEntries };
}

function renderPackSummary(s) {
  const { size } = require('../report/terminal.js');
  const pct = s.tree.bytes ? ` (${((100 * s.bytes) / s.tree.bytes).toFixed(1)}% of ${s.tree.files} files, ${size(s.tree.bytes)} under the root)` : '';
  const lines = [`coldstart: packed ${s.files} files, ${size(s.bytes)}${pct} into ${s.archive} (${size(s.archiveBytes)}) in ${Math.round(s.ms)} ms`];
  if (s.outsideRoot.length) {
    lines.push(`  not packed, outside the root ${s.root}:`);
    for (const f of s.outsideRoot.slice(0, 10)) lines.push(`    ${f}`);
    if (s.outsideRoot.length > 10) lines.push(`    … ${s.outsideRoot.length - 10} more (--json lists all)`);
  }
  if (s.missing.length) lines.push(`  listed but missing: ${s.missing.length} (e.g. ${s.missing[0]})`);
  return lines.join('\n') + '\n';
}
