'use strict';
// bench, planned and run: the series to time (app commands, seed scenarios; locally or one per
// container runtime), the images they run in, the runs, and the cleanup afterwards.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { COLDSTART_BIN } = require('../paths.js');
const IN_CONTAINER_BIN = '/app/node_modules/coldstart/bin/coldstart.js';
// Serverless platforms keep the writable layer in memory; the regenerate scenario writes there.
const CONTAINER_TMPFS = '/tmp:rw,exec,size=512m';
const GENERATED_FIXTURE = { modules: 1000, seed: 42 };

/** `coldstart ...` runs this checkout's CLI (on `node`, default this one), here and in the image (node_modules/coldstart). */
function localCommand(words, node = process.execPath) {
  return words[0] === 'coldstart' ? [node, COLDSTART_BIN, ...words.slice(1)] : words;
}
function containerCommand(words) {
  return words[0] === 'coldstart' ? ['node', IN_CONTAINER_BIN, ...words.slice(1)] : words;
}

/**
 * @param {object} plan
 * @param {string[][]} plan.commands       app commands (words), timed as they are
 * @param {object[]} [plan.nodes]          --node: the one command timed on each of these (node-versions.js resolveNodes)
 * @param {object[]} plan.scenarios        seed scenarios (lib/bench/scenarios.js)
 * @param {string} [plan.fixtureDir]       app the scenarios load (default: a generated fixture)
 * @param {boolean} plan.inDocker          every run in a fresh container, once per runtime
 * @param {string[]} plan.runtimes
 * @param {string} plan.baseImage
 * @param {RegExp} plan.readyLine          the app's listening line on stdout (in a container)
 * @param {string} plan.cwd
 * @param {object} plan.env
 * @param {number} plan.runs
 * @param {number} plan.warmup
 * @param {{mode: string}} plan.until
 * @param {number} plan.timeoutMs
 * @param {{cpus: ?number, memoryBytes: ?number}} [plan.limits] --cpus/--memory for every run
 * @param {(text: string) => void} [plan.onProgress] what is being done: image builds, then each run
 * @returns {Promise<object>} the bench result (tool, machine, notes, series, comparisons, partial)
 */
