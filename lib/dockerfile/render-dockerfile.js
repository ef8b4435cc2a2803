'use strict';
// A project description (detect-project.js) -> the text of a multi-stage Dockerfile: an optional
// build stage, a pack stage that archives the startup files, a final stage that runs the app
// through `coldstart start`. Same stages as dockerfile-snippets/, with the entry filled in.
const path = require('node:path');
const { shellWord } = require('../shell-words.js');


const INSTALL = {
  npm: { production: 'npm ci --omit=dev', all: 'npm ci' },
  yarn: { production: 'yarn install --frozen-lockfile --production', all: 'yarn install --frozen-lockfile' },
  pnpm: { production: 'pnpm install --frozen-lockfile --prod', all: 'pnpm install --frozen-lockfile' },
};

/** Quotes a word for a shell-form RUN line only when it needs it. */

function installLines(description) {
  const { name, lockfile } = description.packageManager;
  const devRun = description.devDependenciesRun || [];
  const install = INSTALL[name][description.typescript || description.next || devRun.length ? 'all' : 'production'];
  const lines = [
    '# The build context holds the app with its node_modules (coldstart among them): nothing is',
    '# installed during the build, so it also builds with --network none. Install first, on Linux',
    `# x64 with glibc as the image is: ${install}${lockfile ? ` (${lockfile})` : ''}.`,
  ];
  if (description.typescript) {
    lines.push('# The build needs its devDependencies (typescript): they stay in the image.');
  } else if (description.next) {
    lines.push('# next build may need devDependencies; the image holds only the standalone tree Next traced.');
  } else if (devRun.length) {
    lines.push(`# The image runs ${devRun.join(' and ')} from node_modules, a devDependency: install them all.`);
  }
  if (name === 'pnpm') {
    lines.push(
      "# pnpm's node_modules is symlinks into node_modules/.pnpm: the build context must contain",
      '# node_modules as pnpm installed it (do not copy it with a tool that follows symlinks).',
      '# COPY keeps the symlinks and coldstart packs them as symlinks.');
  }
  lines.push('# A .dockerignore may leave out .git and .coldstart/, but not node_modules.');
  return lines;
}

function buildCommandLines(description, dockerfile) {
  const major = description.node.major;
  const file = dockerfile && dockerfile !== 'Dockerfile' ? `-f ${shellWord(dockerfile)} ` : '';
  const lines = [
    '# Build:',
    `#   docker build ${file}--build-arg NODE_IMAGE=node:${major}-slim -t ${description.name} .`,
  ];
  if (description.distroless) {
    lines.push(
      `#   (and --build-arg DISTROLESS_IMAGE=gcr.io/distroless/nodejs${major}-debian12; keep the`,
      '#   same Node major in both images)');
  }
  const { from: source, range } = description.node;
  // One comment line: what package.json or a version file holds may not end it (JSON.stringify).
  const from = source === 'engines.node' ? `engines.node ${JSON.stringify(range)} in package.json`
    : source === 'running node' ? 'the Node that ran coldstart dockerfile'
      : source === 'dependencies' ? `the dependencies' engines.node (${range.replace(/[\r\n]/g, ' ')})` : `${source} (${JSON.stringify(range)})`;
  lines.push(`# Node ${major} comes from ${from}.`);
  return lines;
}

function buildStage(description) {
  const { typescript } = description;
  const how = typescript.command[0] === 'node'
    ? `the build script (${JSON.stringify(typescript.buildScript)}) with node alone`
    : `the build script (${JSON.stringify(typescript.buildScript)}) through npm, which ships with NODE_IMAGE`;
  return [
    `# 1. Build: compile the TypeScript sources with ${how}.`,
    `#    ${typescript.tsconfig} decides where the output goes; the entry below must be the compiled file.`,
    'FROM ${NODE_IMAGE} AS build',
    'WORKDIR /app',
    'COPY . .',
    `RUN ${typescript.command.map(shellWord).join(' ')}`,
  ];
}

