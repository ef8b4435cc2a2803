'use strict';
// Inside the container of bench/module-image.js: three ways to have an app's CommonJS modules
// compiled before they run, each behind the same small loader, so only the compile step differs.
//   per-module  one vm.Script per module, each with its own V8 code cache (what `coldstart start`
//               does with `pack --code-cache`)
//   image       every module a function in one script, one code cache for all of them
//   snapshot    the modules evaluated at image build and kept in a V8 startup snapshot
//               (`node --snapshot-blob`); the entry runs in the deserialize main
// The entry itself (it listens) is compiled from source in every variant. Each run prints
// `ready <ms since process start> frame <where a module's stack frame points>` at the app's first
// console.log (its listening line) and exits.
//   node module-image.cjs prepare        at image build: index, sources, caches, snapshot
//   node module-image.cjs per-module|image|bare
//   node --snapshot-blob .image/graph.blob
//   MODULE_IMAGE_PLAIN=1 node -r ./module-image.cjs index.js
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const APP = __dirname;
const OUT = path.join(APP, '.image');
const ENTRY = path.join(APP, 'index.js');
// A module that tells where its own stack frame points: its file, or the image's.
const PROBE = path.join(APP, 'probe.js');
const IMAGE_NAME = path.join(OUT, 'image.js');
const HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const TAIL = '\n})';

function onReady(table) {
  const log = console.log;
  console.log = function firstLine() {
    console.log = log;
    const probe = table ? table.get(PROBE) : null;
    const frame = probe ? /\((.*):\d+:\d+\)/.exec(probe.exports())[1] : '-';
    log(`ready ${performance.now().toFixed(1)} frame ${frame}`);
    process.exit(0);
  };
}

