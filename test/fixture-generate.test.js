'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { spawn } = require('node:child_process');
const { Writable } = require('node:stream');
const { generateFixture, fixtureFiles, LISTENING_PATTERN } = require('../lib/fixtures/generate.js');
const { UsageError } = require('../lib/errors.js');
const { run } = require('../lib/cli.js');

function tempRoot(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-fixture-test-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}

// Every file under dir, relative POSIX path -> bytes.
function readTree(dir) {
  const out = new Map();
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else out.set(child, fs.readFileSync(path.join(dir, child)));
    }
  };
  walk('');
  return out;
}

// Starts the generated app with real node and resolves once it prints its listening line.
function startApp(t, dir, timeoutMs = 20000) {
  const env = { ...process.env };
  delete env.PORT;
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['index.js'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`no listening line after ${timeoutMs} ms\n${stdout}${stderr}`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const m = LISTENING_PATTERN.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), loaded: Number(m[2]), stdout });
      }
    });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`app exited (${code ?? signal}) before listening\n${stdout}${stderr}`));
    });
  });
}

function stopApp(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

function getJson(port) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve(JSON.parse(body)));
    }).on('error', reject);
  });
}

function capture() {
  let text = '';
  const stream = new Writable({ write(chunk, _enc, done) { text += chunk; done(); } });
  return { stream, text: () => text };
}

test('same options give byte-identical trees; another seed gives another tree', async (t) => {
  const root = tempRoot(t);
  const options = { modules: 300, maxProps: 40, seed: 7 };
  const a = await generateFixture({ dir: path.join(root, 'a'), ...options });
  const b = await generateFixture({ dir: path.join(root, 'b'), ...options });
  const c = await generateFixture({ dir: path.join(root, 'c'), ...options, seed: 8 });
  const treeA = readTree(a.dir);
  const treeB = readTree(b.dir);
  assert.equal(treeA.size, 2 * 300 + 3); // + package.json, index.js, node_modules/.package-lock.json
  assert.deepEqual([...treeA.keys()].sort(), [...treeB.keys()].sort());
  for (const [file, bytes] of treeA) assert.ok(bytes.equals(treeB.get(file)), `${file} differs between runs`);

  const treeC = readTree(c.dir);
  const same = [...treeC].filter(([file, bytes]) => treeA.has(file) && treeA.get(file).equals(bytes));
  assert.ok(same.length < 2, `a different seed should change the packages (${same.length} files equal)`);

  // The summary describes what is on disk.
  assert.equal(a.files, treeA.size);
  assert.equal(a.bytes, [...treeA.values()].reduce((sum, buf) => sum + buf.length, 0));
  assert.equal(a.modules, 300);
  // Nothing left next to the target but the three fixtures.
  assert.deepEqual(fs.readdirSync(root).sort(), ['a', 'b', 'c']);
});

test('fixtureFiles: 1000 packages by default, each exporting 1..maxProps properties, quickly', () => {
  const started = Date.now();
  const { files, modules, levels } = fixtureFiles();
  const elapsed = Date.now() - started;
  assert.equal(modules, 1000);
  assert.deepEqual(levels, [1000]);
  assert.equal(files.length, 2003);
  // Generous bound: the machine is shared; locally this takes well under 100 ms.
  assert.ok(elapsed < 3000, `generation took ${elapsed} ms`);
  assert.deepEqual(files.map((f) => f.path), files.map((f) => f.path).sort());

  const manifests = files.filter((f) => /^node_modules\/[^/]+\/package\.json$/.test(f.path)).map((f) => JSON.parse(f.contents));
  assert.equal(manifests.length, 1000);
  assert.equal(new Set(manifests.map((m) => m.name)).size, 1000);
  for (const m of manifests) assert.equal(m.main, 'index.js');

  const propCounts = files
    .filter((f) => /^node_modules\/[^/]+\/index\.js$/.test(f.path))
    .map((f) => f.contents.split('\n').filter((line) => /^ {2}[a-z]+\d+: /.test(line)).length);
  assert.ok(Math.min(...propCounts) >= 1);
  assert.ok(Math.max(...propCounts) <= 100);
  assert.ok(Math.max(...propCounts) > 90, 'the range up to maxProps is used');

  const small = fixtureFiles({ modules: 20, maxProps: 1 });
  for (const f of small.files.filter((x) => x.path.endsWith('/index.js'))) {
    assert.equal(f.contents.split('\n').filter((line) => /^ {2}[a-z]+\d+: /.test(line)).length, 1);
  }
});

test('the CommonJS app starts with node index.js, loads every package and serves', async (t) => {
  const root = tempRoot(t);
  const summary = await generateFixture({ dir: path.join(root, 'cjs'), modules: 200 });
  const pkg = JSON.parse(fs.readFileSync(path.join(summary.dir, 'package.json'), 'utf8'));
  assert.equal(pkg.private, true);
  assert.equal(pkg.type, undefined);
  assert.equal(pkg.scripts.start, 'node index.js');
  assert.equal(fs.readdirSync(path.join(summary.dir, 'node_modules')).filter((name) => !name.startsWith('.')).length, 200);

  const app = await startApp(t, summary.dir);
  assert.equal(app.loaded, 200);
  assert.ok(app.port > 0);
  assert.deepEqual(await getJson(app.port), { modules: 200 });
  await stopApp(app.child);
});

