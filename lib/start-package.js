'use strict';
// The runtime alone as its own npm package, coldstart-start: the files `coldstart start` and its
// preload (`node --require coldstart-start`) can load, found by following their relative require()
// calls from the two entries, with a package.json of no dependencies. An app that only starts from
// an archive depends on it (and on coldstart as a devDependency, for pack): its production install
// carries a few hundred kB instead of the CLI with ncc, yargs and speedscope.
//   node lib/start-package.js DIR    writes the package to DIR; `npm pack DIR` makes its tarball
const fs = require('fs');
const path = require('path');

const NAME = 'coldstart-start';
const ROOT = path.resolve(__dirname, '..');
const ENTRIES = ['start.js', 'bin/coldstart-start.js'];
const REQUIRE = /\brequire\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** The repository files the runtime can load, relative to the repository, sorted. */
function runtimeFiles(root = ROOT) {
  const found = new Set();
  const visit = (rel) => {
    if (found.has(rel)) return;
    found.add(rel);
    const source = fs.readFileSync(path.join(root, rel), 'utf8');
    for (const [, request] of source.matchAll(REQUIRE)) visit(path.posix.join(path.posix.dirname(rel), request));
  };
  ENTRIES.forEach(visit);
  return [...found].sort();
}

function manifest(root) {
  const cli = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return {
    name: NAME,
    version: cli.version,
    description: `The runtime of coldstart ${cli.version} alone: \`coldstart-start --archive startup.tar -- node server.js\` or \`node --require ${NAME}\` serve an app's startup files from memory. Archives are made by coldstart pack (the same version).`,
    license: cli.license,
    bin: { [NAME]: 'bin/coldstart-start.js' },
    main: 'start.js',
    engines: cli.engines,
  };
}

/** Writes the package to outDir (made whole beside it, then renamed into place). */
function writeStartPackage(outDir, root = ROOT) {
  const target = path.resolve(outDir);
  const tmp = `${target}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  try {
    for (const rel of [...runtimeFiles(root), 'LICENSE']) {
      fs.mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
      fs.copyFileSync(path.join(root, rel), path.join(tmp, rel));
    }
    fs.writeFileSync(path.join(tmp, 'package.json'), `${JSON.stringify(manifest(root), null, 2)}\n`);
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return target;
}

if (require.main === module) {
  const [outDir, extra] = process.argv.slice(2);
  if (!outDir || extra) {
    process.stderr.write('coldstart: usage: node lib/start-package.js DIR\n');
    process.exitCode = 2;
  } else {
    const written = writeStartPackage(outDir);
    process.stdout.write(`${NAME}: ${runtimeFiles().length} files written to ${written}; npm pack ${path.relative(process.cwd(), written) || '.'} makes its tarball\n`);
  }
}

module.exports = { runtimeFiles, writeStartPackage, START_PACKAGE: NAME };
