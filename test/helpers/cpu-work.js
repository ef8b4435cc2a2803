'use strict';
// A module that does a fixed amount of CPU work, calibrated to take a given time on this machine
// when idle: on a busier machine it takes longer, as a module's own code does (a busy-wait on the
// clock would not, and a check that compares with the machine's floor rightly discounts it).
const { execFileSync } = require('child_process');

const workLoop = (iterations) => `let x = 1;\nfor (let i = 0; i < ${iterations}; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; }\n`;

const PROBE = 20_000_000;
let probeMs = null;

/**
 * Iterations of workLoop that take `ms` of CPU in a fresh node on this machine: the fastest of a
 * few tries. CPU time, not wall time: calibrated while the machine is busy, wall time would count
 * the waits for a CPU and make the module lighter than asked. The loop's rate is measured once per
 * process (five node starts) and scaled for each `ms`.
 */
function calibrate(ms) {
  if (probeMs === null) {
    // Inside a function, as the loop runs in a module (its wrapper): at a script's top level its
    // variables live in the script context and the loop runs several times slower on Node 24.
    const code = `(() => {\nconst t = process.cpuUsage();\n${workLoop(PROBE)}const u = process.cpuUsage(t);\nconsole.log((u.user + u.system) / 1e3, x);\n})();`;
    probeMs = Math.min(...[0, 1, 2, 3, 4].map(() => Number(execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' }).split(' ')[0])));
  }
  return Math.round((PROBE * ms) / probeMs);
}

/** The source of a CommonJS module that works for about `ms` (idle machine) while it loads. */
function cpuWorkModule(ms) {
  return `'use strict';\n// ${ms} ms of work on this machine when idle.\n${workLoop(calibrate(ms))}module.exports = { spun: x };\n`;
}

module.exports = { cpuWorkModule };