// The run stage of `--snapshot`: pack runs in it, since only the Node that runs a snapshot can make it.
function snapshotRunStage(description, { appCommand, appSource, n }) {
  const packCommand = ['node', description.coldstartBin, 'pack', '--code-cache', '--snapshot-blob', '/startup.blob', '--out', '/startup.tar', '--', ...appCommand];
  return [
    `# ${n}. Run: the app's startup modules evaluated now, by this image's Node (node refuses a snapshot`,
    '#    made by another), into a startup snapshot that `node --snapshot-blob` starts from. They run',
    '#    here, at build: what they read while loading (environment, host name, time) is the build\'s.',
    '#    When the app cannot have a snapshot, pack says why and writes none, and the build stops here.',
    'FROM ${NODE_IMAGE}',
    'ENV NODE_ENV=production',
    'WORKDIR /app',
    appSource,
    `RUN ${packCommand.map(shellWord).join(' ')} && test -f /startup.blob`,
    '# Exec form: no shell between the container and node, so signals reach the app.',
    `CMD ${JSON.stringify(['node', '--snapshot-blob', '/startup.blob', ...appCommand.slice(1)])}`,
  ];
}

// Lambda's task root: the function's code is there, and the archive records files by that path.
const TASK_ROOT = '/var/task';

// A Lambda function's image: pack runs its init (and first event) under coldstart's Runtime API;
// the run stage has the runtime interface client start the handler with the preload in NODE_OPTIONS.
function lambdaStages(description, { appSource, n }) {
  const { handler, file, name, event, runtimeClient } = description.lambda;
  const spec = `${file}:${name}`;
  const packCommand = ['node', description.coldstartBin, 'pack', '--lambda', spec, ...(event ? ['--event', event] : []), '--out', `${TASK_ROOT}/startup.tar`];
  return [
    `# ${n}. Pack: run the function's init${event ? ` and its first invocation (the event in ${event})` : ''} once, against a Lambda`,
    '#    Runtime API coldstart serves in the build, and archive every file they read. The runtime',
    `#    interface client (${runtimeClient}) starts it, as in the run stage. Settings the function`,
    '#    reads at init (not secrets) need harmless values here, with ENV.',
    'FROM ${NODE_IMAGE} AS pack',
    `WORKDIR ${TASK_ROOT}`,
    appSource,
    `RUN ${packCommand.map(shellWord).join(' ')}`,
    '',
    `# ${n + 1}. Run: the function at Lambda's task root, the archive beside it. The preload serves the archived`,
    '#    files from memory to the runtime client and the handler; it says so in one log line at init.',
    'FROM ${NODE_IMAGE}',
    `WORKDIR ${TASK_ROOT}`,
    appSource,
    `COPY --from=pack ${TASK_ROOT}/startup.tar ${TASK_ROOT}/startup.tar`,
    `ENV NODE_OPTIONS="--require coldstart/start" COLDSTART_ARCHIVE=${TASK_ROOT}/startup.tar`,
    "# On AWS's base image (public.ecr.aws/lambda/nodejs) leave out ENTRYPOINT: its own runtime starts",
    '# the handler named in CMD, with the preload all the same.',
    `ENTRYPOINT ${JSON.stringify(['node', runtimeClient])}`,
    `CMD ${JSON.stringify([handler])}`,
  ];
}

// The run stage's base: the distroless image, or NODE_IMAGE.
const runFrom = (distroless) => (distroless ? 'FROM ${DISTROLESS_IMAGE}' : 'FROM ${NODE_IMAGE}');
// An exec-form CMD that runs node with these arguments: a distroless image's entrypoint is node itself.
const nodeCmd = (args, distroless) => `CMD ${JSON.stringify(distroless ? args : ['node', ...args])}`;
// coldstart's package directory in the app, from where its CLI is.
const coldstartPackage = (description) => path.posix.dirname(path.posix.dirname(description.coldstartBin));

// Where the bundle stages keep the bundle: the app is packed and runs there.
const BUNDLE_DIR = '/bundle';
// Where the run stage of a bundle keeps coldstart (its start loads only Node's built-ins and its own files).
const COLDSTART_DIR = '/coldstart';

