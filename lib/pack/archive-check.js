'use strict';
// pack's check of its own archive: the tar's files alone, extracted into an empty temporary
// directory, start the app to its ready moment with the same command (paths under the root moved
// to the copy). A file startup needs that the run could not see (read by a child process, by a
// native addon, through a path the agent does not watch) is missing there, and the app fails:
// pack names the file its error points at. I/O: extracts, runs the app, removes the copy.
const fs = require('fs');
const path = require('path');
const { CommandError } = require('../errors.js');
const { relativeInside } = require('../paths.js');

/**
 * @param {{ archive: string, root: string, appRun: { command: string[], cwd: string, env?: object,
 *   until?: object, lambda?: object, timeoutMs?: number }, leftOut?: string[], signal?: AbortSignal }} options
 *   leftOut: root-relative startup files pack said it leaves out (a link leading outside the root):
 *   the copy links them to where they are, as the disk beside the archive has them
 * @returns {Promise<{ ms: number, readyAt: number }>} the copy's start; throws PACK_CHECK_FAILED
 */
async function checkArchive({ archive, root, appRun, leftOut = [], signal }) {
  const started = process.hrtime.bigint();
  const { dir, watch } = require('../death-watch.js').watchedTempDir('coldstart-check-'); // pack killed (SIGKILL)
  const copy = path.join(dir, path.basename(root) || 'app');
  try {
    fs.mkdirSync(copy);
    await require('tar').x({ file: archive, cwd: copy, preservePaths: false, strict: true });
    for (const rel of leftOut) linkLeftOut(rel, root, copy);
    const moved = (p) => moveInto(p, root, copy);
    const { capture } = require('../capture/capture.js');
    const sink = { write() { return true; } };
    let result;
    try {
      result = await capture({
        command: appRun.command.map(moved),
        cwd: moved(appRun.cwd),
        env: appRun.env,
        until: appRun.until,
        lambda: appRun.lambda, // the copy is the task root
        timeoutMs: appRun.timeoutMs,
        root: copy,
        timingOnly: true,
        stdout: sink,
        stderr: sink,
        signal,
      });
    } catch (err) {
      if (!(err instanceof CommandError) || err.exitCode === 130) throw err;
      const tail = (err.details && err.details.stderr) || [];
      const error = err.message.split(copy).join(root); // the copy's paths as the files they stand for
      throw new CommandError(failure(error, missingFile(tail, copy, root, moved(appRun.cwd))), { code: 'PACK_CHECK_FAILED', details: { stderr: tail, error } });
    }
    if (result.partial) throw new CommandError('interrupted: nothing packed', { exitCode: 130 });
    return { ms: Number(process.hrtime.bigint() - started) / 1e6, readyAt: result.readyAt };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    watch.dismiss();
  }
}

function linkLeftOut(rel, root, copy) {
  try {
    const target = fs.realpathSync(path.join(root, rel));
    fs.mkdirSync(path.dirname(path.join(copy, rel)), { recursive: true });
    fs.symlinkSync(target, path.join(copy, rel));
  } catch { /* gone, or a directory on its way is a link the archive has */ }
}

/** An argument or directory under the root, moved to the copy; anything else as it is. */
function moveInto(p, root, copy) {
  if (typeof p !== 'string' || !path.isAbsolute(p)) return p;
  const rel = p === root ? '' : relativeInside(root, p);
  return rel === null ? p : path.join(copy, rel);
}

/**
 * The file the app's error output points at that the copy lacks and the root has, as its path
 * under the root: the path named (a missing module, an ENOENT), else the package.json of a
 * directory on its way (a package whose "exports" or "main" Node could not read names a file that
 * exists nowhere). A path named that neither has, when that is all there is; null when none.
 */
function missingFile(lines, copy, root, cwd = copy) {
  const text = lines.join('\n');
  const escaped = copy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const absolute = [...text.matchAll(new RegExp(`${escaped}(/[^\\s'"\`:,)]*)?`, 'g'))].map((m) => safeDecode((m[1] || '').replace(/^\//, '')));
  // fs errors name the path as the app gave it: "ENOENT: no such file or directory, open 'config/db.json'".
  const relative = [...text.matchAll(/ENOENT[^\n]*?, \w+ '([^'\n]+)'/g)].map((m) => relativeInside(copy, path.resolve(cwd, m[1])));
  let named = null;
  for (const rel of [...absolute, ...relative]) {
    if (!rel || fs.existsSync(path.join(copy, rel))) continue;
    const candidates = [rel];
    for (let dir = path.dirname(rel); dir !== '.' && dir !== '/'; dir = path.dirname(dir)) candidates.push(path.join(dir, 'package.json'));
    const lacking = candidates.find((c) => !fs.existsSync(path.join(copy, c)) && fs.existsSync(path.join(root, c)));
    if (lacking) return path.join(root, lacking);
    named = named || path.join(root, rel);
  }
  return named;
}

function safeDecode(text) {
  try { return decodeURIComponent(text); } catch { return text; }
}

function failure(error, missing) {
  const named = missing ? `${missing} is not in it` : 'no missing file was named';
  return `the archive alone does not start the app (${named}): ${error.replace(/^the app /, '')}; nothing kept. pack --no-verify skips this check`;
}

module.exports = { checkArchive, missingFile };
