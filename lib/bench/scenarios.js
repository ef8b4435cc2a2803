'use strict';
// The seed experiment's three scenarios, as small self-contained Node scripts placed next to a
// copy of the fixture tree, so the same directory runs on this machine and as a Docker build
// context. bench/seed-table.js times them through bench's plan (lib/bench/bench-plan.js):
//   require     load the app's module tree where it ships (the app then listens)
//   regenerate  write the whole tree into a new temp directory, then load it from there
//   cpu         spin for 1 s, then listen: the control, which touches no files
// Every scenario ends by listening and printing a line that READY_LINE matches.
const fs = require('node:fs');
const path = require('node:path');
const { UsageError, CommandError } = require('../errors.js');

const SCENARIO_NAMES = ['require', 'regenerate', 'cpu'];
const SCRIPTS_DIR = 'coldstart-scenarios';
const TREE_FILE = 'tree.json';
const CPU_SPIN_MS = 1000;
/** What every scenario prints once it listens (the fixture's own line matches it too). */
const READY_LINE = /listening on port \d+/;
// Never copied into the scenario app, nor into the regenerated tree.
const SKIPPED = new Set(['.git', '.coldstart', SCRIPTS_DIR]);

const DESCRIPTIONS = {
  require: 'load the module tree where it ships',
  regenerate: 'write the tree into a new temp directory, then load it from there',
  cpu: `spin for ${CPU_SPIN_MS / 1000} s, then listen (the control: no files)`,
};

