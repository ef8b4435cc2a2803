'use strict';
// The programmatic API. Everything the CLI does is available here without a terminal.

/**
 * Runs an app up to its ready moment and returns a CaptureResult
 * ({ readyAt, modules, files, outsideRoot, resolutions, profile, ... }).
 * @type {typeof import('./capture/capture.js').capture}
 */
function capture(options) {
  return require('./capture/capture.js').capture(options);
}

/**
 * capture + analysis: resolves to the report.json document (and the raw profile).
 * @param {Parameters<typeof capture>[0]} options
 * @returns {Promise<{ report: object, profile: object|undefined, result: object }>}
 */
async function profile(options) {
  const result = await capture({ profile: true, ...options });
  const { buildReport } = require('./analyze/startup-report.js');
  const { readSource } = require('./report/profile-artifacts.js');
  return { report: buildReport(result, { readSource }), profile: result.profile, result };
}

/**
 * Writes the deterministic startup archive for a list of root-relative files. A file whose
 * real path is outside root (a link leading out, or under a directory that does) is never
 * stored: it throws an error with code PACK_PATH_ESCAPES.
 * @param {{ root: string, files: string[], out: string, extraEntries?: {path: string, data: Buffer}[] }} options
 */
function pack(options) {
  return require('./pack/archive.js').writeArchive(options);
}

/** Statistics over timing samples: n, min, max, mean, median, stddev, p90/p95/p99, top 1% stripped. */
function summarize(samples) {
  return require('./stats.js').summarize(samples);
}

module.exports = { capture, profile, pack, summarize };
