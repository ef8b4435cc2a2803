'use strict';
// Small startup apps whose V8 CPU profiles are stored next to this file, and the script that
// captured them: `node test/data/startup-apps.js --write [--best-of 5]` rewrites the *.cpuprofile files here.
// `node --test test/` also runs every .js file under test/, this one included: without --write
// it only loads, so a test run never replaces the stored profiles.
// The tests read the stored profiles (fixed input, exact expectations) and also capture one
// fresh profile with writeManyModulesApp, so a Node release that renames loader frames shows up.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const EXPRESS = path.join(__dirname, '..', '..', 'node_modules', 'express');
const LISTEN_THEN_CLOSE = "server.on('listening', () => server.close());";

/** An express app: the package graph most users start with (about 70 CJS files). */
function writeExpressApp(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'app.js'), [
    `const express = require(${JSON.stringify(EXPRESS)});`,
    'const app = express();',
    "app.get('/', (req, res) => res.send('ok'));",
    'const server = app.listen(0);',
    LISTEN_THEN_CLOSE,
    '',
  ].join('\n'));
  return path.join(dir, 'app.js');
}

/** An ESM app: static imports of .mjs files, a JSON import and a CJS file imported from ESM. */
function writeEsmApp(dir, count = 40) {
  const src = path.join(dir, 'src');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'config.json'), JSON.stringify({ greeting: 'hello', sizes: [1, 2, 3] }));
  fs.writeFileSync(path.join(src, 'legacy.cjs'), 'exports.double = (x) => x * 2;\nexports.name = "legacy";\n');
  fs.writeFileSync(path.join(src, 'shared.mjs'), 'export function mix(a, b) { return (a * 31 + b) | 0; }\n');
  const imports = [];
  for (let i = 0; i < count; i++) {
    fs.writeFileSync(path.join(src, `part${i}.mjs`), [
      "import { mix } from './shared.mjs';",
      `export const id = ${i};`,
      `export function work(n) { let h = ${i}; for (let k = 0; k < n; k++) h = mix(h, k); return h; }`,
      '',
    ].join('\n'));
    imports.push(`import * as part${i} from './src/part${i}.mjs';`);
  }
  fs.writeFileSync(path.join(dir, 'app.mjs'), [
    "import http from 'node:http';",
    "import config from './src/config.json' with { type: 'json' };",
    "import { double } from './src/legacy.cjs';",
    ...imports,
    `const parts = [${Array.from({ length: count }, (_, i) => `part${i}`).join(', ')}];`,
    'let total = double(config.sizes.length);',
    'for (const part of parts) total += part.work(2000);',
    'const server = http.createServer(() => {}).listen(0);',
    LISTEN_THEN_CLOSE,
    '',
  ].join('\n'));
  return path.join(dir, 'app.mjs');
}

/**
 * `count` small CJS modules reached through the usual resolution paths: relative files without
 * extension, directories with index.js, and packages in node_modules with a package.json "main".
 */
function writeManyModulesApp(dir, count = 300) {
  const lib = path.join(dir, 'lib');
  fs.mkdirSync(lib, { recursive: true });
  const requires = [];
  for (let i = 0; i < count; i++) {
    const body = `module.exports = { id: ${i}, value: (x) => x * ${i} + ${i % 7} };\n`;
    if (i % 3 === 0) {
      fs.writeFileSync(path.join(lib, `m${i}.js`), body);
      requires.push(`./lib/m${i}`);
    } else if (i % 3 === 1) {
      fs.mkdirSync(path.join(lib, `d${i}`), { recursive: true });
      fs.writeFileSync(path.join(lib, `d${i}`, 'index.js'), body);
      requires.push(`./lib/d${i}`);
    } else {
      const pkg = path.join(dir, 'node_modules', `pkg${i}`);
      fs.mkdirSync(path.join(pkg, 'src'), { recursive: true });
      fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: `pkg${i}`, main: 'src/main.js' }));
      fs.writeFileSync(path.join(pkg, 'src', 'main.js'), body);
      requires.push(`pkg${i}`);
    }
  }
  fs.writeFileSync(path.join(dir, 'app.js'), [
    "const http = require('node:http');",
    `const modules = ${JSON.stringify(requires)}.map((name) => require(name));`,
    'let total = 0;',
    'for (const m of modules) total += m.value(3);',
    'const server = http.createServer(() => {}).listen(0);',
    LISTEN_THEN_CLOSE,
    '',
  ].join('\n'));
  return path.join(dir, 'app.js');
}

/** Runs `entry` under --cpu-prof and returns the parsed profile. */
function captureProfile(entry, { interval = 100 } = {}) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-cpuprof-'));
  try {
    execFileSync(process.execPath, [
      '--cpu-prof', '--cpu-prof-interval', String(interval), '--cpu-prof-dir', outDir, entry,
    ], { cwd: path.dirname(entry), stdio: 'ignore', timeout: 30000 });
    const [name] = fs.readdirSync(outDir).filter((f) => f.endsWith('.cpuprofile'));
    return JSON.parse(fs.readFileSync(path.join(outDir, name), 'utf8'));
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

module.exports = { writeExpressApp, writeEsmApp, writeManyModulesApp, captureProfile };

if (require.main === module && process.argv.includes('--write')) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-apps-'));
  try {
    const apps = {
      express: writeExpressApp(path.join(work, 'express')),
      esm: writeEsmApp(path.join(work, 'esm')),
      'many-modules': writeManyModulesApp(path.join(work, 'many-modules')),
    };
    // On a shared machine a neighbour's burst stretches a startup and starves V8's sampler
    // thread: keep the least disturbed of several captures, the one sampled most densely.
    const bestOf = Number(process.argv[process.argv.indexOf('--best-of') + 1]) || 5;
    const meanInterval = (p) => (p.endTime - p.startTime) / Math.max(1, p.samples.length);
    for (const [name, entry] of Object.entries(apps)) {
      const profile = Array.from({ length: bestOf }, () => captureProfile(entry))
        .reduce((best, p) => (meanInterval(p) < meanInterval(best) ? p : best));
      const file = path.join(__dirname, `${name}.node${process.versions.node.split('.')[0]}.cpuprofile`);
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(profile));
      fs.renameSync(`${file}.tmp`, file);
      console.log(`${path.basename(file)}: ${profile.nodes.length} nodes, ${profile.samples.length} samples, ` +
        `${Math.round(fs.statSync(file).size / 1024)} KB`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
