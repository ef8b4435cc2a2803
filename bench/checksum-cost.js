#!/usr/bin/env node
'use strict';
// What checking the archive's CRC-32s costs `coldstart start --mode memory`, inside a container
// (runc and gVisor's runsc): the seed's 1000-module fixture is packed, and a fresh Node process
// in a fresh container times, from a cold start of its own, the ways the check can be made:
//   per-file        CRC32_MODULE below loaded (pack's crc32.js, as it was), then every layout
//                   entry's bytes checked once (what start did when every packed file was served)
//   whole           one CRC-32 over the whole archive buffer (what start does: the seal)
//   per-file-table  the table-driven fallback (a Node without zlib.crc32), every entry
//   none            the same loop slicing the entries, no checksum: the floor
// Each container runs the four in a new order each round (alternated, so drift spreads over all
// of them), each in its own `node` process. Prints a markdown table of medians with their 95%
// intervals. Needs the engine and base image from .ci/docker-up.sh.
// usage: node bench/checksum-cost.js [--runs 10] [--runtimes runc,runsc] [--modules 1000]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { requireDocker, buildImage, runContainer, removeImages } = require('../lib/docker.js');
const { generateFixture } = require('../lib/fixtures/generate.js');
const { medianInterval, formatMedianInterval } = require('../lib/stats.js');
const { readLeadEntry } = require('../lib/start/tar-header.js');

const MODES = ['per-file', 'whole', 'per-file-table', 'none'];

// The CRC-32 module the probe loads, written into the image as crc32.js: zlib's native one (Node
// 20.15+ and 22.2+), else the table-driven one; tableCrc32 is the table-driven one alone.
const CRC32_MODULE = `'use strict';
let native;
let table = null;
function crc32(data, value = 0) {
  if (native === undefined) native = require('node:zlib').crc32 || null;
  return native ? native(data, value) : tableCrc32(data, value);
}
function tableCrc32(data, value = 0) {
  if (!table) {
    table = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  let crc = ~value;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
module.exports = { crc32, tableCrc32 };
`;

// Runs in the container, once per mode, in a fresh process: prints "<mode> <ms>".
const PROBE = `'use strict';
const fs = require('fs');
const mode = process.argv[2];
const buffer = fs.readFileSync('/bench/startup.tar');
const { base, files } = JSON.parse(fs.readFileSync('/bench/layout.json', 'utf8'));
const started = performance.now();
let bad = 0;
if (mode === 'whole') {
  require('./crc32.js').crc32(buffer);
} else {
  const sum = mode === 'per-file' ? require('./crc32.js').crc32
    : mode === 'per-file-table' ? require('./crc32.js').tableCrc32 : null;
  for (const [offset, size, crc] of files) {
    const data = buffer.subarray(base + offset, base + offset + size);
    if (sum && sum(data) !== crc) bad++;
  }
}
const ms = performance.now() - started;
if (bad) throw new Error(bad + ' mismatches');
console.log(mode + ' ' + ms.toFixed(3));
`;

async function main() {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '10' }, runtimes: { type: 'string', default: 'runc,runsc' }, modules: { type: 'string', default: '1000' } },
  });
  const runs = Number(values.runs);
  const runtimes = values.runtimes.split(',');
  await requireDocker();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-checksum-'));
  const tag = `coldstart-checksum-bench:${process.pid}`;
  try {
    const app = path.join(work, 'app');
    await generateFixture({ dir: app, modules: Number(values.modules) });
    const { run } = require('../lib/cli.js');
    const quiet = { write() { return true; } };
    const tar = path.join(work, 'context', 'startup.tar');
    fs.mkdirSync(path.dirname(tar), { recursive: true });
    const code = await run(['pack', '-q', '--out', tar, '--', 'node', 'index.js'], { stdout: quiet, stderr: process.stderr, cwd: app });
    if (code !== 0) throw new Error(`pack failed (${code})`);
    const buffer = fs.readFileSync(tar);
    const lead = readLeadEntry(buffer);
    const index = JSON.parse(lead.data.toString('utf8'));
    const files = Object.values(index.layout.files);
    const context = path.dirname(tar);
    fs.writeFileSync(path.join(context, 'layout.json'), JSON.stringify({ base: lead.end, files }));
    fs.writeFileSync(path.join(context, 'probe.js'), PROBE);
    fs.writeFileSync(path.join(context, 'crc32.js'), CRC32_MODULE);
    fs.writeFileSync(path.join(context, 'Dockerfile'),
      'ARG NODE_IMAGE=coldstart-node:local\nFROM ${NODE_IMAGE}\nCOPY . /bench/\nWORKDIR /bench\n');
    await buildImage({ context, tag });
    const servedBytes = files.reduce((sum, [, size]) => sum + size, 0);
    process.stderr.write(`archive ${buffer.length} B, ${files.length} entries, ${servedBytes} B in entries\n`);

    const samples = {};
    for (const runtime of runtimes) {
      samples[runtime] = Object.fromEntries(MODES.map((m) => [m, []]));
      for (let round = 0; round <= runs; round++) {
        const order = MODES.map((m, i) => MODES[(i + round) % MODES.length]);
        const script = order.map((m) => `node probe.js ${m}`).join(' && ');
        const r = await runContainer({ image: tag, runtime, args: ['sh', '-c', script], timeoutMs: 120_000 });
        if (r.code !== 0) throw new Error(`probe failed under ${runtime}: ${r.stderr}`);
        if (round === 0) continue; // warm-up: the image's first start
        for (const line of r.stdout.trim().split('\n')) {
          const [mode, ms] = line.split(' ');
          samples[runtime][mode].push(Number(ms));
        }
      }
    }
    const lines = [`| runtime | ${MODES.join(' | ')} |`, `|---|${MODES.map(() => '---').join('|')}|`];
    for (const runtime of runtimes) {
      lines.push(`| ${runtime} | ${MODES.map((m) => formatMedianInterval(medianInterval(samples[runtime][m]))).join(' | ')} |`);
    }
    process.stdout.write(`${lines.join('\n')}\n\nn = ${runs} per cell; archive ${buffer.length} bytes, ${files.length} entries (${servedBytes} bytes); load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  } finally {
    await removeImages([tag]).catch(() => {});
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`checksum-cost: ${err.message}\n`);
    process.exitCode = 1;
  });
}

module.exports = { CRC32_MODULE };
