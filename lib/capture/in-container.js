'use strict';
// profile --docker IMAGE: the capture runs inside a container of the user's image, under runc or
// gVisor (runsc), where the startup time is actually spent. coldstart is mounted read-only from
// this machine (the image needs nothing extra) and runs there with the image's own node; the app
// starts as the image starts it (ENTRYPOINT + CMD, in its WORKDIR, as its USER) unless a command
// is given; no network. The artifacts come back through a scratch directory and are written to
// --out here, owned by the user running coldstart.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CommandError, UsageError } = require('../errors.js');
const { INSTALL_DIR } = require('../paths.js');

const OUT_IN_CONTAINER = '/coldstart-out';
const TMP_IN_CONTAINER = '/coldstart-tmp';
const MOUNT_POINT = '/opt/coldstart';

/**
 * Where coldstart is mounted in the container and its bin there. An install inside a project's
 * node_modules (dependencies hoisted beside it) brings that whole node_modules, so they resolve.
 * @returns {{ source: string, target: string, bin: string }}
 */
function coldstartMount(root = INSTALL_DIR) {
  const parent = path.dirname(root);
  const scoped = path.basename(parent).startsWith('@') ? path.dirname(parent) : null;
  const modules = scoped || parent;
  if (path.basename(modules) === 'node_modules') {
    const target = `${MOUNT_POINT}/node_modules`;
    return { source: modules, target, bin: `${target}/${path.relative(modules, root).split(path.sep).join('/')}/bin/coldstart.js` };
  }
  return { source: root, target: MOUNT_POINT, bin: `${MOUNT_POINT}/bin/coldstart.js` };
}

/**
 * The image's start command (ENTRYPOINT then CMD) and the node to run coldstart with: the
 * entrypoint itself when it is a node binary (distroless images), else `node` from its PATH.
 */
async function imageStart(docker, image) {
  const r = await docker(['image', 'inspect', '--format', '{{json .Config}}', image], { timeoutMs: 20_000 });
  if (r.code !== 0) {
    if (/no such image/i.test(r.stderr)) throw new UsageError(`no image "${image}" in the Docker engine (build or load it first)`);
    throw new CommandError(`docker image inspect ${image} failed: ${r.stderr.trim().split('\n').pop()}`);
  }
  const config = JSON.parse(r.stdout) || {};
  const command = [...(config.Entrypoint || []), ...(config.Cmd || [])];
  const entry = (config.Entrypoint || [])[0];
  return { command, node: entry && path.posix.basename(entry) === 'node' ? entry : 'node' };
}

/**
 * @param {{ image: string, runtime: string, command: string[], lambda?: boolean, profileArgs: string[],
 *   outDir: string, timeoutMs: number, signal?: AbortSignal, cpus?: number }} options profileArgs: the flags of
 *   `coldstart profile` to use inside (the ready moment, coverage, --lambda, …)
 * @returns {Promise<{ report: object, files: string[], appOutput: string, command: string[] }>} the
 *   report as the capture inside wrote it and the artifacts' names, now in outDir
 */
