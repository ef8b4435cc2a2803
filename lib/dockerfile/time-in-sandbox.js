'use strict';
// dockerfile --choose --runtime R: the starts proven on this machine (choose-start.js) timed where
// the app will run. Each start's image is built from the Dockerfile coldstart writes for it (so
// its archive, code cache, compile cache or snapshot is made by the image's Node, as it will be),
// then every timed start is a fresh container of it under the runtime, the starts alternated round
// by round; what is timed is the in-process time to the first listen, by a one-file preload
// (lib/in-app/listen-clock.cjs) mounted read-only. No image or container outlives the call.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { alternateRuns, DROP } = require('../measure/alternate-runs.js');

const PROBE = path.join(__dirname, '..', 'in-app', 'listen-clock.cjs');
const PROBE_DIR_IN_CONTAINER = '/coldstart-listen-clock';
const LISTEN_LINE = /^coldstart-listen (\d+(?:\.\d+)?)(?: |$)/m;

/**
 * @param {object} options
 * @param {object} options.description the project (detect-project.js detectProject)
 * @param {Array<{name: string, label: string, writes: string}>} options.starts the starts to time (choose-start.js STARTS)
 * @param {string} options.runtime a runtime of the Docker engine (runc, runsc, runsc-2024, ...)
 * @param {number} options.runs timed starts of each
 * @param {?string} [options.baseImage] the image with node to build on (NODE_IMAGE); null: the Dockerfile's own
 * @param {number} options.timeoutMs a start not listening after this long is given up
 * @param {(text: string) => void} [options.onProgress]
 * @param {AbortSignal} [options.signal]
 * @returns {Promise<{samples: Object<string, number[]>, problems: Object<string, string>, partial: boolean}>}
 *   samples: ms to the first listen by the process's own clock, per start; problems: why a start has none
 */
async function timeInSandbox({ description, starts, runtime, runs, baseImage = null, timeoutMs, onProgress = () => {}, signal }) {
  const { assembleContext, buildImage, runContainer, stopAllContainers, removeImages } = require('../docker.js');
  const { renderDockerfile } = require('./render-dockerfile.js');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-choose-images-'));
  const tags = {};
  const problems = {};
  try {
    const context = assembleContext({ app: description.root, into: path.join(work, 'context') });
    const probeDir = path.join(work, 'listen-clock');
    fs.mkdirSync(probeDir);
    fs.copyFileSync(PROBE, path.join(probeDir, path.basename(PROBE)));
    for (const start of starts) {
      if (signal && signal.aborted) break;
      onProgress(`building the image of ${start.label}`);
      const dockerfile = `Dockerfile.coldstart-${start.name}`;
      fs.writeFileSync(path.join(context.dir, dockerfile), renderDockerfile(description, { start: start.writes, dockerfile }));
      const tag = `coldstart-choose-${process.pid}-${start.name}`;
      try {
        await buildImage({ context: context.dir, dockerfile: path.join(context.dir, dockerfile), tag, buildArgs: baseImage ? { NODE_IMAGE: baseImage } : {}, timeoutMs: 900_000 });
        tags[start.name] = tag;
      } catch (err) {
        if (['DOCKER_DOWN', 'DOCKER_MISSING'].includes(err.code) || err.exitCode === 130) throw err;
        problems[start.name] = `its image did not build: ${err.message.split('\n').filter(Boolean).pop()}`;
      }
    }
    const built = starts.filter((s) => tags[s.name]);
    const variants = built.map((start, i) => ({
      name: start.name,
      run: async ({ round }) => {
        if (i === 0) onProgress(`timing run ${round + 1}/${runs} of ${built.length} starts under ${runtime}, a fresh container each`);
        const r = await runContainer({
          image: tags[start.name], runtime, until: LISTEN_LINE, timeoutMs,
          env: { NODE_OPTIONS: `--require=${PROBE_DIR_IN_CONTAINER}/${path.basename(PROBE)}` },
          dockerArgs: ['--volume', `${probeDir}:${PROBE_DIR_IN_CONTAINER}:ro`],
        });
        const listened = LISTEN_LINE.exec(r.stderr);
        if (listened) return Number(listened[1]);
        const last = r.stderr.trim().split('\n').pop();
        problems[start.name] = `it did not listen in a container under ${runtime}: ${r.timedOut ? `not in ${Math.round(timeoutMs / 1000)} s` : `exit ${r.code}`}${last ? `: ${last}` : ''}`;
        return { [DROP]: problems[start.name] };
      },
    }));
    const measured = await alternateRuns({ variants, rounds: runs, signal });
    return { samples: measured.samples, problems, partial: Boolean(measured.partial) };
  } finally {
    await stopAllContainers();
    await removeImages(Object.values(tags));
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { timeInSandbox };