async function runBenchPlan({
  commands, nodes = [], scenarios, fixtureDir, inDocker, runtimes, baseImage, readyLine, cwd, env,
  runs, warmup, until, timeoutMs, limits = null, onProgress = () => {},
}) {
  const runner = require('./runner.js');
  const docker = inDocker ? require('../docker.js') : null;
  if (docker) await docker.requireDocker();

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-'));
  const images = [];
  const { trapInterrupts } = require('../interrupt.js');
  const traps = trapInterrupts();
  const notes = [];
  let result;
  try {
    const scenarioApp = scenarios.length ? await scenarioAppOf({ scenarios, fixtureDir, cwd, scratch, notes }) : null;
    const series = docker
      ? await containerSeries({ commands, scenarioApp, runtimes, baseImage, readyLine, cwd, scratch, images, notes, onProgress })
      : localSeries({ commands, nodes, scenarioApp, cwd, env, scratch, notes });
    result = await runner.runBench({ series, runs, warmup, until, timeoutMs, limits, signal: traps.signal, force: traps.force, onProgress });
  } finally {
    traps.dispose();
    await require('../docker.js').removeImages(images);
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  if (!limits) return { tool: 'coldstart bench', machine: runner.describeMachine(), notes, ...result };
  const { cpus, memoryBytes } = limits;
  const under = [cpus ? `with ${cpus} of a CPU` : '', memoryBytes ? `under a ${require('../byte-size.js').formatLimit(memoryBytes)} memory limit` : ''].filter(Boolean).join(' and ');
  notes.unshift(`every run ${under} (${inDocker ? 'docker run --cpus/--memory' : 'a cgroup made for each run'})`);
  return { tool: 'coldstart bench', machine: runner.describeMachine(), notes, ...result, limits };
}

/** The scenario app: a copy of the fixture (given, or generated) plus the scenario scripts (also a build context). */
async function scenarioAppOf({ scenarios, fixtureDir, cwd, scratch, notes }) {
  let fixture = fixtureDir && path.resolve(cwd, fixtureDir);
  if (!fixture) {
    const { generateFixture } = require('../fixtures/generate.js');
    fixture = (await generateFixture({ dir: path.join(scratch, 'fixture'), ...GENERATED_FIXTURE })).dir;
    notes.push(`fixture: generated, ${GENERATED_FIXTURE.modules} packages (seed ${GENERATED_FIXTURE.seed})`);
  } else {
    notes.push(`fixture: ${fixture}`);
  }
  const { prepareScenarioApp } = require('./scenarios.js');
  const scenarioApp = prepareScenarioApp({ fixture, into: path.join(scratch, 'scenarios'), scenarios });
  for (const s of scenarioApp.scenarios) notes.push(`scenario ${s.name}: ${s.description}`);
  return scenarioApp;
}

/** The series of runs on this machine: each command (or the one command on each Node), then each scenario. */
function localSeries({ commands, nodes, scenarioApp, cwd, env, scratch, notes }) {
  notes.push('inside: process start -> ready, measured in the app; outside: spawn -> ready, seen by coldstart');
  const series = [];
  if (nodes.length) series.push(...nodeSeries(commands[0], nodes, path.join(scratch, 'node'), { cwd, env, notes }));
  else {
    for (const words of commands) {
      series.push({ label: words.join(' '), where: 'local', command: localCommand(words), cwd, env });
    }
  }
  for (const s of scenarioApp ? scenarioApp.scenarios : []) {
    series.push({
      label: s.name, where: 'local', command: s.command, cwd: scenarioApp.dir,
      env: { ...env, ...s.env }, freshTmp: s.freshTmp, meta: { scenario: s.name },
    });
  }
  return series;
}

/** The series of runs in fresh containers: the images built (named in `images`, removed by the caller), each command and scenario under each runtime. */
async function containerSeries({ commands, scenarioApp, runtimes, baseImage, readyLine, cwd, scratch, images, notes, onProgress }) {
  const runner = require('./runner.js');
  const docker = require('../docker.js');
  notes.push('docker: time = `docker run` start -> the app\'s listening line on stdout. No inside time: '
    + 'coldstart does not run inside the container. Every run is a fresh container, --network none, /tmp a tmpfs');
  const build = async (context, what) => {
    onProgress(`building the ${what} image on ${baseImage}`);
    const built = await runner.buildBenchImage({ context, baseImage });
    images.push(built.tag);
    onProgress(`built ${built.tag} in ${(built.ms / 1000).toFixed(1)} s`);
    return built.tag;
  };
  let appImage = null;
  if (commands.length) {
    const withColdstart = commands.some((w) => w[0] === 'coldstart');
    docker.assembleContext({ app: cwd, into: path.join(scratch, 'context'), coldstart: withColdstart });
    appImage = await build(path.join(scratch, 'context'), 'app');
  }
  const scenarioImage = scenarioApp ? await build(scenarioApp.dir, 'scenario') : null;
  const series = [];
  for (const words of commands) {
    for (const runtime of runtimes) {
      series.push({
        label: `${words.join(' ')} [${runtime}]`, where: 'docker', command: containerCommand(words),
        image: appImage, runtime, ready: readyLine, tmpfs: [CONTAINER_TMPFS], meta: { ready: String(readyLine) },
      });
    }
  }
  const { READY_LINE } = require('./scenarios.js');
  for (const s of scenarioApp ? scenarioApp.scenarios : []) {
    for (const runtime of runtimes) {
      series.push({
        label: `${s.name} [${runtime}]`, where: 'docker', command: s.command, env: s.env,
        image: scenarioImage, runtime, ready: READY_LINE, tmpfs: [CONTAINER_TMPFS],
        meta: { scenario: s.name, ready: String(READY_LINE) },
      });
    }
  }
  return series;
}

/** One series per Node (--node): the same command, each run on its binary. */
function nodeSeries(words, nodes, shims, { cwd, env, notes }) {
  const { runOnNode } = require('./node-versions.js');
  notes.push(`app: ${words.join(' ')}, on each Node (its node first on PATH, for the app's children and npm scripts too)`);
  return nodes.map((node, i) => {
    notes.push(`${node.label}: ${node.binary}`);
    const on = runOnNode(words, node, path.join(shims, String(i)), env);
    return {
      label: node.label, where: 'local', command: localCommand(on.command, on.node), cwd, env: on.env, binary: node.binary,
      meta: { node: { entry: node.entry, spec: node.spec, version: node.version, binary: node.binary } },
    };
  });
}

module.exports = { runBenchPlan, localCommand };
