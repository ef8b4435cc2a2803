'use strict';
// Proof that the bundle works: start it to its ready moment from a copy standing alone (as it
// will in an image), then time the original and the bundle alike (cheap timing-only starts,
// alternated by the alternating-runs engine so both see the same machine noise), and compare the
// files each reads to start.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { capture } = require('../capture/capture.js');
const { compareSamples, ratioInterval } = require('../stats.js');
const { alternateRuns } = require('../measure/alternate-runs.js');
const { CommandError } = require('../errors.js');
const { MARKER } = require('./output.js');
const { treeSize } = require('../tree-size.js');
const { askOf } = require('../capture/request-driver.js');
const { DEFAULT_REQUESTS, differentAnswer, varyingBodies, provenAnswers } = require('../capture/same-answers.js');

/**
 * Files and bytes under `dir`, not following links, leaving out `skip` (absolute paths) and
 * earlier bundles (directories holding .coldstart-bundle.json) below it.
 */
function dirSize(dir, skip = []) {
  return treeSize(dir, { skip, prune: (p) => fs.existsSync(path.join(p, MARKER)) });
}

/**
 * What a capture read to start: counts, and the files read with fs (with their sizes).
 * @param {object} result CaptureResult
 * @param {Set<string>} [ignore] absolute paths of our own files (the probe and its log)
 */
function startupReads(result, ignore = new Set()) {
  let files = result.files.length;
  let bytes = 0;
  for (const f of result.files) bytes += f.bytes;
  const reads = [];
  const moduleFiles = new Set(result.modules.map((m) => m.file));
  for (const f of result.files) if (f.via === 'fs') reads.push({ file: path.join(result.root, f.path), bytes: f.bytes });
  for (const file of result.outsideRoot) {
    if (ignore.has(file)) continue;
    let size = 0;
    try { size = fs.statSync(file).size; } catch { continue; }
    files++;
    bytes += size;
    if (!moduleFiles.has(file)) reads.push({ file, bytes: size });
  }
  return { files, bytes, modules: result.modules.filter((m) => !ignore.has(m.file)).length, reads };
}

/**
 * Files the original read with fs that the bundle did not read (matched by name and size, since
 * ncc renames assets and node_modules is laid out anew). package.json reads are metadata.
 */
function readsNotSeen(originalReads, bundleReads) {
  const seen = new Set(bundleReads.map((r) => `${path.basename(r.file)}:${r.bytes}`));
  return originalReads
    .filter((r) => path.basename(r.file) !== 'package.json')
    .filter((r) => !seen.has(`${path.basename(r.file)}:${r.bytes}`))
    .map((r) => r.file);
}

/**
 * A copy of the bundle directory in a fresh temp directory, so that Node cannot find anything
 * in node_modules folders above it (an --out inside the app would see the app's node_modules).
 * Files are hard links when the file system allows: no data is copied.
 */
