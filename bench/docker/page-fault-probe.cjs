'use strict';
// What touching fresh memory costs in a container: writes one byte to each 4 KiB page of 64 MB of
// new memory, then to each again, three times over. Prints `page-fault-probe [{usPerPage,
// againUsPerPage, faults}, ...]`: µs per page on the first pass and on the second, and the minor
// page faults the kernel counted (gVisor counts none). Run it with `node` in any image, e.g.
//   docker run --rm --network none --runtime runsc-2024 -v "$PWD/bench/docker:/b:ro" \
//     coldstart-node:local node /b/page-fault-probe.cjs
const PAGES = 16384;
const passes = [];
for (let round = 0; round < 3; round++) {
  const bytes = new Uint8Array(new ArrayBuffer(PAGES * 4096));
  const before = process.resourceUsage().minorPageFault;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < PAGES; i++) bytes[i * 4096] = 1;
  const first = Number(process.hrtime.bigint() - t0) / 1e3;
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < PAGES; i++) bytes[i * 4096] = 2;
  const again = Number(process.hrtime.bigint() - t1) / 1e3;
  passes.push({
    usPerPage: +(first / PAGES).toFixed(3),
    againUsPerPage: +(again / PAGES).toFixed(3),
    faults: process.resourceUsage().minorPageFault - before,
  });
}
console.log(`page-fault-probe ${JSON.stringify(passes)}`);
