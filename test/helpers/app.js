'use strict';
// Test plumbing: copy a fixture app into a temp dir (with the packages it depends
// on, taken from this repo's node_modules), and run the CLI in-process or as a child.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { linkPackageBins } = require('../../lib/docker.js');

const REPO = path.join(__dirname, '..', '..');
const BIN = path.join(REPO, 'bin', 'coldstart.js');
const REPO_MODULES = path.join(REPO, 'node_modules');

/** Names of every package `names` need, following dependencies (flat npm layout). */
function dependencyClosure(names) {
  const seen = new Set();
  const todo = [...names];
  while (todo.length) {
    const name = todo.pop();
    if (seen.has(name)) continue;
    const pj = path.join(REPO_MODULES, name, 'package.json');
    if (!fs.existsSync(pj)) throw new Error(`fixture dependency ${name} is not installed: run npm ci`);
    seen.add(name);
    const deps = JSON.parse(fs.readFileSync(pj, 'utf8')).dependencies || {};
    todo.push(...Object.keys(deps));
  }
  return [...seen].sort();
}

/** Copies fixtures/<name> into a fresh temp dir with its node_modules; returns the dir. */
function copyFixture(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cs-${name}-`));
  fs.cpSync(path.join(REPO, 'fixtures', name), dir, { recursive: true });
  const pj = path.join(dir, 'package.json');
  const deps = fs.existsSync(pj) ? Object.keys(JSON.parse(fs.readFileSync(pj, 'utf8')).dependencies || {}) : [];
  for (const dep of dependencyClosure(deps)) {
    fs.cpSync(path.join(REPO_MODULES, dep), path.join(dir, 'node_modules', dep), { recursive: true });
    linkPackageBins(path.join(dir, 'node_modules'), dep);
  }
  return dir;
}

/**
 * One copy of fixtures/<name> shared by the tests of a file that add files beside it and change
 * none of its own: copied at its first use, removed after the file's tests. Call at a file's top
 * level (the removal is a hook of the file): `const expressApp = fixtureForFile('express-app');`,
 * then `expressApp()` in each test gives the copy's directory.
 * @param {string} name a folder of fixtures/
 * @returns {() => string}
 */
function fixtureForFile(name) {
  let dir = null;
  require('node:test').after(() => { if (dir) rm(dir); });
  return () => {
    if (!dir) dir = copyFixture(name);
    return dir;
  };
}

function collector() {
  let text = '';
  return { write(chunk) { text += chunk; return true; }, get text() { return text; }, isTTY: false };
}

/** Runs the CLI in this process; resolves to { code, stdout, stderr }. */
async function runCli(args, { cwd, env } = {}) {
  const { run } = require('../../lib/cli.js');
  const stdout = collector();
  const stderr = collector();
  // As a user's shell runs it: not in CI (where long commands print a line per phase, and check writes a job summary) unless a test says so.
  const code = await run(args, { stdout, stderr, cwd, env: { ...process.env, CI: '', GITHUB_STEP_SUMMARY: '', ...env } });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Runs bin/coldstart.js as a child process. */
function spawnCli(args, { cwd, env } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, CI: '', GITHUB_STEP_SUMMARY: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => { stdout += c; });
  child.stderr.on('data', (c) => { stderr += c; });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, output: () => ({ stdout, stderr }) };
}

/** Waits until fn() is truthy or the time is up. */
async function waitFor(fn, ms = 10000, what = 'condition') {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs node with `args` in `cwd` until its output matches `pattern`, then kills it.
 * Resolves to the output; rejects when it exits first or takes longer than `ms`.
 */
function runNodeUntil(cwd, args, pattern, ms = 15000) {
  return new Promise((resolve, reject) => {
    // Its own process group, so processes it started (npm's shell, the app) end with it.
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const killGroup = () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { child.kill('SIGKILL'); } };
    let out = '';
    let matched = false;
    const timer = setTimeout(() => { killGroup(); reject(new Error(`no match for ${pattern}: ${out}`)); }, ms);
    const onData = (c) => {
      out += c;
      if (!matched && pattern.test(out)) { matched = true; clearTimeout(timer); killGroup(); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    // stdout and stderr are two pipes: what the app wrote to one before the match may still be
    // unread in the other. 'close' comes once both are drained.
    child.on('close', (code) => {
      if (matched) resolve(out);
      else { clearTimeout(timer); killGroup(); reject(new Error(`exited ${code}: ${out}`)); }
    });
  });
}

// A killed process whose parent is gone stays a zombie until init reaps it: not alive.
function isAlive(pid) {
  try { process.kill(pid, 0); } catch { return false; }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no /proc: the signal answer is all there is
  }
}

/** Writes files given as { relative path: text } under dir, making their directories. */
function writeFiles(dir, files) {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

function rm(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

module.exports = { REPO, BIN, copyFixture, fixtureForFile, runCli, spawnCli, runNodeUntil, waitFor, isAlive, rm, writeFiles, dependencyClosure };
