#!/usr/bin/env node
'use strict';
// The attack list: what an attacker or an unlucky user tried against coldstart, each case run as
// the test that reproduces it (test/*.test.js, real processes, archives, containers). Prints one
// row per case with its verdict, and the count. Docker cases need an engine (.ci/docker-up.sh).
//
//   node bench/attack.js [--node PATH]
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');

const REPO = path.join(__dirname, '..');

// [case, test file, test name pattern]
const CASES = [
  ['profile --docker: a link planted in the exchange to a host file, a FIFO, a file profile does not write', 'profile-docker', 'exchange is data'],
  ['profile --docker: the container and exchange folder after a SIGKILL of the CLI', 'profile-docker', 'do not outlive a CLI killed'],
  ['start: a forged index mapping fs / node:fs to a payload (with --trust-archive)', 'start-bad-archive', 'maps `fs` or `node:fs`'],
  ['start: a layout pointing a file at another\'s bytes, sealed as pack seals', 'start-bad-archive', 'points a file at the wrong bytes'],
  ['start: a flipped byte in a file', 'start-bad-archive', 'flipped byte'],
  ['start: names of refused entries with a line break or terminal escapes', 'start-extract-safety', 'printed escaped'],
  ['start --mode extract / --into: bytes damaged in the archive over the app\'s file', 'start-extract-safety', 'damaged in a packed archive'],
  ['start --mode extract: a symlink already in the target directory', 'start-extract-safety', 'never writes through a symlink'],
  ['start: a 300 MB archive of zeros (memory, extract, --into)', 'start-bad-archive', 'too large to read whole'],
  ['start: an index over 8 MB', 'start-bad-archive', 'index over 8 MB'],
  ['start --into: a module not packed, required after listening', 'start-extract-safety', 'a module the archive lacks'],
  ['production report: a link planted at <report>.tmp, a report path that is a directory or in a missing one; malformed OTLP headers, ftp://, credentials in the endpoint', 'start-startup-report', 'bad settings never stop the app'],
  ['pack --out /dev/null, /dev/full, a FIFO', 'pack-command', 'bad --out'],
  ['pack: a symlink out of the root', 'pack-security', 'symlink out of the root is never packed'],
  ['pack --snapshot-blob killed with SIGKILL mid-build', 'pack-snapshot', 'killed \\(SIGKILL\\)'],
  ['profile: SIGKILL of the CLI while the app blocks its event loop (inspector open)', 'capture-cli-killed', 'blocks its own event loop'],
  ['profile: SIGKILL of the CLI during the holds', 'capture-cli-killed', 'closes the inspector and ends the app'],
  ['timed runs: SIGKILL of the CLI (bench, check, bundle\'s verification)', 'capture-cli-killed', 'timed runs, no inspector'],
  ['--verify-advice --request: an answer that never ends, or drips', 'profile-verify-advice', 'one deadline for the whole answer'],
  ['two profiles into one --out at once; a lock left by a killed run', 'profile-bad-input', 'two profiles into one --out'],
  ['--out given twice; an app with its own --inspect', 'profile-bad-input', 'one line, exit 2, for what used to end'],
  ['--request with a path outside ASCII', 'profile-bad-input', 'percent-encoded'],
  // The third round.
  ['dockerfile: a line break in .nvmrc, engines.node, scripts, file names or --out', 'dockerfile-command', 'never become Dockerfile instructions'],
  ['dockerfile: a hostile .nvmrc and engines.node, built', 'dockerfile-command', 'hostile \\.nvmrc'],
  ['--lambda: another user takes the event or forges a response through the Runtime API', 'lambda-built-in-client', 'serves only the user'],
  ['start --mode extract: a pack archive re-made by another tool with a damaged file', 'start-extract-safety', 're-made by another tool'],
  ['start: a FIFO or a device as the archive (every mode, the preload)', 'start-bad-archive', 'FIFO or a device'],
  ['bench --until line:/REGEX/ with a pattern that backtracks without end', 'bounded-regex', 'backtracks without end'],
  ['pack: a module required through a link leading out of the root', 'pack-security', 'required through a link'],
  ['profile, start: a package binary owned by another user', 'profile-bad-input', 'owned by another user'],
  ['--event a FIFO or /dev/zero; --lambda outside the task root; bodies over 6 MB; a promise that never settles', 'lambda-built-in-client', 'coldstart\'s client runs init'],
  ['$GITHUB_STEP_SUMMARY a FIFO or a device', 'check-github-actions', 'FIFO'],
  ['bench --node a script that never answers --version', 'bench-node', 'never answers --version'],
  ['bench --node N with a broken installed copy', 'bench-node', 'broken installed copy'],
  ['a relative COLDSTART_ARCHIVE and a child in another directory', 'start-preload', 'relative COLDSTART_ARCHIVE'],
  ['SIGINT during profile --runs 5', 'capture-cli-killed', 'interrupted \\(SIGINT\\)'],
];

function runCase(node, [, file, pattern]) {
  const r = spawnSync(node, ['--test', '--test-reporter=tap', `--test-name-pattern=${pattern}`, path.join('test', `${file}.test.js`)], { cwd: REPO, encoding: 'utf8', timeout: 15 * 60 * 1000 });
  const count = (re) => (r.stdout.match(re) || []).length;
  const failed = count(/^not ok \d+/gm);
  const skipped = count(/^ok \d+ .*# SKIP(?! test name does not match)/gm);
  const passed = count(/^ok \d+ (?!.*# SKIP)/gm);
  if (failed) return 'FAIL';
  if (skipped || !passed) return 'skipped';
  return 'pass';
}

function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({ args: argv, options: { node: { type: 'string' } } });
  const node = values.node || process.execPath;
  const rows = ['| case | test | verdict |', '|---|---|---|'];
  const tally = { pass: 0, FAIL: 0, skipped: 0 };
  for (const c of CASES) {
    process.stderr.write(`${c[0]}\n`);
    const verdict = runCase(node, c);
    tally[verdict] += 1;
    rows.push(`| ${c[0]} | ${c[1]}: ${c[2].replace(/\\/g, '')} | ${verdict} |`);
  }
  rows.push('', `${tally.pass} of ${CASES.length} pass, ${tally.FAIL} fail, ${tally.skipped} skipped`);
  process.stdout.write(rows.join('\n') + '\n');
  return tally.FAIL ? 1 : 0;
}

module.exports = { main, CASES };
if (require.main === module) process.exitCode = main();
