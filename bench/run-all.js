'use strict';
// `npm run bench`: every benchmark behind BENCHMARKS.md, one after the other.
// The container benchmarks need a Docker engine with gVisor: bash .ci/docker-up.sh
const path = require('path');

const STEPS = [
  ['profile overhead', 'profile-overhead.js', ['-n', '10']],
  ['network recording overhead', 'network-overhead.js', ['-n', '10']],
  ['run-to-run noise', 'noise.js', ['-n', '20']],
  ['seed table (runc, runsc)', 'seed-table.js', ['-n', '50']],
  ['startup in containers (pack + start)', 'docker-startup.js', ['--runs', '10']],
  ['bundle vs plain', 'bundle-startup.js', ['-n', '10']],
  ['the clock in the sandbox (runc, runsc)', 'sandbox-clock.js', ['--runs', '8']],
];

async function main() {
  let failed = 0;
  for (const [title, file, args] of STEPS) {
    process.stderr.write(`\n== ${title}: node bench/${file} ${args.join(' ')}\n`);
    const mod = require(path.join(__dirname, file));
    try {
      const code = await mod.main(args);
      if (code) failed++;
    } catch (err) {
      failed++;
      process.stderr.write(`${title} failed: ${err.message}\n`);
    }
  }
  return failed ? 1 : 0;
}

main().then((code) => { process.exitCode = code; });
