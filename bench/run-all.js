'use strict';
// `npm run bench`: every benchmark behind BENCHMARKS.md, one after the other; `npm run bench --
// <name> ...` runs the named ones (a script's name in bench/ without .js, e.g. headline,
// lambda-init), with their default options.
// The container benchmarks need a Docker engine with gVisor: bash .ci/docker-up.sh
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const STEPS = [
  ['the headline table (runc, both gVisors)', 'headline.js', ['--runs', '10']],
  ['start\'s default check against --trust-archive (runc, both gVisors)', 'default-check.js', ['--runs', '10']],
  ['profile overhead', 'profile-overhead.js', ['-n', '10']],
  ['network recording overhead', 'network-overhead.js', ['-n', '10']],
  ['run-to-run noise', 'noise.js', ['-n', '20']],
  ['seed table (runc, runsc)', 'seed-table.js', ['-n', '50']],
  ['startup in containers (pack + start)', 'docker-startup.js', ['--runs', '10']],
  ['the starts dockerfile --choose picks from, five apps (runc, gVisor 2024)', 'starts-compared.js', ['--runs', '10']],
  ['a Next.js standalone server to its first answer (gVisor 2024, runc)', 'next-standalone.js', ['--runs', '10']],
  ['bundle vs plain', 'bundle-startup.js', ['-n', '10']],
  ['the clock in the sandbox (runc, runsc)', 'sandbox-clock.js', ['--runs', '8']],
];
// Scripts that are not benchmarks.
const NOT_BENCHMARKS = new Set(['run-all.js', 'run-as-script.js', 'container-main.js', 'in-process-clock.js']);

/** The steps `names` select: those of STEPS by file, any other script of bench/ with no options. */
function selectSteps(names) {
  if (!names.length) return STEPS;
  const scripts = fs.readdirSync(__dirname).filter((f) => f.endsWith('.js') && !NOT_BENCHMARKS.has(f));
  return names.map((name) => {
    const file = `${name.replace(/\.js$/, '')}.js`;
    if (!scripts.includes(file)) throw new Error(`no benchmark "${name}": one of ${scripts.map((f) => f.slice(0, -3)).join(', ')}`);
    return STEPS.find(([, f]) => f === file) || [name, file, []];
  });
}

function main(names = process.argv.slice(2)) {
  let steps;
  try {
    steps = selectSteps(names);
  } catch (err) {
    process.stderr.write(`bench: ${err.message}\n`);
    return 2;
  }
  let failed = 0;
  for (const [title, file, args] of steps) {
    process.stderr.write(`\n== ${title}: node bench/${file} ${args.join(' ')}\n`);
    // Each in its own process, as when run alone: its containers and exit code its own.
    const r = spawnSync(process.execPath, [path.join(__dirname, file), ...args], { stdio: 'inherit' });
    if (r.status !== 0) {
      failed++;
      process.stderr.write(`${title} failed: ${r.error ? r.error.message : `exit ${r.status ?? r.signal}`}\n`);
    }
  }
  return failed ? 1 : 0;
}

process.exitCode = main();