/** The fixture's entry and module system, from its package.json (index.js, CommonJS by default). */
function readEntry(fixtureDir) {
  let manifest = {};
  const manifestFile = path.join(fixtureDir, 'package.json');
  if (fs.existsSync(manifestFile)) {
    try {
      manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    } catch (err) {
      throw new UsageError(`cannot read ${manifestFile}: ${err.message}`);
    }
  }
  const entry = path.posix.normalize(String(manifest.main || 'index.js').replace(/\\/g, '/')).replace(/^\.\//, '');
  if (!fs.existsSync(path.join(fixtureDir, entry))) {
    throw new UsageError(`--fixture ${fixtureDir} has no ${entry}: make one with coldstart fixture --out DIR`);
  }
  const esm = manifest.type === 'module' ? !entry.endsWith('.cjs') : entry.endsWith('.mjs');
  return { entry, esm };
}

/** Every file of the tree as [relative POSIX path, contents, encoding], sorted by path. */
function readTree(dir) {
  const files = [];
  const walk = (rel) => {
    for (const dirent of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (rel === '' && SKIPPED.has(dirent.name)) continue;
      const child = rel ? `${rel}/${dirent.name}` : dirent.name;
      const full = path.join(dir, child);
      const stat = dirent.isSymbolicLink() ? fs.statSync(full) : dirent;
      if (stat.isDirectory()) walk(child);
      else if (stat.isFile()) {
        const bytes = fs.readFileSync(full);
        const text = bytes.toString('utf8');
        // Text stays readable in the JSON; anything else travels as base64.
        files.push(Buffer.from(text, 'utf8').equals(bytes) ? [child, text] : [child, bytes.toString('base64'), 'base64']);
      }
    }
  };
  walk('');
  return files.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

// How a script loads the entry: require for CommonJS, import() for ES modules.
function loadLine(target, esm) {
  return esm
    ? `import(require('node:url').pathToFileURL(${target}).href).catch((err) => { console.error(err); process.exit(1); });`
    : `require(${target});`;
}

/**
 * The scenario scripts' sources, keyed by file name (pure).
 * @param {{entry: string, esm: boolean}} app the fixture's entry relative to its root
 * @returns {Record<string, string>}
 */
function scenarioScripts({ entry, esm }) {
  const header = (name) => [
    "'use strict';",
    `// coldstart bench scenario "${name}": ${DESCRIPTIONS[name]}.`,
    '// Written by coldstart bench; runs as it is, here or in a container.',
  ];
  return {
    'require.cjs': [
      ...header('require'),
      "const path = require('node:path');",
      loadLine(`path.join(__dirname, '..', ${JSON.stringify(entry)})`, esm),
      '',
    ].join('\n'),
    'regenerate.cjs': [
      ...header('regenerate'),
      "const fs = require('node:fs');",
      "const os = require('node:os');",
      "const path = require('node:path');",
      '',
      `const tree = JSON.parse(fs.readFileSync(path.join(__dirname, ${JSON.stringify(TREE_FILE)}), 'utf8'));`,
      "const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-regenerate-'));",
      'const made = new Set();',
      'for (const [file, contents, encoding] of tree.files) {',
      '  const target = path.join(dir, file);',
      '  const folder = path.dirname(target);',
      '  if (!made.has(folder)) {',
      '    fs.mkdirSync(folder, { recursive: true });',
      '    made.add(folder);',
      '  }',
      "  fs.writeFileSync(target, encoding === 'base64' ? Buffer.from(contents, 'base64') : contents);",
      '}',
      loadLine('path.join(dir, tree.entry)', esm),
      '',
    ].join('\n'),
    'cpu.cjs': [
      ...header('cpu'),
      "const http = require('node:http');",
      '',
      'const started = performance.now();',
      'let spins = 0;',
      `while (performance.now() - started < ${CPU_SPIN_MS}) spins += 1;`,
      'const server = http.createServer((req, res) => res.end(String(spins)));',
      'server.listen(Number(process.env.PORT) || 0, () => {',
      '  console.log(`scenario cpu listening on port ${server.address().port}`);',
      '});',
      '',
    ].join('\n'),
  };
}

/**
 * Makes the scenario app: a copy of the fixture (node_modules included) plus
 * coldstart-scenarios/{require,regenerate,cpu}.cjs and the tree the regenerate scenario writes.
 * The directory is complete on its own: it is also the Docker build context.
 * @param {{fixture: string, into: string, scenarios: string[]}} options into must not exist yet
 * @returns {{dir: string, entry: string, esm: boolean, files: number,
 *   scenarios: {name: string, description: string, command: string[], env: Record<string,string>,
 *   freshTmp: boolean}[]}} commands are relative to dir (the working directory to run them from)
 */
function prepareScenarioApp({ fixture, into, scenarios }) {
  const fixtureDir = path.resolve(fixture);
  let stat;
  try {
    stat = fs.statSync(fixtureDir);
  } catch {
    throw new UsageError(`--fixture ${fixture} does not exist: make one with coldstart fixture --modules 1000 --out ${fixture}`);
  }
  if (!stat.isDirectory()) throw new UsageError(`--fixture ${fixture} is not a directory`);
  const { entry, esm } = readEntry(fixtureDir);

  const dir = path.resolve(into);
  if (fs.existsSync(dir)) throw new CommandError(`${dir} already exists`);
  fs.cpSync(fixtureDir, dir, {
    recursive: true,
    dereference: true,
    filter: (src) => !SKIPPED.has(path.relative(fixtureDir, src).split(path.sep)[0]),
  });
  const scriptsDir = path.join(dir, SCRIPTS_DIR);
  fs.mkdirSync(scriptsDir);
  for (const [name, source] of Object.entries(scenarioScripts({ entry, esm }))) {
    fs.writeFileSync(path.join(scriptsDir, name), source);
  }
  let files = 0;
  if (scenarios.includes('regenerate')) {
    const tree = readTree(fixtureDir);
    files = tree.length;
    fs.writeFileSync(path.join(scriptsDir, TREE_FILE), JSON.stringify({ entry, files: tree }));
  }
  return {
    dir,
    entry,
    esm,
    files,
    scenarios: scenarios.map((name) => ({
      name,
      description: DESCRIPTIONS[name],
      command: ['node', `${SCRIPTS_DIR}/${name}.cjs`],
      // Any free port: the fixture may have been generated with a fixed one.
      env: { PORT: '0' },
      // Each regenerate run writes a whole tree into the temp directory: give it its own.
      freshTmp: name === 'regenerate',
    })),
  };
}

module.exports = { SCENARIO_NAMES, READY_LINE, CPU_SPIN_MS, prepareScenarioApp, scenarioScripts };
