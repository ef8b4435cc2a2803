'use strict';
// The summary's busy line says what the kernel lets it know: a wait for a CPU read from the run
// queue; inside gVisor (no run queue, a faked load average) the profile's gaps, which measured
// against the host's run queue are a wait for a CPU too (bench/sandbox-busy-line.js).
const test = require('node:test');
const assert = require('node:assert');
const { busyLine } = require('../lib/report/terminal.js');

test('the busy line: a run queue read on Linux, the profile\'s gaps where the kernel shows none', () => {
  const linux = { busy: true, offCpuMs: 300, offCpuShare: 0.3, runQueueMs: 250, runQueueShare: 0.25, loadAverage: [6.5, 5, 4], cpus: 2, floorMs: 60 };
  assert.match(busyLine(linux), /^the machine was busy: the app waited for a CPU 250 ms, 25% of the profiled time \(load average 6\.5 on 2 CPUs; a bare Node reached the same moment in 60\.0 ms right after\); module times are the CPU they used/);
  const gvisor = { busy: true, offCpuMs: 112, offCpuShare: 0.21, runQueueMs: null, runQueueShare: null, loadAverage: null, cpus: 2, floorMs: null };
  const line = busyLine(gvisor);
  assert.match(line, /^the machine was busy: the app was not running 112 ms, 21% of the profiled time, waiting for a CPU \(this kernel shows no load average and no run queue/);
  assert.match(line, /in a sandbox its own threads take CPUs too\); module times leave out the time the profile saw the app not running$/);
  assert.doesNotMatch(line, /load average 0/);
  assert.strictEqual(busyLine({ ...gvisor, busy: false }), null, 'not busy, and no run queue to tell the kernel\'s share: nothing said');
});