// The stages of `--bundle`: the app bundled with ncc, proven to answer as the app does, packed with
// its code cache where it runs; the run stage holds the bundle and what it keeps external, no more.
// With compileCache (a start --choose may write), Node's compile cache of the bundle instead.
function bundleStages(description, { appCommand, appSource, n, distroless, compileCache }) {
  const { coldstartBin } = description;
  const packageDir = coldstartPackage(description);
  const bundleCommand = ['node', coldstartBin, 'bundle', '--runs', '3', '--out', BUNDLE_DIR, '--', ...appCommand];
  const then = compileCache
    ? [`#    Then run the bundle once up to its first listen with Node's compile cache on (${COMPILE_CACHE_DIR}),`,
      `#    as root and at ${BUNDLE_DIR}, as the run stage starts it.`]
    : [`#    Then pack the bundle's startup files with their code cache, in ${BUNDLE_DIR}.`];
  const bundleStage = [
    `# ${n}. Bundle: start the app once to learn what it loads, bundle that with ncc into ${BUNDLE_DIR} (what`,
    '#    require hooks, native addons and runtime file reads need stays in node_modules beside it), then',
    '#    start the bundle standing alone and the app, alternately: the build stops here when the bundle',
    '#    does not answer GET / as the app does (status, and body where the app\'s own is the same at every',
    '#    start).',
    ...then,
    '#    The app runs during the build: give settings it needs to start (not secrets) harmless values with ENV.',
    'FROM ${NODE_IMAGE} AS pack',
    'ENV NODE_ENV=production',
    'WORKDIR /app',
    appSource,
    `RUN ${bundleCommand.map(shellWord).join(' ')}`,
    `WORKDIR ${BUNDLE_DIR}`,
  ];
  if (compileCache) {
    return [
      ...bundleStage,
      compileCacheRun(`/app/${packageDir}`, appCommand),
      '',
      ...compileCacheRunStage({ n: n + 1, distroless, appCommand, dir: BUNDLE_DIR, sources: [`COPY --from=pack ${BUNDLE_DIR} ${BUNDLE_DIR}`] }),
    ];
  }
  const packCommand = ['node', `/app/${coldstartBin}`, 'pack', '--code-cache', '--out', '/startup.tar', '--', ...appCommand];
  const startArgs = [`${COLDSTART_DIR}/${path.posix.relative(packageDir, coldstartBin)}`, 'start', '--archive', '/startup.tar', '--', ...appCommand];
  return [
    ...bundleStage,
    `RUN ${packCommand.map(shellWord).join(' ')}`,
    '',
    `# ${n + 1}. Run: the bundle at the path it was packed at, the archive, and coldstart (its start needs`,
    '#    nothing but Node\'s built-ins): no node_modules but what the bundle keeps external.',
    runFrom(distroless),
    'ENV NODE_ENV=production',
    `WORKDIR ${BUNDLE_DIR}`,
    `COPY --from=pack ${BUNDLE_DIR} ${BUNDLE_DIR}`,
    `COPY --from=pack ${path.posix.join('/app', packageDir)} ${COLDSTART_DIR}`,
    'COPY --from=pack /startup.tar /startup.tar',
    '# Exec form: no shell between the container and node, so signals reach the app.',
    nodeCmd(startArgs, distroless),
  ];
}

// A Next.js standalone server, the way Next's own Dockerfile assembles it: the build, then the
// standalone tree (server.js and the node_modules Next traced) with .next/static and public/ beside
// it, and nothing else of the project. HOSTNAME=0.0.0.0 because Docker sets HOSTNAME to the
// container's name, which the server would bind to. Pack runs the tree at /app up to its first
// answer: Next listens before it loads the app, which the first request does.
function nextStandaloneStages(description, { n, distroless }) {
  const { next } = description;
  const packageDir = coldstartPackage(description);
  const tree = [
    'COPY --from=build /build/.next/standalone /app',
    'COPY --from=build /build/.next/static /app/.next/static',
    ...(next.public ? ['COPY --from=build /build/public /app/public'] : []),
  ];
  const packCommand = ['node', `/build/${description.coldstartBin}`, 'pack', '--code-cache', '--out', '/startup.tar', '--', 'node', 'server.js'];
  const startArgs = [`${COLDSTART_DIR}/${path.posix.relative(packageDir, description.coldstartBin)}`, 'start', '--archive', '/startup.tar', '--', 'node', 'server.js'];
  return [
    `# ${n}. Build: the build script (${JSON.stringify(next.buildScript)}), with Next's standalone output.`,
    'FROM ${NODE_IMAGE} AS build',
    'ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1',
    'WORKDIR /build',
    'COPY . .',
    `RUN ${next.command.map(shellWord).join(' ')}`,
    '',
    `# ${n + 1}. Pack: the standalone server started once at /app, as the run stage starts it, up to its first`,
    '#    answer to GET / (Next loads the app at the first request), every file it read archived.',
    'FROM build AS pack',
    'ENV HOSTNAME=0.0.0.0',
    'WORKDIR /app',
    ...tree,
    `RUN ${packCommand.map(shellWord).join(' ')}`,
    '',
    `# ${n + 2}. Run: the standalone tree alone (not the project's node_modules), the archive, and coldstart`,
    '#    (its start needs nothing but Node\'s built-ins).',
    runFrom(distroless),
    'ENV NODE_ENV=production HOSTNAME=0.0.0.0 PORT=3000 NEXT_TELEMETRY_DISABLED=1',
    'WORKDIR /app',
    ...tree,
    `COPY --from=build ${path.posix.join('/build', packageDir)} ${COLDSTART_DIR}`,
    'COPY --from=pack /startup.tar /startup.tar',
    '# Exec form: no shell between the container and node, so signals reach the app.',
    nodeCmd(startArgs, distroless),
  ];
}