/** Every module the entry needs, found by following require('...') calls, and what each resolves to. */
function findGraph() {
  const files = [];
  const resolved = {};
  const seen = new Set([ENTRY]);
  const queue = [ENTRY];
  while (queue.length) {
    const file = queue.shift();
    const source = fs.readFileSync(file, 'utf8');
    for (const [, , request] of source.matchAll(/require\((['"])([^'"]+)\1\)/g)) {
      if (request.startsWith('node:') || require('node:module').isBuiltin(request)) continue;
      const to = require.resolve(request, { paths: [path.dirname(file)] });
      resolved[`${file}\0${request}`] = to;
      if (!seen.has(to)) {
        seen.add(to);
        files.push(to);
        queue.push(to);
      }
    }
  }
  files.push(PROBE);
  return { files, resolved };
}

/** The graph's modules (not the entry) with their sources, from one file read. */
function readGraph() {
  const { files, resolved, lengths } = JSON.parse(fs.readFileSync(path.join(OUT, 'graph.json'), 'utf8'));
  const blob = fs.readFileSync(path.join(OUT, 'sources.bin'));
  const sources = new Map();
  let offset = 0;
  files.forEach((file, i) => {
    sources.set(file, blob.subarray(offset, offset + lengths[i]).toString('utf8'));
    offset += lengths[i];
  });
  return { files, resolved, sources };
}

/**
 * A CommonJS loader over a table of compiled module functions: `compiled(file)` gives a module's
 * function (compiling it if need be); builtins go to Node's require.
 */
function makeLoader(resolved, compiled) {
  const table = new Map();
  function load(file) {
    let mod = table.get(file);
    if (mod) return mod.exports;
    mod = { exports: {}, filename: file, loaded: false };
    table.set(file, mod);
    const fn = compiled(file);
    fn.call(mod.exports, mod.exports, requireFrom(file), mod, file, path.dirname(file));
    mod.loaded = true;
    return mod.exports;
  }
  const requireFrom = (file) => (request) => {
    const to = resolved[`${file}\0${request}`];
    return to ? load(to) : require(request);
  };
  return { load, table };
}

// keep: the Script objects, to make caches from them (a snapshot cannot hold them: they are
// native handles).
function perModuleCompiler(sources, caches, keep = false) {
  const scripts = new Map();
  return {
    scripts,
    compiled(file) {
      const source = file === ENTRY ? fs.readFileSync(ENTRY, 'utf8') : sources.get(file);
      const script = new vm.Script(HEAD + source + TAIL, { filename: file, cachedData: caches ? caches.get(file) : undefined });
      if (keep) scripts.set(file, script);
      return script.runInThisContext();
    },
  };
}

function imageText(files, sources) {
  return `[${files.map((file) => HEAD + sources.get(file) + TAIL).join(',\n')}]`;
}

function imageCompiler(files, sources, cachedData) {
  const script = new vm.Script(imageText(files, sources), { filename: IMAGE_NAME, cachedData });
  const fns = script.runInThisContext();
  const byFile = new Map(files.map((file, i) => [file, fns[i]]));
  const entry = perModuleCompiler(sources, null);
  return { script, compiled: (file) => byFile.get(file) || entry.compiled(file) };
}

function prepare() {
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(PROBE, "'use strict';\nmodule.exports = function probe() { return new Error('probe').stack.split('\\n')[1]; };\n");
  const { files, resolved } = findGraph();
  const buffers = files.map((file) => fs.readFileSync(file));
  fs.writeFileSync(path.join(OUT, 'sources.bin'), Buffer.concat(buffers));
  fs.writeFileSync(path.join(OUT, 'graph.json'), JSON.stringify({ files, resolved, lengths: buffers.map((b) => b.length) }));
  const { sources } = readGraph();

  // Caches are made after the modules ran, so the functions that ran at load are in them.
  const perModule = perModuleCompiler(sources, null, true);
  const a = makeLoader(resolved, perModule.compiled);
  for (const file of files) a.load(file);
  const parts = [];
  const index = {};
  let offset = 0;
  for (const file of files) {
    const data = perModule.scripts.get(file).createCachedData();
    index[file] = [offset, data.length];
    parts.push(data);
    offset += data.length;
  }
  fs.writeFileSync(path.join(OUT, 'per-module.bin'), Buffer.concat(parts));
  fs.writeFileSync(path.join(OUT, 'per-module.json'), JSON.stringify(index));

  const image = imageCompiler(files, sources, undefined);
  const b = makeLoader(resolved, image.compiled);
  for (const file of files) b.load(file);
  fs.writeFileSync(path.join(OUT, 'image.bin'), image.script.createCachedData());

  const { execFileSync } = require('node:child_process');
  execFileSync(process.execPath, ['--snapshot-blob', path.join(OUT, 'graph.blob'), '--build-snapshot', __filename], { stdio: 'inherit' });
}

// node --build-snapshot: the modules evaluated here are in the heap the snapshot keeps.
function buildSnapshot() {
  const { files, resolved, sources } = readGraph();
  const compiler = perModuleCompiler(sources, null);
  const loader = makeLoader(resolved, compiler.compiled);
  for (const file of files) loader.load(file);
  require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {
    onReady(loader.table);
    loader.load(ENTRY);
  });
}

function run(mode) {
  if (mode === 'bare') {
    onReady(null);
    const server = require('node:http').createServer();
    server.listen(0, () => console.log('listening'));
    return;
  }
  const { files, resolved, sources } = readGraph();
  let compiled;
  if (mode === 'per-module') {
    const index = JSON.parse(fs.readFileSync(path.join(OUT, 'per-module.json'), 'utf8'));
    const blob = fs.readFileSync(path.join(OUT, 'per-module.bin'));
    const caches = new Map(Object.entries(index).map(([file, [offset, length]]) => [file, blob.subarray(offset, offset + length)]));
    compiled = perModuleCompiler(sources, caches).compiled;
  } else if (mode === 'image') {
    compiled = imageCompiler(files, sources, fs.readFileSync(path.join(OUT, 'image.bin'))).compiled;
  } else {
    throw new Error(`unknown mode ${mode}: prepare, per-module, image or bare`);
  }
  const loader = makeLoader(resolved, compiled);
  onReady(loader.table);
  loader.load(PROBE);
  loader.load(ENTRY);
}

if (require('node:v8').startupSnapshot.isBuildingSnapshot()) buildSnapshot();
else if (process.env.MODULE_IMAGE_PLAIN) onReady(new Map([[PROBE, { exports: require(PROBE) }]]));
else if (process.argv[2] === 'prepare') prepare();
else run(process.argv[2]);
