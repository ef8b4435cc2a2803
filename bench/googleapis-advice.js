#!/usr/bin/env node
'use strict';
// The advice coldstart gives for a real app that loads the whole Google API client (googleapis)
// and uses one API of it (Drive), checked against measured reality. Prints markdown.
//
//   node bench/googleapis-advice.js [-n 10]
//
// It installs googleapis and @googleapis/drive from the npm registry into two scratch apps:
//   A: const { google } = require('googleapis'), google.drive({ version: 'v3', auth }) in GET /files
//   B: const { drive } = require('@googleapis/drive'), drive({ version: 'v3', auth }) in GET /files
// then runs `coldstart profile` on A (plain, --coverage, and --verify-advice --request "GET /files")
// and prints the heavy-entry-point and lazy-load advice; then -n alternating timed starts of A and B
// (timing only, no inspector) to the ready moment: the shift A − B is the measured saving of the
// switch the heavy-entry-point advice proposes, next to its estimate.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { parseCount } = require('../lib/options.js');
const { capture } = require('../lib/capture/capture.js');
const { describeMachine } = require('../lib/bench/runner.js');
const { medianInterval, compareSamples, ratioInterval, formatComparison, formatMedianInterval } = require('../lib/stats.js');
const { spawnCli } = require('../test/helpers/app.js');

const PACKAGES = ['googleapis', '@googleapis/drive'];

const server = (requireLine, clientLine) => `'use strict';
${requireLine}
const http = require('http');

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/files') {
    // Only create the client: no network call.
    ${clientLine}
    res.statusCode = client ? 200 : 500;
    res.end(client ? 'ok' : 'no client');
    return;
  }
  res.statusCode = 404;
  res.end('not found');
});
server.listen(0);
`;

const APPS = {
  A: {
    name: 'A: googleapis',
    source: server("const { google } = require('googleapis');", "const client = google.drive({ version: 'v3', auth: 'x' });"),
  },
  B: {
    name: 'B: @googleapis/drive',
    source: server("const { drive } = require('@googleapis/drive');", "const client = drive({ version: 'v3', auth: 'x' });"),
  },
};

function parseBenchArgs(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '10' },
    },
  });
  return { runs: parseCount(values.runs, '-n') };
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Installs `specs` into `dir` with npm and writes the app's server.js; the installed versions. */
function installApp(dir, app, specs) {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefix', dir, ...specs], { stdio: ['ignore', 'ignore', 'pipe'] });
  fs.writeFileSync(path.join(dir, 'server.js'), app.source);
  const versions = {};
  for (const name of PACKAGES) {
    versions[name] = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version;
  }
  return versions;
}

