'use strict';
// Inside a container of bench/sandbox-clock.js: what reading the monotonic clock and compiling a
// small script cost in the process's first milliseconds, and again once a clock read is cheap.
// Prints one line: `clock-probe {json}`, times in µs per call, moments in ms of process uptime.
const vm = require('node:vm');

const SCRIPTS = 300;
const uptimeMs = () => process.uptime() * 1000;

function clockReadUs(reads) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < reads; i++) process.hrtime.bigint();
  return Number(process.hrtime.bigint() - t0) / 1e3 / reads;
}

// Each source differs (no compilation cache hit); vm.Script is how a module gets its own file
// name, indirect eval the same compile without one (the control).
let serial = 0;
function compileUs(kind) {
  const ev = eval;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < SCRIPTS; i++) {
    const src = `(function (exports, module) { module.exports = { v${serial}: ${serial++} }; })`;
    if (kind === 'script') new vm.Script(src, { filename: `/probe/m${serial}.js` });
    else ev(src);
  }
  return Number(process.hrtime.bigint() - t0) / 1e3 / SCRIPTS;
}

function measure() {
  return { atMs: uptimeMs(), clockReadUs: clockReadUs(200), scriptUs: compileUs('script'), evalUs: compileUs('eval') };
}

const early = measure();
// Wait (without reading the clock in a loop) until a read costs under a microsecond, or 4 s.
const pause = new Int32Array(new SharedArrayBuffer(4));
let cheapAtMs = null;
while (uptimeMs() < 4000) {
  if (clockReadUs(50) < 1) { cheapAtMs = uptimeMs(); break; }
  Atomics.wait(pause, 0, 0, 20);
}
const late = measure();
console.log(`clock-probe ${JSON.stringify({ early, cheapAtMs, late })}`);
