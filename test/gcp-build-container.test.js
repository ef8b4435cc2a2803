'use strict';
// The source deploy of docs/cloud-functions.md, run as Google's Node buildpack runs it, in a gVisor
// container: the uploaded source (package.json, lockfile, the function; coldstart as a dependency
// packed from this checkout with `npm pack`), then `npm ci`, `npm run gcp-build` with the script
// the page shows, and the framework's own start command with the two variables the page sets.
// The container has no network: npm installs from a cache filled on this machine beforehand.
const { test, after } = require('node:test');
const { onBenchmarkNode } = require('./helpers/suite.js');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { buildImage, runContainer, removeImages } = require('../lib/docker.js');
const { needDocker, testedRuntimes, BASE_IMAGE, REPO } = require('./helpers/docker.js');

const PAGE = path.join(REPO, 'docs', 'cloud-functions.md');
const NPM_CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'coldstart-test-fixtures', 'npm-cache');
const built = [];
let work = null;
after(async () => {
  await removeImages(built);
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The page's variables for the function's environment, from its `gcloud ... --set-env-vars` line. */
function pageEnvironment(text) {
  const vars = /--set-env-vars (\S+)/.exec(text);
  assert.ok(vars, 'docs/cloud-functions.md shows --set-env-vars');
  return Object.fromEntries(vars[1].split(',').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 600_000, env: { ...process.env, CI: '' } });
  if (r.error || r.status !== 0) throw new Error(`npm ${args.join(' ')}: ${r.error ? r.error.message : (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' / ')}`);
  return r.stdout;
}

// In the container: start the framework as the platform does, ask GET / until it answers, print
// what it answered and the function's stderr, as one JSON line.
const PROBE = `
const { spawn } = require('child_process');
const http = require('http');
const child = spawn('node_modules/.bin/functions-framework', ['--target=hello'], { env: { ...process.env, PORT: '8080' }, stdio: ['ignore', 'ignore', 'pipe'] });
let stderr = '';
child.stderr.on('data', (c) => { stderr += c; });
const done = (result) => { child.kill('SIGKILL'); console.log(JSON.stringify({ ...result, stderr })); };
const deadline = Date.now() + 120000;
(function ask() {
  if (Date.now() > deadline) return done({ error: 'no answer' });
  http.get({ host: '127.0.0.1', port: 8080, path: '/' }, (res) => {
    let body = '';
    res.on('data', (c) => { body += c; });
    res.on('end', () => done({ status: res.statusCode, body }));
  }).on('error', () => setTimeout(ask, 50));
})();
`;

test('the Cloud Functions source deploy of docs/cloud-functions.md in a gVisor container: npm ci, npm run gcp-build, the framework started with the preload serves from memory', { timeout: 20 * 60 * 1000 }, async (t) => {
  if (!onBenchmarkNode(t, 'a documented deploy no Node changes')) return;
  if (!(await needDocker(t))) return;
  const runtime = (await testedRuntimes(t)).filter((r) => r !== 'runc').pop();
  const text = fs.readFileSync(PAGE, 'utf8');
  const script = /"gcp-build": "([^"]+)"/.exec(text);
  assert.ok(script, 'the page shows a gcp-build script');
  const environment = pageEnvironment(text);

  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-gcp-build-'));
  const source = path.join(work, 'source');
  fs.mkdirSync(source);
  fs.copyFileSync(path.join(REPO, 'fixtures', 'gcf-app', 'index.js'), path.join(source, 'index.js'));
  const tarball = npm(['pack', REPO, '--pack-destination', source, '--silent'], work).trim().split('\n').pop();
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'fixtures', 'gcf-app', 'package.json'), 'utf8'));
  manifest.scripts['gcp-build'] = script[1];
  manifest.dependencies.coldstart = `file:${tarball}`;
  fs.writeFileSync(path.join(source, 'package.json'), JSON.stringify(manifest, null, 2));
  try {
    // The lockfile a developer commits, and every package it names in the cache the container's npm reads.
    npm(['install', '--cache', NPM_CACHE, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel', 'error'], source);
    // What npm ci itself asks for, as the container's will.
    npm(['ci', '--cache', NPM_CACHE, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel', 'error'], source);
  } catch (err) {
    if (process.env.CI) throw err;
    t.diagnostic(`SKIPPED LOCALLY (a failure under CI): ${err.message}`);
    t.skip(err.message);
    return;
  }
  fs.rmSync(path.join(source, 'node_modules'), { recursive: true }); // a source upload has none

  // An image as the buildpack's: node, npm (this machine's, self-contained), /usr/bin/env for scripts.
  const context = path.join(work, 'context');
  fs.mkdirSync(path.join(context, 'bin'), { recursive: true });
  const npmDir = path.dirname(path.dirname(fs.realpathSync(spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim())));
  fs.cpSync(npmDir, path.join(context, 'npm'), { recursive: true, dereference: true });
  fs.writeFileSync(path.join(context, 'bin', 'npm'), '#!/bin/sh\nexec node /usr/local/lib/node_modules/npm/bin/npm-cli.js "$@"\n', { mode: 0o755 });
  fs.copyFileSync('/usr/bin/env', path.join(context, 'bin', 'env'));
  fs.chmodSync(path.join(context, 'bin', 'env'), 0o755);
  fs.cpSync(NPM_CACHE, path.join(context, 'npm-cache'), { recursive: true });
  fs.cpSync(source, path.join(context, 'workspace'), { recursive: true });
  fs.writeFileSync(path.join(context, 'workspace', 'probe.js'), PROBE);
  fs.writeFileSync(path.join(context, 'Dockerfile'), [
    'ARG NODE_IMAGE', 'FROM ${NODE_IMAGE}',
    'COPY npm /usr/local/lib/node_modules/npm', 'COPY bin/npm /usr/local/bin/npm', 'COPY bin/env /usr/bin/env',
    'COPY npm-cache /npm-cache', 'ENV npm_config_cache=/npm-cache npm_config_offline=true npm_config_update_notifier=false',
    'COPY workspace /workspace', 'WORKDIR /workspace', '',
  ].join('\n'));
  const tag = `coldstart-test-gcp-build:${process.pid}`;
  await buildImage({ context, tag, buildArgs: { NODE_IMAGE: BASE_IMAGE }, timeoutMs: 300_000 });
  built.push(tag);

  // The buildpack's steps, then the function's start with the page's variables.
  const variables = Object.entries(environment).map(([k, v]) => `${k}=${v}`).join(' ');
  const steps = `npm ci --no-audit --no-fund && npm run gcp-build && ${variables} node probe.js`;
  const r = await runContainer({ image: tag, runtime, args: ['sh', '-c', steps], timeoutMs: 15 * 60 * 1000 });
  const output = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.code, 0, output.slice(-3000));
  const packed = /coldstart: packed (\d+) files.*\n\s+checked: its files alone/.exec(output);
  assert.ok(packed, `gcp-build packed and checked the archive: ${output.slice(-3000)}`);
  const result = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(result.status, 200, JSON.stringify(result));
  assert.equal(result.body, 'ok');
  const served = /coldstart: serving (\d+) files, [\d.]+ [kM]B from memory/.exec(result.stderr);
  assert.ok(served && Number(served[1]) > 100, `the framework and express come from the archive: ${result.stderr}`);
  assert.equal(result.stderr.match(/coldstart: serving/g).length, 1, result.stderr);
  assert.doesNotMatch(result.stderr, /warning/, result.stderr);
  t.diagnostic(`${runtime}: packed ${packed[1]} files; at start: ${served[0]}`);
});