function isolatedCopy(dir) {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bundle-check-'));
  const dest = path.join(base, path.basename(dir));
  const walk = (from, to) => {
    fs.mkdirSync(to, { recursive: true });
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, e.name);
      const dst = path.join(to, e.name);
      if (e.isDirectory()) walk(src, dst);
      else if (e.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dst);
      else {
        try { fs.linkSync(src, dst); } catch { fs.copyFileSync(src, dst); }
      }
    }
  };
  try {
    walk(dir, dest);
  } catch (err) {
    fs.rmSync(base, { recursive: true, force: true });
    throw err;
  }
  return { dir: dest, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/**
 * @param {object} opts
 * @param {{command: string[], cwd: string}} opts.original
 * @param {{command: string[], cwd: string}} opts.bundle
 * @param {object} opts.env
 * @param {number} opts.runs timed starts of each
 * @param {object} opts.until  as capture takes it
 * @param {number} opts.timeoutMs
 * @param {NodeJS.WritableStream} [opts.stdout] where the apps' output goes
 * @param {NodeJS.WritableStream} [opts.stderr]
 * @param {AbortSignal} [opts.signal]
 * @param {AbortSignal} [opts.force]
 * @param {(text: string) => void} [opts.onProgress] told as each phase begins
 * @param {Array<{method: string, path: string}>} [opts.requests] asked of the app (its first two
 *   timed starts) and of the bundle (its first), which must answer alike (default GET /)
 * @returns {Promise<{ capture: object, reads: ReturnType<typeof startupReads>, answers: {
 *   requests: Array<{method: string, path: string, status: number|null}>, statusOnly: string[] }, timing: {
 *   runs: number, order: {variant: 'original'|'bundle', readyAt: number, startedMs: number}[],
 *   original: number[], bundle: number[], originalMedian: number, bundleMedian: number,
 *   comparison: ReturnType<typeof compareSamples> & { factor: ReturnType<typeof ratioInterval> } } }>}
 *   order lists every timed start as it ran (startedMs: since the first one), original and
 *   bundle alternated; comparison is the bundle against the original; answers: what was asked,
 *   with the app's status, and the requests whose body the app itself gave differently in two starts
 * @throws {CommandError} BUNDLE_ANSWERS_DIFFER when the bundle answers a request otherwise
 */
async function verifyBundle(opts) {
  const base = {
    env: opts.env, until: opts.until, timeoutMs: opts.timeoutMs, stdout: opts.stdout, stderr: opts.stderr,
    signal: opts.signal, force: opts.force,
  };
  const onProgress = opts.onProgress || (() => {});
  const isolated = isolatedCopy(opts.bundle.cwd);
  const bundleRun = { command: opts.bundle.command, cwd: isolated.dir };
  const startBundle = async (extra) => {
    try {
      return await capture({ ...base, ...bundleRun, ...extra });
    } catch (err) {
      if (err instanceof CommandError && err.exitCode !== 130) {
        throw new CommandError(`the bundle did not reach its ready moment: ${err.message}`, { code: 'BUNDLE_NOT_READY', details: err.details });
      }
      throw err;
    }
  };
  try {
    onProgress('starting the bundle');
    const result = await startBundle({ profile: false });
    if (result.partial) throw new CommandError('interrupted while verifying the bundle', { exitCode: 130 });

    // Original, bundle, original, bundle, ...: a slow spell of a shared machine falls on both.
    // The app answers the requests in its first two starts (a body that differs between them is
    // compared by status only), the bundle in its first; asked after the ready moment, untimed.
    const requests = opts.requests && opts.requests.length ? opts.requests : DEFAULT_REQUESTS;
    const asked = { original: [], bundle: [] };
    const ask = askOf(requests);
    const timed = (variant, start, askedRounds) => ({
      name: variant,
      run: async ({ round }) => {
        if (variant === 'original') onProgress(`timing run ${round + 1}/${opts.runs}`);
        const r = await start(round < askedRounds ? ask : undefined);
        if (r.partial) throw new CommandError('interrupted while timing the bundle', { exitCode: 130 });
        if (round < askedRounds) asked[variant].push(r.whileRunning);
        return r.readyAt;
      },
    });
    const measured = await alternateRuns({
      variants: [
        timed('original', (whileRunning) => capture({ ...base, ...opts.original, timingOnly: true, whileRunning }), 2),
        timed('bundle', (whileRunning) => startBundle({ timingOnly: true, whileRunning }), 1),
      ],
      rounds: opts.runs,
    });
    const answers = compareAnswers(asked, requests);
    const { original, bundle } = measured.samples;
    const order = measured.order.map((o) => ({ variant: o.variant, readyAt: o.value, startedMs: o.startedMs }));
    const comparison = { ...compareSamples(original, bundle), factor: ratioInterval(original, bundle) };
    return {
      capture: result,
      reads: startupReads(result),
      answers,
      timing: {
        runs: opts.runs,
        order,
        original,
        bundle,
        originalMedian: comparison.before.median,
        bundleMedian: comparison.after.median,
        comparison,
      },
    };
  } finally {
    isolated.remove();
  }
}

/**
 * The bundle's answers against the app's: the same status, and the same body where the app's two
 * starts gave one body.
 * @throws {CommandError} BUNDLE_ANSWERS_DIFFER
 */
function compareAnswers(asked, requests) {
  const [reference, again] = asked.original;
  if (!reference) {
    const shown = requests.map((r) => `${r.method} ${r.path}`).join(', ');
    throw new CommandError(`the app gave no address to ask ${shown}: the bundle's answers cannot be compared with it`, { code: 'BUNDLE_ANSWERS_DIFFER' });
  }
  const varying = varyingBodies(reference, again || null);
  const changed = differentAnswer(reference, asked.bundle[0] || null, varying);
  if (changed) {
    throw new CommandError(`the bundle does not answer as the app does: ${changed}`, { code: 'BUNDLE_ANSWERS_DIFFER' });
  }
  return provenAnswers(reference, varying);
}

module.exports = { verifyBundle, startupReads, readsNotSeen, dirSize };