// Where the images that start the app with Node's compile cache keep it.
const COMPILE_CACHE_DIR = '/compile-cache';

// The RUN line that builds Node's compile cache: the app started once, up to its first listen,
// with coldstart's preload that then ends it normally (Node writes its cache at exit).
function compileCacheRun(packageDir, appCommand) {
  const preload = `${packageDir}/lib/in-app/compile-cache-at-ready.cjs`;
  return `RUN NODE_COMPILE_CACHE=${COMPILE_CACHE_DIR} NODE_OPTIONS=--require=${preload} ${appCommand.map(shellWord).join(' ')}`;
}

// The run stage of a start with Node's compile cache: no coldstart in it.
function compileCacheRunStage({ n, distroless, appCommand, dir, sources }) {
  return [
    `# ${n}. Run: the app at the path and as the user the cache was built with (another path or uid misses`,
    '#    every entry, without a word), with Node\'s compile cache. Nothing of coldstart runs here.',
    runFrom(distroless),
    `ENV NODE_ENV=production NODE_COMPILE_CACHE=${COMPILE_CACHE_DIR}`,
    `WORKDIR ${dir}`,
    ...sources,
    `COPY --from=pack ${COMPILE_CACHE_DIR} ${COMPILE_CACHE_DIR}`,
    '# Exec form: no shell between the container and node, so signals reach the app.',
    nodeCmd(appCommand.slice(1), distroless),
  ];
}

// The stages of plain node, and of plain node with Node's compile cache built at build time.
function plainStages(description, { appCommand, appSource, n, distroless, compileCache }) {
  if (!compileCache) {
    return [
      `# ${n}. Run: plain node; measured (coldstart dockerfile --choose) no slower than the others for this app.`,
      runFrom(distroless),
      'ENV NODE_ENV=production',
      'WORKDIR /app',
      appSource,
      '# Exec form: no shell between the container and node, so signals reach the app.',
      nodeCmd(appCommand.slice(1), distroless),
    ];
  }
  return [
    `# ${n}. Compile cache: run the app once up to its first listen with Node's compile cache on`,
    `#    (${COMPILE_CACHE_DIR}), as root and at /app, as the run stage starts it. The app runs during the`,
    '#    build: give settings it needs to start (not secrets) harmless values with ENV.',
    'FROM ${NODE_IMAGE} AS pack',
    'ENV NODE_ENV=production',
    'WORKDIR /app',
    appSource,
    compileCacheRun(`/app/${coldstartPackage(description)}`, appCommand),
    '',
    ...compileCacheRunStage({ n: n + 1, distroless, appCommand, dir: '/app', sources: [appSource] }),
  ];
}

// The ways an image can start the app, and the first line of each Dockerfile.
const HEADLINES = {
  modules: 'with its startup files packed at build time and loaded by `coldstart start`',
  snapshot: 'started from a snapshot of its startup modules made at build time (`pack --snapshot-blob`)',
  bundle: "bundled with ncc at build time and started by `coldstart start` from an archive of the bundle's startup files",
  'bundle-compile-cache': "bundled with ncc at build time and started with Node's compile cache made then",
  'compile-cache': "started with Node's compile cache made at build time",
  plain: 'started by plain node',
};
const STARTS = Object.keys(HEADLINES);

