'use strict';
// The container image of a Lambda function as docs/lambda.md builds it, for the Lambda container
// test and bench/lambda-init.js: the function (a registry fixture copy) with this checkout of
// coldstart beside it as node_modules/coldstart, and the Dockerfile `coldstart dockerfile --lambda`
// writes (pack runs in the build; the run stage sets the preload in NODE_OPTIONS).
const fs = require('fs');
const path = require('path');
const { buildImage } = require('../../lib/docker.js');
const { runCli, dependencyClosure } = require('./app.js');

const REPO = path.join(__dirname, '..', '..');
// What coldstart needs in an image: its CLI for pack, the preload for the run.
const OWN_FILES = ['package.json', 'start.js', 'bin', 'lib'];

/**
 * Builds the image `tag` from the function in `dir`; throws when the Dockerfile or the build fails.
 * @returns {Promise<{packed: string}>} packed: pack's summary line from the build
 */
async function buildLambdaImage({ dir, handler, tag, baseImage, timeoutMs = 300_000 }) {
  const own = path.join(dir, 'node_modules', 'coldstart');
  for (const f of OWN_FILES) fs.cpSync(path.join(REPO, f), path.join(own, f), { recursive: true });
  // coldstart's own dependencies (yargs, tar, ...) for the CLI in the pack stage.
  const { dependencies } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  for (const dep of dependencyClosure(Object.keys(dependencies))) {
    fs.cpSync(path.join(REPO, 'node_modules', dep), path.join(own, 'node_modules', dep), { recursive: true });
  }
  const written = await runCli(['dockerfile', '--lambda', handler, '--event', 'event.json', '--out', 'Dockerfile.lambda'], { cwd: dir });
  if (written.code !== 0) throw new Error(`dockerfile --lambda failed: ${written.stderr}`);
  const built = await buildImage({ context: dir, dockerfile: path.join(dir, 'Dockerfile.lambda'), tag, buildArgs: { NODE_IMAGE: baseImage }, timeoutMs, noCache: true });
  return { packed: (/coldstart: packed .*/.exec(built.output) || [''])[0] };
}

module.exports = { buildLambdaImage };