async function profileInContainer({ image, runtime, command, lambda = false, profileArgs, outDir, timeoutMs, signal, cpus = null }) {
  const { docker, runContainer, stopAllContainers } = require('../docker.js');
  const start = await imageStart(docker, image);
  // A Lambda function (profileArgs hold --lambda) is started by its runtime client, not by the image's command.
  const appCommand = command.length || lambda ? command : start.command;
  if (!appCommand.length && !lambda) throw new UsageError(`image ${image} has no ENTRYPOINT or CMD: give the app command after --`);
  const exchange = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-container-out-'));
  fs.chmodSync(exchange, 0o777); // written by the image's user, whoever it is
  const mount = coldstartMount();
  const onAbort = () => { stopAllContainers(); };
  if (signal) signal.addEventListener('abort', onAbort, { once: true });
  try {
    const r = await runContainer({
      image,
      runtime,
      timeoutMs,
      tmpfs: [`${TMP_IN_CONTAINER}:rw,exec,mode=1777`],
      // The capture's channel and scratch files go to a tmpfs of our own: the image's /tmp is its business.
      env: { TMPDIR: TMP_IN_CONTAINER, CI: '' },
      dockerArgs: ['--volume', `${mount.source}:${mount.target}:ro`, '--volume', `${exchange}:${OUT_IN_CONTAINER}`, '--entrypoint', start.node, ...(cpus ? ['--cpus', String(cpus)] : [])],
      leftovers: [exchange], // removed with the container if this process is killed
      args: [mount.bin, 'profile', '--json', '--out', OUT_IN_CONTAINER, ...profileArgs, ...(appCommand.length ? ['--', ...appCommand] : [])],
    });
    if (signal && signal.aborted) throw new CommandError('interrupted', { exitCode: 130 });
    if (r.timedOut) throw new CommandError(`the container did not finish the capture within ${Math.round(timeoutMs / 1000)} s`, { code: 'TIMEOUT' });
    if (r.code !== 0) throw containerFailure(r, start.node);
    let report;
    try {
      report = JSON.parse(r.stdout);
    } catch {
      throw new CommandError(`the capture in the container printed no report: ${lastLine(r.stderr) || `exit ${r.code}`}`);
    }
    const files = takeArtifacts(exchange, outDir);
    return { report, files, appOutput: r.stderr, command: appCommand };
  } finally {
    if (signal) signal.removeEventListener('abort', onAbort);
    fs.rmSync(exchange, { recursive: true, force: true });
  }
}

// The largest artifact taken back: a CPU profile of a very large app is a few hundred MB.
const MAX_ARTIFACT_BYTES = 1 << 30;

/**
 * The exchange folder is written by the container, which may be anyone's image: it is data, never
 * paths to follow. Only the artifacts profile writes, by name, each a regular file (opened without
 * following a link, without waiting on a FIFO), within a size bound, are copied into outDir.
 * @returns {string[]} the names taken
 */
function takeArtifacts(exchange, outDir) {
  const { ARTIFACT_NAMES } = require('../report/profile-artifacts.js');
  const { writeFileAtomic } = require('../write-atomic.js');
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  const taken = []; // read whole first: a refused one leaves --out as it was
  for (const name of ARTIFACT_NAMES) {
    let fd;
    try {
      fd = fs.openSync(path.join(exchange, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (err) {
      if (err.code === 'ENOENT') continue;
      throw new CommandError(`the container left ${name} as something other than a file (${err.code}): nothing taken from it`);
    }
    let data;
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new CommandError(`the container left ${name} as something other than a regular file: nothing taken from it`);
      if (st.size > MAX_ARTIFACT_BYTES) throw new CommandError(`the container left ${name} at ${st.size} bytes, over the ${MAX_ARTIFACT_BYTES} a profile writes: nothing taken from it`);
      data = Buffer.alloc(st.size);
      for (let at = 0; at < st.size;) {
        const read = fs.readSync(fd, data, at, st.size - at, at);
        if (read === 0) break;
        at += read;
      }
    } finally {
      fs.closeSync(fd);
    }
    taken.push([name, data]);
  }
  for (const [name, data] of taken) writeFileAtomic(path.join(outDir, name), data);
  return taken.map(([name]) => name);
}

function lastLine(text) {
  return String(text || '').trim().split('\n').filter(Boolean).pop() || '';
}

/** The inner coldstart's own one-line error, or why the container could not run it. */
function containerFailure(r, node) {
  const own = String(r.stderr).split('\n').reverse().find((l) => /^coldstart: /.test(l));
  if (own) return new CommandError(`in the container: ${own.replace(/^coldstart: /, '')}`, { exitCode: r.code === 2 ? 2 : r.code === 130 ? 130 : 1 });
  if (r.code === 125 || r.code === 126 || r.code === 127) {
    return new CommandError(`the container could not start coldstart with "${node}" (exit ${r.code}): ${lastLine(r.stderr)}; the image needs node (20.19 or later) on its PATH`);
  }
  return new CommandError(`the capture in the container failed (exit ${r.code}): ${lastLine(r.stderr)}`);
}

module.exports = { profileInContainer, coldstartMount };
