'use strict';
// The container image of a Lambda function as docs/lambda.md builds it, for the Lambda container
// test and bench/lambda-init.js: the function (a registry fixture copy) packed with pack --lambda,
// this checkout of coldstart beside it as node_modules/coldstart (the preload needs its own files
// only), and the Dockerfile the page shows.
const fs = require('fs');
const path = require('path');
const { buildImage } = require('../../lib/docker.js');
const { runCli } = require('./app.js');

const REPO = path.join(__dirname, '..', '..');

/** Builds the image `tag` from the function in `dir`; throws when pack or the build fails. */
async function buildLambdaImage({ dir, handler, tag, baseImage, timeoutMs = 300_000 }) {
  const packed = await runCli(['pack', '--lambda', handler, '--event', 'event.json', '--out', 'startup.tar'], { cwd: dir });
  if (packed.code !== 0) throw new Error(`pack --lambda failed: ${packed.stderr}`);
  const own = path.join(dir, 'node_modules', 'coldstart');
  for (const f of ['package.json', 'start.js', 'lib']) fs.cpSync(path.join(REPO, f), path.join(own, f), { recursive: true });
  const shown = /```dockerfile\n([\s\S]*?)```/.exec(fs.readFileSync(path.join(REPO, 'docs', 'lambda.md'), 'utf8'));
  if (!shown) throw new Error('docs/lambda.md shows no Dockerfile');
  const dockerfile = path.join(dir, 'Dockerfile.lambda');
  fs.writeFileSync(dockerfile, shown[1]);
  await buildImage({ context: dir, dockerfile, tag, buildArgs: { NODE_IMAGE: baseImage }, timeoutMs });
  return { packed: packed.stdout + packed.stderr };
}

module.exports = { buildLambdaImage };
