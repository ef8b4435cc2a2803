'use strict';
// Which container runtimes are gVisor: runsc, and the other builds an engine registers beside it
// (runsc-2024, ...). Shared by the reports and the benchmarks.

/** @param {?string} runtime a runtime name as the Docker engine registers it */
const isGvisor = (runtime) => /^runsc\b/.test(String(runtime || ''));

module.exports = { isGvisor };