/** One `coldstart profile [extra] --out out -- node server.js` in `cwd`; its report.json and wall time. */
async function profileOnce(cwd, extra, out) {
  const args = ['profile', ...extra, '--out', out, '--', 'node', 'server.js'];
  const started = Date.now();
  const { code, stderr } = await spawnCli(args, { cwd }).done;
  if (code !== 0) throw new Error(`coldstart ${args.join(' ')} exited with ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`);
  return { report: JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8')), seconds: (Date.now() - started) / 1000, args };
}

const sum = (list, key) => list.reduce((s, m) => s + (m[key] || 0), 0);
const ms = (n) => (n == null ? '–' : `${n.toFixed(1)} ms`);

/**
 * What a report says about googleapis: readyAt, modules, the package's own time, the own time of
 * its modules outside build/src/apis/drive/ (selfMs + gcMs + idleMs, as the estimate counts them:
 * the analysis sees a module's self time with its GC in it), and the advice.
 */
function summarizeReport(report, pkg = 'googleapis') {
  const own = (report.modules || []).filter((m) => m.package === pkg);
  const spared = own.filter((m) => !m.file.split('\\').join('/').includes(`/${pkg}/build/src/apis/drive/`));
  const row = (report.packages || []).find((p) => p.name === pkg) || null;
  return {
    readyAt: report.readyAt,
    modules: (report.modules || []).length,
    packageModules: own.length,
    selfMs: row ? row.selfMs : null,
    gcMs: row ? row.gcMs : null,
    sparedModules: spared.length,
    sparedSelfMs: sum(spared, 'selfMs'),
    sparedGcMs: sum(spared, 'gcMs') + sum(spared, 'idleMs'),
    heavy: (report.advice || []).filter((a) => a.kind === 'heavy-entry-point'),
    lazy: (report.advice || []).filter((a) => a.kind === 'lazy-load'),
    dropped: (report.adviceDropped || []).filter((d) => d.kind === 'lazy-load'),
    otherAdvice: (report.advice || []).filter((a) => a.kind !== 'heavy-entry-point' && a.kind !== 'lazy-load')
      .map((a) => `${a.kind} ${a.subject} ${ms(a.estimatedMs)}`),
  };
}

function verifiedCell(v) {
  if (!v) return 'not tried';
  const interval = v.low == null ? '' : ` [${v.low.toFixed(1)} … ${v.high.toFixed(1)}]`;
  const measured = v.measuredMs == null ? '–' : `${ms(v.measuredMs)}${interval}`;
  return `${v.verdict}: ${measured}${v.runs != null ? `, ${v.runs} runs each` : ''}${v.reason ? `; ${v.reason}` : ''}`;
}

/** The markdown (pure). */
function renderGoogleapisAdvice(r) {
  const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
  const lines = [];
  lines.push(`Installed: ${Object.entries(r.versions.A).map(([n, v]) => `${n}@${v}`).join(', ')} (app A's node_modules; app B's: ${Object.entries(r.versions.B).map(([n, v]) => `${n}@${v}`).join(', ')}). Node ${r.machine.node}.`, '');

  lines.push('### What `coldstart profile` says about app A', '',
    '| run | readyAt | modules | googleapis modules | googleapis own: selfMs + gcMs | outside apis/drive/: modules, selfMs + gc/idle | heavy-entry-point estimate | lazy-load items |',
    '|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const p of r.profiles) {
    const s = p.summary;
    const heavy = s.heavy.length ? s.heavy.map((a) => ms(a.estimatedMs)).join(', ') : 'none';
    lines.push(`| \`${p.label}\` | ${ms(s.readyAt)} | ${s.modules} | ${s.packageModules} | ${ms(s.selfMs)} + ${ms(s.gcMs)} | ${s.sparedModules}, ${ms(s.sparedSelfMs)} + ${ms(s.sparedGcMs)} | ${heavy} | ${s.lazy.length + s.dropped.length} |`);
  }
  lines.push('');
  for (const p of r.profiles) {
    const s = p.summary;
    lines.push(`\`${p.label}\`:`);
    for (const a of s.heavy) lines.push(`- heavy-entry-point: ${a.subject} at ${a.file}:${a.line}, parts ${a.parts.join(', ')}, estimated ${ms(a.estimatedMs)}; fix: ${a.fix}`);
    if (!s.heavy.length) lines.push('- heavy-entry-point: none');
    for (const a of s.lazy) lines.push(`- lazy-load: ${a.subject} at ${a.file}:${a.line}, estimated ${ms(a.estimatedMs)}; ${verifiedCell(a.verified)}`);
    for (const d of s.dropped) lines.push(`- lazy-load dropped: ${d.subject} at ${d.file}:${d.line}, estimated ${ms(d.estimatedMs)}; ${d.reason}`);
    if (!s.lazy.length && !s.dropped.length) lines.push('- lazy-load: none proposed');
    if (s.otherAdvice.length) lines.push(`- other advice: ${s.otherAdvice.join('; ')}`);
  }
  lines.push('');
  lines.push(`App B under \`coldstart profile\` (once, for reference): readyAt ${ms(r.profileB.readyAt)}, ${r.profileB.modules} modules, @googleapis/drive ${r.profileB.packageModules} modules, own ${ms(r.profileB.selfMs)} + gc ${ms(r.profileB.gcMs)}; advice: ${[...r.profileB.heavy, ...r.profileB.lazy].length ? 'heavy-entry-point/lazy-load present' : 'no heavy-entry-point or lazy-load item'}.`, '');

  const cmp = { ...compareSamples(r.samples.A, r.samples.B), factor: ratioInterval(r.samples.A, r.samples.B) };
  // compareSamples gives B − A; the saving of the switch is A − B, the same interval turned round.
  const saving = { shift: -cmp.shift, low: cmp.high == null ? null : -cmp.high, high: cmp.low == null ? null : -cmp.low };
  const estimate = r.profiles[0].summary.heavy[0];
  lines.push('### Measured: timed starts to the ready moment (no profiler)', '',
    '| app | median readyAt [95% interval] | runs |',
    '|---|---:|---:|',
    `| ${APPS.A.name} | ${formatMedianInterval(medianInterval(r.samples.A))} | ${r.samples.A.length} |`,
    `| ${APPS.B.name} | ${formatMedianInterval(medianInterval(r.samples.B))} | ${r.samples.B.length} |`,
    '',
    `Shift A − B (the measured saving of switching to @googleapis/drive): **${ms(saving.shift)}**` +
      `${saving.low == null ? '' : ` [${saving.low.toFixed(1)} … ${saving.high.toFixed(1)}] ms, ${Math.floor(cmp.confidence * 100)}% interval`}; B against A: ${formatComparison(cmp)}.`,
    estimate
      ? `Heavy-entry-point estimate (plain profile): ${ms(estimate.estimatedMs)}; estimate / measured shift = ${(estimate.estimatedMs / saving.shift).toFixed(2)}.`
      : 'Heavy-entry-point estimate: none (the advice did not appear in the plain profile).',
    `A's readyAt under the profiler (plain profile) / A's timed median: ${(r.profiles[0].summary.readyAt / medianInterval(r.samples.A).median).toFixed(2)}.`,
    '',
    `Runs: one warm-up of each, then ${r.samples.A.length} rounds of A then B, \`capture({ timingOnly: true })\`, until listen.`,
    `Machine: ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGb} GB, ${r.machine.os}; load average at the start ${load(r.loadAtStart)}, at the end ${load(r.loadAtEnd)}; ${Math.round(r.seconds)} s in all (install ${Math.round(r.installSeconds)} s).`,
    '');
  return lines.join('\n');
}

async function timedStart(cwd) {
  const result = await capture({ command: ['node', 'server.js'], cwd, until: { mode: 'listen' }, timingOnly: true, profile: false });
  return result.readyAt;
}

async function main(argv = process.argv.slice(2)) {
  const plan = parseBenchArgs(argv);
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const progress = (text) => { if (process.stderr.isTTY) process.stderr.write(`\r${text}\x1b[K`); };
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-googleapis-advice-'));
  const dirs = { A: path.join(scratch, 'a'), B: path.join(scratch, 'b') };
  try {
    progress('npm install (A)');
    const versions = { A: installApp(dirs.A, APPS.A, PACKAGES) };
    // B gets the very versions A got.
    progress('npm install (B)');
    versions.B = installApp(dirs.B, APPS.B, PACKAGES.map((n) => `${n}@${versions.A[n]}`));
    const installSeconds = (Date.now() - started) / 1000;

    const profiles = [];
    const runs = [
      { label: 'profile', extra: [] },
      { label: 'profile --coverage', extra: ['--coverage'] },
      { label: 'profile --verify-advice --request "GET /files"', extra: ['--verify-advice', '--request', 'GET /files'] },
    ];
    for (const [i, run] of runs.entries()) {
      progress(`coldstart ${run.label}`);
      const { report, seconds } = await profileOnce(dirs.A, run.extra, path.join(scratch, `out-a-${i}`));
      profiles.push({ label: run.label, seconds, summary: summarizeReport(report) });
    }
    progress('coldstart profile (B)');
    const profileB = summarizeReport((await profileOnce(dirs.B, [], path.join(scratch, 'out-b'))).report, '@googleapis/drive');

    const samples = { A: [], B: [] };
    await timedStart(dirs.A);
    await timedStart(dirs.B);
    for (let i = 0; i < plan.runs; i++) {
      samples.A.push(await timedStart(dirs.A));
      samples.B.push(await timedStart(dirs.B));
      progress(`timed starts ${i + 1}/${plan.runs}`);
    }
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    process.stdout.write(renderGoogleapisAdvice({
      versions, profiles, profileB, samples, machine: describeMachine(), loadAtStart, loadAtEnd: os.loadavg(),
      seconds: (Date.now() - started) / 1000, installSeconds,
    }));
  } finally {
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return 0;
}

if (require.main === module) require('./run-as-script.js').runAsScript('googleapis-advice', main);

module.exports = { main, renderGoogleapisAdvice, summarizeReport, APPS };
