'use strict';
// Preloaded (-r) by bench/sandbox-busy-line.js: prints `clock-pair <wall ms> <monotonic ns>`, this
// process's wall clock and monotonic clock read together. A CPU profile's startTime and endTime are
// monotonic, and gVisor starts its monotonic clock near 0 when the sandbox boots; its wall clock is
// the host's. With this pair the host places the profiled window on its own wall clock.
const mono = process.hrtime.bigint();
const wall = Date.now();
process.stdout.write(`clock-pair ${wall} ${mono}\n`);
