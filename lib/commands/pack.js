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
    .option('code-cache-run', { type: 'boolean', default: true, describe: 'record the cache from a second start of the app under coldstart start, up to its ready moment (--no-code-cache-run: compile the modules without running them, for apps whose start has side effects)' })
    .example('$0 pack --out /startup.tar -- node dist/index.js', '')
    .example('$0 pack --manifest .coldstart/startup-files.txt --out startup.tar', ''),
  async run(argv, ctx) {
    const out = path.resolve(ctx.cwd, argv.out || 'startup.tar');
    const started = process.hrtime.bigint();
    const { readManifestFile, confineToRoot } = require('../pack/manifest.js');
    let root;
    let listed;
    let outsideRoot = [];
    let readyAt = null;
    let index = null;
    let appRun = null;

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
      index = startupIndex(result);
      appRun = { command: argv.appCommand, cwd: options.cwd, env: options.env, until: options.until, timeoutMs: options.timeoutMs };
      outsideRoot = result.outsideRoot;
      readyAt = result.readyAt;
    }

    const { files, outside, missing } = confineToRoot(listed, root);
    outsideRoot = [...outsideRoot, ...outside];
    if (!files.length) throw new CommandError('nothing to pack: no startup file inside the root');
    const { relativeInside } = require('../capture/module-records.js');
    if (files.includes(relativeInside(root, out))) {
      throw new UsageError(`--out ${out} would overwrite a startup file`);
    }
    let prepared = null; // the files are read once, however many archives are written
    const write = (target, codeCache) => {
      const { writeArchive, prepareArchive } = require('../pack/archive.js');
      try {
        prepared = prepared || prepareArchive({ root, files });
        return writeArchive({ prepared, out: target, ...archiveEntries(index, codeCache) });
      } catch (err) {
        if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'ENOTDIR' || err.code === 'EROFS') {
          throw new UsageError(`cannot write --out ${out}: ${err.code}`);
        }
        throw err;
      }
    };
    let codeCache = null;
    if (argv.codeCache && index) {
      codeCache = await makeCodeCache({ root, index, appRun: argv.codeCacheRun ? appRun : null, write, out, stderr: ctx.stderr });
    }
    const written = write(out, codeCache);
    const { treeSize } = require('../tree-size.js');
    const tree = treeSize(root);
    const summary = {
      archive: out,
      root,
      files: files.length,
      bytes: written.bytes - written.generatedBytes,
      codeCache: codeCache && { modules: Object.keys(codeCache.index.entries).length, bytes: codeCache.blob.length, made: codeCache.made },
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

/** The index `start --mode memory` reads: resolutions and module formats. */
function startupIndex(result) {
  const fs = require('fs');
  const { buildStartupIndex } = require('../pack/startup-index.js');
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
  return buildStartupIndex(result, scopeTypeOf, (f) => relativeInside(result.root, f));
}

/**
 * The generated entries: the index first, with where every file lies in the archive (so
 * start reads nothing else up front), and the code cache when there is one.
 */
function archiveEntries(index, codeCache) {
  if (!index) return {};
  const { INDEX_PATH } = require('../pack/startup-index.js');
  const { CACHE_PATH } = require('../pack/code-cache.js');
  const full = codeCache ? { ...index, codeCache: codeCache.index } : index;
  return {
    leadEntry: { path: INDEX_PATH, data: (layout) => Buffer.from(JSON.stringify({ ...full, layout })) },
    extraEntries: codeCache ? [{ path: CACHE_PATH, data: codeCache.blob }] : [],
  };
}

/**
 * V8 code cache for the CommonJS startup modules. Recorded from a run of the app under
 * `coldstart start` up to its ready moment, so it holds the functions startup ran; when that
 * run cannot be made (the command is not `node <script>`, the app fails under start), the
 * modules are compiled without running them, which caches their top-level code only.
 */
async function makeCodeCache({ root, index, appRun, write, out, stderr }) {
  if (appRun) {
    const recorded = await recordCodeCache({ appRun, write, out, stderr });
    if (recorded) return recorded;
  }
  const { buildCodeCache } = require('../pack/code-cache.js');
  const commonjs = Object.keys(index.formats).filter((rel) => index.formats[rel] === 'commonjs');
  return { ...buildCodeCache(root, commonjs), made: 'compile' };
}

/** The recorded cache, or null (with one warning) when the run gave none. */
async function recordCodeCache({ appRun, write, out, stderr }) {
  const fs = require('fs');
  const uncached = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.uncached.tmp`);
  try {
    write(uncached, null);
    const { recordCodeCacheRun } = require('../pack/code-cache-run.js');
    const recorded = await recordCodeCacheRun({ archive: uncached, ...appRun });
    if (Object.keys(recorded.index.entries).length) return { ...recorded, made: 'run' };
    stderr.write('coldstart: warning: the run under coldstart start compiled no module from the archive (is the working directory the app root?); code cache compiled without running the app\n');
  } catch (err) {
    if (err.exitCode !== undefined) throw err;
    stderr.write(`coldstart: warning: could not record the code cache under coldstart start (${err.message}); compiling the modules without running them\n`);
  } finally {
    fs.rmSync(uncached, { force: true });
  }
  return null;
}

function renderPackSummary(s) {
  const { size } = require('../report/terminal.js');
  const pct = s.tree.bytes ? ` (${((100 * s.bytes) / s.tree.bytes).toFixed(1)}% of ${s.tree.files} files, ${size(s.tree.bytes)} under the root)` : '';
  const lines = [`coldstart: packed ${s.files} files, ${size(s.bytes)}${pct} into ${s.archive} (${size(s.archiveBytes)}) in ${Math.round(s.ms)} ms`];
  if (s.codeCache) {
    const how = s.codeCache.made === 'run' ? 'recorded at the ready moment' : 'compiled without running';
    lines.push(`  code cache: ${s.codeCache.modules} modules, ${size(s.codeCache.bytes)}, ${how}`);
  }
  if (s.outsideRoot.length) {
    lines.push(`  not packed, outside the root ${s.root}:`);
    for (const f of s.outsideRoot.slice(0, 10)) lines.push(`    ${f}`);
    if (s.outsideRoot.length > 10) lines.push(`    … ${s.outsideRoot.length - 10} more (--json lists all)`);
  }
  if (s.missing.length) lines.push(`  listed but missing: ${s.missing.length} (e.g. ${s.missing[0]})`);
  return lines.join('\n') + '\n';
}
