'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { copyFixture, runCli, rm, isAlive, waitFor } = require('./helpers/app.js');

test('npm start: the server process is profiled and nothing outlives the command', async () => {
  const dir = copyFixture('npm-start');
  const pidFile = path.join(dir, 'server.pid');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'npm', 'start'], { cwd: dir, env: { PID_FILE: pidFile } });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    const serverPid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.strictEqual(report.pid, serverPid, 'the process that listened is the one profiled');
    assert.ok(report.modules.some((m) => m.file === 'server.js'));
    assert.ok(!report.modules.some((m) => /npm-cli|node_modules\/npm\//.test(m.file)), 'npm itself is not profiled');
    await waitFor(() => !isAlive(serverPid), 5000, 'server to end');
  } finally {
    rm(dir);
  }
});

test('a parent that forks the server: the child is profiled, parent and child are ended', async () => {
  const dir = copyFixture('fork-app');
  const pidFile = path.join(dir, 'server.pid');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', 'launcher.js'], { cwd: dir, env: { PID_FILE: pidFile } });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    const childPid = Number(fs.readFileSync(pidFile, 'utf8'));
    const parentPid = Number(fs.readFileSync(pidFile + '.parent', 'utf8'));
    assert.strictEqual(report.pid, childPid);
    assert.ok(report.modules.some((m) => m.file === 'server.js'));
    await waitFor(() => !isAlive(childPid) && !isAlive(parentPid), 5000, 'tree to end');
  } finally {
    rm(dir);
  }
});

test('a launcher listening on a Unix socket before forking the server (tsx): the server is profiled', async () => {
  const dir = copyFixture('fork-app');
  const pidFile = path.join(dir, 'server.pid');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', 'pipe-launcher.js'], { cwd: dir, env: { PID_FILE: pidFile } });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    const childPid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.strictEqual(report.pid, childPid, 'the socket the launcher opened is not the ready moment');
    assert.ok(report.modules.some((m) => m.file === 'server.js'));
    await waitFor(() => !isAlive(childPid), 5000, 'server to end');
  } finally {
    rm(dir);
  }
});

test('cluster: the first worker to listen is the ready process; files of primary and worker are both listed and packed', async () => {
  const dir = copyFixture('cluster-app');
  const pidFile = path.join(dir, 'app.pid');
  try {
    const { code, stdout, stderr } = await runCli(['profile', '--json', '--', 'node', 'server.js'], { cwd: dir, env: { PID_FILE: pidFile } });
    assert.strictEqual(code, 0, stderr);
    const report = JSON.parse(stdout);
    const primary = Number(fs.readFileSync(pidFile + '.primary', 'utf8'));
    const worker = Number(fs.readFileSync(pidFile + '.worker', 'utf8'));
    assert.strictEqual(report.pid, worker, 'the worker that listened is the one reported, not the primary');
    assert.deepStrictEqual(report.modules.map((m) => m.file).sort(), ['routes.js', 'server.js']);
    const files = fs.readFileSync(path.join(dir, '.coldstart', 'startup-files.txt'), 'utf8').trim().split('\n');
    for (const f of ['primary.js', 'routes.js', 'server.js']) assert.ok(files.includes(f), `${f} in startup-files.txt: ${files}`);
    await waitFor(() => !isAlive(primary) && !isAlive(worker), 5000, 'primary and worker to end');

    const tar = path.join(dir, 'startup.tar');
    const packed = await runCli(['pack', '-q', '--out', tar, '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(packed.code, 0, packed.stderr);
    const { readTarEntries } = require('../lib/start/tar-reader.js');
    const names = [...readTarEntries(fs.readFileSync(tar))].map((e) => e.path);
    for (const f of ['primary.js', 'routes.js', 'server.js']) assert.ok(names.includes(f), `${f} packed: ${names}`);
  } finally {
    rm(dir);
  }
});

test('detached children, and the children of a child that already exited, do not outlive the command', async () => {
  const dir = copyFixture('spawns-children');
  const pidFile = path.join(dir, 'children.pid');
  try {
    for (const args of [['profile', '-q'], ['pack', '-q', '--out', path.join(dir, 's.tar')]]) {
      const { code, stderr } = await runCli([...args, '--', 'node', 'server.js'], { cwd: dir, env: { PID_FILE: pidFile } });
      assert.strictEqual(code, 0, stderr);
      const pids = fs.readFileSync(pidFile, 'utf8').split('\n').map(Number);
      assert.strictEqual(pids.length, 3);
      await waitFor(() => pids.every((pid) => !isAlive(pid)), 3000, `${args[0]}: processes ${pids} to end`);
    }
    // Recording a child's start time reads /proc: the agent's read, not one of the app's files.
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    assert.deepStrictEqual(report.outsideRoot, []);
  } finally {
    rm(dir);
  }
});