/**
 * Renders the Dockerfile for a project description.
 * @param {ReturnType<typeof import('./detect-project.js').detectProject>} description
 * @param {{dockerfile?: string, start?: string}} [options] dockerfile: the file's path from the
 *   project root, named in the build command comment when it is not ./Dockerfile; start, the way
 *   the image starts the app (STARTS): 'modules' (`coldstart start` of the app's files, the
 *   default), 'snapshot' (a startup snapshot, `pack --snapshot-blob`), 'bundle' (`coldstart start`
 *   of an ncc bundle, proven at build to answer as the app does), 'bundle-compile-cache' (that
 *   bundle with Node's compile cache), 'compile-cache' (the app with Node's compile cache), 'plain'
 * @returns {string}
 */
function renderDockerfile(description, { dockerfile, start = 'modules' } = {}) {
  if (!STARTS.includes(start)) throw new TypeError(`renderDockerfile: unknown start ${start}`);
  const snapshot = start === 'snapshot';
  const { node, typescript, distroless } = description;
  const { appCommand } = description;
  const { coldstartBin } = description;
  const packCommand = ['node', coldstartBin, 'pack', '--code-cache', '--out', '/startup.tar', '--', ...appCommand];
  const startArgs = [coldstartBin, 'start', '--archive', '/startup.tar', '--', ...appCommand];
  const shown = appCommand.join(' ');
  const stage = (n) => (typescript ? n + 1 : n);
  const appSource = typescript ? 'COPY --from=build /app /app' : 'COPY . .';

  const lines = [
    description.lambda ? `# The Lambda function ${description.lambda.handler}, with the files its init${description.lambda.event ? ' and first invocation' : ''} read packed at build time and served from memory by coldstart's preload`
      : `# ${shown}, ${HEADLINES[start]}`,
    `# (written by coldstart dockerfile: ${description.lambda ? 'handler' : 'entry'} from ${description.entryFrom}; run it again if that changes).`,
    ...installLines(description),
    ...buildCommandLines(description, dockerfile),
    `ARG NODE_IMAGE=node:${node.major}-slim`,
  ];
  if (distroless) lines.push(`ARG DISTROLESS_IMAGE=gcr.io/distroless/nodejs${node.major}-debian12`);
  lines.push('');
  if (typescript) lines.push(...buildStage(description), '');

  if (snapshot) {
    lines.push(...snapshotRunStage(description, { appCommand, appSource, n: stage(1) }));
    return lines.join('\n') + '\n';
  }
  if (start === 'bundle' || start === 'bundle-compile-cache') {
    lines.push(...bundleStages(description, { appCommand, appSource, n: stage(1), distroless, compileCache: start === 'bundle-compile-cache' }));
    return lines.join('\n') + '\n';
  }
  if (start === 'compile-cache' || start === 'plain') {
    lines.push(...plainStages(description, { appCommand, appSource, n: stage(1), distroless, compileCache: start === 'compile-cache' }));
    return lines.join('\n') + '\n';
  }
  if (description.next) {
    lines.push(...nextStandaloneStages(description, { n: 1, distroless }));
    return lines.join('\n') + '\n';
  }
  if (description.lambda) {
    const source = typescript ? `COPY --from=build /app ${TASK_ROOT}` : appSource;
    lines.push(...lambdaStages(description, { appSource: source, n: stage(1) }));
    return lines.join('\n') + '\n';
  }
  lines.push(
    `# ${stage(1)}. Pack: start the app once, up to its first answer, and archive every file it read.`,
    '#    NODE_ENV as in the final stage, so the app reads the same files at startup. The app runs',
    '#    during the build: give settings it needs to start (not secrets) harmless values with ENV.',
    'FROM ${NODE_IMAGE} AS pack',
    'ENV NODE_ENV=production',
    'WORKDIR /app',
    appSource,
    `RUN ${packCommand.map(shellWord).join(' ')}`,
    '',
    `# ${stage(2)}. Run: the same app and Node major, plus the archive, at the same path (/app) as in the`,
    '#    pack stage: the archive records the files by where the app read them.',
    runFrom(distroless),
    'ENV NODE_ENV=production',
    'WORKDIR /app',
    appSource,
    'COPY --from=pack /startup.tar /startup.tar',
    '# Exec form: no shell between the container and node, so signals reach the app. start serves the',
    '# startup modules from the archive in memory, once it checked that the files are still the ones',
    '# packed (node_modules by its install record, one stat; the app\'s own files one each).',
  );
  if (distroless) lines.push('# The distroless entrypoint is node itself, so CMD starts with the script; nothing here needs a shell.');
  lines.push(nodeCmd(startArgs, distroless));
  return lines.join('\n') + '\n';
}

module.exports = { renderDockerfile, STARTS };