test('the ESM app imports every package and starts', async (t) => {
  const root = tempRoot(t);
  const summary = await generateFixture({ dir: path.join(root, 'esm'), modules: 150, esm: true });
  const pkg = JSON.parse(fs.readFileSync(path.join(summary.dir, 'package.json'), 'utf8'));
  assert.equal(pkg.type, 'module');
  const index = fs.readFileSync(path.join(summary.dir, 'index.js'), 'utf8');
  assert.equal((index.match(/^import m\d+ from /gm) || []).length, 150);
  assert.doesNotMatch(index, /require\(/);

  const app = await startApp(t, summary.dir);
  assert.equal(app.loaded, 150);
  await stopApp(app.child);
});

test('depth nests requires across levels, still N packages, still starts', async (t) => {
  const root = tempRoot(t);
  const summary = await generateFixture({ dir: path.join(root, 'deep'), modules: 120, depth: 3, seed: 3 });
  const tree = readTree(summary.dir);
  const index = tree.get('index.js').toString();
  const topRequires = (index.match(/require\('[^']+'\)/g) || []).filter((r) => !r.includes('node:'));
  assert.ok(topRequires.length > 0 && topRequires.length < 120, `index.js requires ${topRequires.length} packages`);

  const packageSources = [...tree].filter(([file]) => /^node_modules\/[^/]+\/index\.js$/.test(file));
  assert.equal(packageSources.length, 120, 'hoisted flat: all packages at the top of node_modules');
  const requiring = packageSources.filter(([, src]) => /require\(/.test(src.toString()));
  assert.ok(requiring.length > 0, 'some packages require other packages');
  // Declared dependencies match the requires, like an installed tree.
  for (const [file, src] of requiring) {
    const manifest = JSON.parse(tree.get(file.replace(/index\.js$/, 'package.json')).toString());
    const required = [...src.toString().matchAll(/require\('([^']+)'\)/g)].map((m) => m[1]).sort();
    assert.deepEqual(Object.keys(manifest.dependencies), required, file);
  }

  const app = await startApp(t, summary.dir);
  assert.equal(app.loaded, 120, 'every package is reached through the tree');
  await stopApp(app.child);

  assert.deepEqual(fixtureFiles({ modules: 120, depth: 3 }).levels.length, 3);
  assert.deepEqual(fixtureFiles({ modules: 2, depth: 5 }).levels, [1, 1], 'no more levels than packages');
});

test('refuses a non-empty target, accepts an empty one', async (t) => {
  const root = tempRoot(t);
  const busy = path.join(root, 'busy');
  fs.mkdirSync(busy);
  fs.writeFileSync(path.join(busy, 'keep.txt'), 'mine');
  await assert.rejects(generateFixture({ dir: busy, modules: 3 }), UsageError);
  assert.deepEqual(fs.readdirSync(busy), ['keep.txt']);

  const empty = path.join(root, 'empty');
  fs.mkdirSync(empty);
  const summary = await generateFixture({ dir: empty, modules: 3 });
  assert.equal(fs.readdirSync(path.join(empty, 'node_modules')).length, 4); // with npm's hidden lockfile
  assert.equal(summary.dir, empty);
  assert.deepEqual(fs.readdirSync(root).sort(), ['busy', 'empty'], 'no temp directory left behind');
});

test('coldstart fixture writes the app and prints one line, or JSON', async (t) => {
  const root = tempRoot(t);
  const out = capture();
  const err = capture();
  const code = await run(['fixture', '--modules', '30', '--out', 'w1'], {
    stdout: out.stream, stderr: err.stream, cwd: root,
  });
  assert.equal(code, 0, err.text());
  assert.equal(err.text(), '');
  assert.equal(out.text().split('\n').length, 2, 'one line');
  assert.match(out.text(), /30 CommonJS packages.*63 files/);
  assert.equal(fs.readdirSync(path.join(root, 'w1', 'node_modules')).length, 31);
  // The command and the library write the same bytes.
  const direct = await generateFixture({ dir: path.join(root, 'direct'), modules: 30 });
  assert.deepEqual(readTree(path.join(root, 'w1')), readTree(direct.dir));

  const json = capture();
  const code2 = await run(['fixture', '--modules', '12', '--es-modules', '--json', '--out', path.join(root, 'w2')], {
    stdout: json.stream, stderr: err.stream,
  });
  assert.equal(code2, 0, err.text());
  const doc = JSON.parse(json.text());
  assert.deepEqual(
    { ...doc, bytes: typeof doc.bytes },
    { dir: path.join(root, 'w2'), modules: 12, files: 27, bytes: 'number', maxProps: 100, seed: 42, depth: 1, esm: true },
  );
});

test('coldstart fixture: bad numbers and a busy --out exit 2 with one line', async (t) => {
  const root = tempRoot(t);
  for (const args of [['--modules', '0'], ['--modules', 'many']]) {
    const out = capture();
    const err = capture();
    const code = await run(['fixture', ...args, '--out', path.join(root, 'never')], { stdout: out.stream, stderr: err.stream });
    assert.equal(code, 2, args.join(' '));
    assert.equal(out.text(), '');
    assert.match(err.text(), new RegExp(`^coldstart: invalid ${args[0]} "${args[1]}"[^\\n]*\\n$`));
  }
  assert.equal(fs.existsSync(path.join(root, 'never')), false);

  fs.writeFileSync(path.join(root, 'file'), 'x');
  const err = capture();
  const code = await run(['fixture', '--modules', '2', '--out', 'file'], { stdout: capture().stream, stderr: err.stream, cwd: root });
  assert.equal(code, 2);
  assert.match(err.text(), /^coldstart: .*file exists and is not a directory\n$/);
});
