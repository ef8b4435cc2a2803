'use strict';
// profile --docker IMAGE as a workflow: the capture inside a container of the image
// (lib/capture/in-container.js), then here what only a start in a container says (files served
// from memory, a code cache), the host's load where the sandbox hides it, and report.json and
// report.html rewritten to say where the profile was taken.
const path = require('node:path');

/**
 * @param {object} options
 * @param {string} options.image
 * @param {string} options.runtime runc, runsc, runsc-2024, ...
 * @param {string[]} options.command the app's command; empty: the image's own
 * @param {boolean} options.lambda a Lambda function (profileArgs hold --lambda)
 * @param {string[]} options.profileArgs the flags of `coldstart profile` to use inside
 * @param {string} options.outDir
 * @param {string} options.cwd the artifacts' paths in the report are relative to it
 * @param {number} options.timeoutMs the whole container's
 * @param {?number} [options.cpus] the container's CPU share (docker run --cpus)
 * @param {AbortSignal} [options.signal]
 * @returns {Promise<{ report: object, appOutput: string }>}
 */
async function profileContainer({ image, runtime, command, lambda, profileArgs, outDir, cwd, timeoutMs, cpus = null, signal }) {
  await require('../docker.js').checkRuntimes([runtime]);
  const { profileInContainer } = require('../capture/in-container.js');
  const got = await profileInContainer({ image, runtime, command, lambda, profileArgs, outDir, timeoutMs, signal, cpus });
  const shown = (name) => path.relative(cwd, path.join(outDir, name)) || name;
  // Inside gVisor the load average is the sandbox's own (0 whatever the host runs): the host's instead.
  const machine = got.report.machine && require('../gvisor.js').isGvisor(runtime)
    ? { ...got.report.machine, loadAverage: require('../capture/capture-result.js').loadAverage(), loadAverageOf: 'the host' }
    : got.report.machine;
  const report = {
    ...got.report,
    ...(machine ? { machine } : {}),
    ...(cpus ? { limits: { cpus, memoryBytes: null, how: `docker run --cpus ${cpus}` } } : {}),
    container: { image, runtime, command: got.command },
    artifacts: Object.fromEntries(Object.entries(got.report.artifacts || {}).map(([k, v]) => [k, shown(path.posix.basename(v))])),
  };
  const { containerAdvice } = require('../analyze/container-advice.js');
  report.advice = [...(report.advice || []), ...containerAdvice(report)].sort((a, b) => b.estimatedMs - a.estimatedMs);
  require('../report/profile-artifacts.js').writeReportFiles(report, outDir);
  return { report, appOutput: got.appOutput };
}

module.exports = { profileContainer };
