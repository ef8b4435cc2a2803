#!/usr/bin/env node
'use strict';
// How often coldstart's verdicts say "changed" when nothing changed. For each fixture app, quiet
// and with two busy loops spinning (a shared 2-core CI runner):
//   - diff: N pairs of single profiles of the same unchanged app (`coldstart profile` twice,
//     `coldstart diff a b --json`); a pair "said a change" when readyAt.verdict is slower or faster
//     or any package / module mover is listed;
//   - check: a baseline recorded with `check -n 20 --update-baseline` in the same condition,
//     then `check -n 10` of the unchanged app against it, M times; its verdict (pass /
//     inconclusive / fail), shift interval, tolerance, movers listed, exit code;
//   - check against itself: `check -n 6..12 --baseline-cmd '<the app command>'` of the
//     unchanged app, K times (what test/check-busy-machine.test.js asks of CI: never a fail, movers
//     rarely); each round's two runs in the order the engine draws.
// Everything runs through the CLI (bin/coldstart.js), as CI would; reports go to a temp dir.
// Prints markdown.
//
//   node bench/verdict-truth.js [--pairs 10] [--checks 3] [--self-checks 6]   (0 leaves a part out)
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseCount } = require('../lib/options.js');
const { shellLine } = require('../lib/shell-words.js');
const { startBusyLoops } = require('../test/helpers/busy-loops.js');

const REPO = path.join(__dirname, '..');
const CLI = path.join(REPO, 'bin', 'coldstart.js');
// A CLI run that takes longer than this is stuck: killed, and recorded as an error.
const COMMAND_TIMEOUT_MS = 10 * 60 * 1000;

const APPS = [
  { name: 'express-app', dir: path.join(REPO, 'fixtures', 'express-app'), command: ['node', 'server.js'] },
  { name: 'slow-require', dir: path.join(REPO, 'fixtures', 'slow-require'), command: ['node', 'server.js'] },
  // Its package.json's start script: express traced by OpenTelemetry from a preload.
  { name: 'otel-express', dir: path.join(REPO, 'fixtures', 'otel-express'), command: ['node', '--require', './tracing.js', 'server.js'] },
];
const SKIPPED = [];
const CONDITIONS = [
  { name: 'quiet', busyLoops: 0 },
  { name: '2 busy loops', busyLoops: 2 },
];

/** Runs the CLI in cwd; resolves { code, signal, stdout, stderr } (never rejects on exit code). */
function coldstart(args, cwd, running) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS);
    child.once('error', (err) => { clearTimeout(timer); running.delete(child); reject(err); });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function parseJson(result, what) {
  try {
    return JSON.parse(result.stdout);
  } catch {
    const tail = result.stderr.trim().split('\n').slice(-5).join(' | ');
    throw new Error(`${what}: exit ${result.code}${result.signal ? ` (${result.signal})` : ''}, no JSON on stdout; stderr: ${tail}`);
  }
}

async function profile(app, out, running) {
  const r = await coldstart(['profile', '-q', '--out', out, '--', ...app.command], app.dir, running);
  if (r.code !== 0) throw new Error(`profile ${app.name}: exit ${r.code}${r.signal ? ` (${r.signal})` : ''}: ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  return path.join(out, 'report.json');
}

async function diffPair(app, scratch, i, running) {
  const a = await profile(app, path.join(scratch, `pair-${i}-a`), running);
  const b = await profile(app, path.join(scratch, `pair-${i}-b`), running);
  const r = await coldstart(['diff', a, b, '--json'], app.dir, running);
  const d = parseJson(r, `diff ${app.name} pair ${i + 1}`);
  fs.rmSync(path.join(scratch, `pair-${i}-a`), { recursive: true, force: true });
  fs.rmSync(path.join(scratch, `pair-${i}-b`), { recursive: true, force: true });
  const movers = (d.packageMovers || []).length + (d.moduleMovers || []).length;
  const added = (d.packagesAdded || []).length + (d.packagesRemoved || []).length + (d.modulesAdded || 0) + (d.modulesRemoved || 0);
  return {
    pair: i + 1,
    before: d.readyAt.before,
    after: d.readyAt.after,
    band: d.readyAt.band,
    judged: d.readyAt.judged || null,
    verdict: d.readyAt.verdict,
    packageMovers: (d.packageMovers || []).map((m) => m.name),
    moduleMovers: (d.moduleMovers || []).map((m) => path.relative(REPO, m.file || '')),
    movers,
    added,
    exit: r.code,
    // "cannot tell" (a busy machine) is not a change: it says a single pair cannot decide.
    saidChange: d.readyAt.verdict === 'slower' || d.readyAt.verdict === 'faster' || movers > 0,
  };
}

async function checkRun(app, baseline, scratch, i, running) {
  const out = path.join(scratch, `check-${i}`);
  const r = await coldstart(['check', '-n', '10', '--baseline', baseline, '--out', out, '--json', '--', ...app.command], app.dir, running);
  const j = parseJson(r, `check ${app.name} #${i + 1}`);
  fs.rmSync(out, { recursive: true, force: true });
  const c = (j.checks || []).find((x) => x.name === 'baseline') || {};
  const diff = j.diff || {};
  return {
    run: i + 1,
    exit: r.code,
    verdict: j.verdict,
    checkVerdict: c.verdict,
    actual: c.actual,
    low: c.low,
    high: c.high,
    limit: c.limit,
    method: c.method,
    control: c.control || null,
    median: j.readyAt,
    packageMovers: (diff.packageMovers || []).map((m) => m.name),
    moduleMovers: (diff.moduleMovers || []).map((m) => path.relative(REPO, m.file || '')),
    movers: (diff.packageMovers || []).length + (diff.moduleMovers || []).length,
    diffReady: diff.readyAt ? diff.readyAt.verdict : null,
  };
}

/** The baseline line of one check of the app against itself (--baseline-cmd, the same command). */
async function selfCheck(app, i, running) {
  const r = await coldstart(['check', '-n', '6..12', '--baseline-cmd', shellLine(app.command), '--json', '--', ...app.command], app.dir, running);
  const j = parseJson(r, `check --baseline-cmd ${app.name} #${i + 1}`);
  const c = (j.checks || []).find((x) => x.name === 'baseline') || {};
  const diff = j.diff || {};
  return {
    run: i + 1, exit: r.code, verdict: c.verdict, actual: c.actual, low: c.low, high: c.high, limit: c.limit, runs: j.runs,
    movers: (diff.packageMovers || []).length + (diff.moduleMovers || []).length,
    moverNames: [...(diff.packageMovers || []).map((m) => m.name), ...(diff.moduleMovers || []).map((m) => path.relative(REPO, m.file || ''))],
  };
}

async function measureApp(app, condition, { pairs, checks, selfChecks }, scratch, running, progress) {
  const dir = fs.mkdtempSync(path.join(scratch, `${app.name}-`));
  const result = { app: app.name, condition: condition.name, pairs: [], checks: [], selfChecks: [], baseline: null, errors: [] };
  // One profile to warm the disk cache, discarded.
  await profile(app, path.join(dir, 'warm'), running).catch((err) => result.errors.push(`warm-up: ${err.message}`));
  fs.rmSync(path.join(dir, 'warm'), { recursive: true, force: true });
  for (let i = 0; i < pairs; i++) {
    progress(`${condition.name} · ${app.name}: diff pair ${i + 1}/${pairs}`);
    try {
      result.pairs.push(await diffPair(app, dir, i, running));
    } catch (err) {
      result.errors.push(err.message);
    }
  }
  for (let i = 0; i < selfChecks; i++) {
    progress(`${condition.name} · ${app.name}: check against itself ${i + 1}/${selfChecks}`);
    try {
      result.selfChecks.push(await selfCheck(app, i, running));
    } catch (err) {
      result.errors.push(err.message);
    }
  }
  if (!checks) {
    fs.rmSync(dir, { recursive: true, force: true });
    return result;
  }
  const baseline = path.join(dir, 'baseline.json');
  progress(`${condition.name} · ${app.name}: recording the baseline (-n 20)`);
  const u = await coldstart(['check', '-n', '20', '--update-baseline', '--baseline', baseline, '--out', path.join(dir, 'baseline-out'), '--json', '--', ...app.command], app.dir, running);
  try {
    const j = parseJson(u, `check --update-baseline ${app.name}`);
    result.baseline = { exit: u.code, median: j.readyAt, low: j.readyAtInterval && j.readyAtInterval.low, high: j.readyAtInterval && j.readyAtInterval.high, control: j.control && j.control.median };
  } catch (err) {
    result.errors.push(err.message);
  }
  if (fs.existsSync(baseline)) {
    for (let i = 0; i < checks; i++) {
      progress(`${condition.name} · ${app.name}: check ${i + 1}/${checks}`);
      try {
        result.checks.push(await checkRun(app, baseline, dir, i, running));
      } catch (err) {
        result.errors.push(err.message);
      }
    }
  } else {
    result.errors.push(`no baseline written at ${baseline}: checks skipped`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return result;
}

const ms = (x) => (x == null || Number.isNaN(x) ? '–' : `${x >= 100 ? x.toFixed(0) : x.toFixed(1)}`);
const signed = (x) => (x == null ? '–' : `${x >= 0 ? '+' : '−'}${ms(Math.abs(x))}`);
const list = (names, most = 3) => (names.length ? names.slice(0, most).join(', ') + (names.length > most ? ` … (+${names.length - most})` : '') : '');

/** The markdown (pure). */
function render({ machine, conditions, results, options, skipped, elapsedMs }) {
  const lines = [
    '## Verdicts of an unchanged app: diff of two single profiles, check against a fresh baseline',
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.os}; Node ${machine.node}. `
      + `${options.pairs} diff pairs and ${options.checks} checks (\`-n 10\` against a \`-n 20\` baseline) per app and condition, and ${options.selfChecks} checks of the app against itself; took ${(elapsedMs / 60000).toFixed(1)} min.`,
    '',
    '| condition | load average (1, 5, 15 min) before | after |',
    '|---|---|---|',
  ];
  for (const c of conditions) lines.push(`| ${c.name} | ${c.loadBefore.map((x) => x.toFixed(2)).join(', ')} | ${c.loadAfter.map((x) => x.toFixed(2)).join(', ')} |`);
  if (skipped.length) lines.push('', `Skipped: ${skipped.join('; ')}.`);

  lines.push('', '### diff of two single profiles (`coldstart profile` ×2, `coldstart diff a b --json`)', '',
    '| app | condition | pairs | said "no change" | readyAt verdict ≠ noise | with movers | readyAt before → after (ms), each pair |',
    '|---|---|---:|---:|---:|---:|---|');
  for (const r of results) {
    const n = r.pairs.length;
    const quiet = r.pairs.filter((p) => !p.saidChange).length;
    const notNoise = r.pairs.filter((p) => p.verdict === 'slower' || p.verdict === 'faster').length;
    const withMovers = r.pairs.filter((p) => p.movers > 0).length;
    const each = r.pairs.map((p) => `${ms(p.before)}→${ms(p.after)}`).join(', ');
    lines.push(`| ${r.app} | ${r.condition} | ${n} | ${quiet} | ${notNoise} | ${withMovers} | ${each} |`);
  }
  lines.push('', 'Pairs that said a change:', '', '| app | condition | pair | before | after | band | judged before → after | verdict | movers (package / module) |', '|---|---|---:|---:|---:|---:|---|---|---|');
  let anyChange = false;
  for (const r of results) {
    for (const p of r.pairs.filter((x) => x.saidChange)) {
      anyChange = true;
      const judged = p.judged ? `${ms(p.judged.before)} → ${ms(p.judged.after)}` : '–';
      lines.push(`| ${r.app} | ${r.condition} | ${p.pair} | ${ms(p.before)} | ${ms(p.after)} | ${ms(p.band)} | ${judged} | ${p.verdict} | ${p.movers}: ${list(p.packageMovers)}${p.moduleMovers.length ? ` / ${list(p.moduleMovers, 2)}` : ''} |`);
    }
  }
  if (!anyChange) lines.push('| (none) | | | | | | | | |');

  lines.push('', '### check -n 10 against a baseline of check -n 20 --update-baseline (same condition)', '',
    '| app | condition | baseline median [interval], control | # | verdict | exit | shift [low, high] (ms) | tolerance | control before → after (moved) | readyAt in diff | movers (package / module) |',
    '|---|---|---|---:|---|---:|---|---:|---|---|---|');
  for (const r of results) {
    const b = r.baseline;
    const base = b ? `${ms(b.median)} [${ms(b.low)}, ${ms(b.high)}], ${ms(b.control)}` : '–';
    for (const c of r.checks) {
      const ctl = c.control ? `${ms(c.control.before)} → ${ms(c.control.after)} (${c.control.moved})` : '–';
      lines.push(`| ${r.app} | ${r.condition} | ${base} | ${c.run} | ${c.verdict} | ${c.exit} | ${signed(c.actual)} [${signed(c.low)}, ${signed(c.high)}] | ${ms(c.limit)} | ${ctl} | ${c.diffReady || '–'} | ${c.movers}${c.movers ? `: ${list(c.packageMovers)}${c.moduleMovers.length ? ` / ${list(c.moduleMovers, 2)}` : ''}` : ''} |`);
    }
    if (!r.checks.length && options.checks) lines.push(`| ${r.app} | ${r.condition} | ${base} | – | (no checks ran) | | | | | | |`);
  }

  lines.push('', '### check of the app against itself (`-n 6..12 --baseline-cmd` the same command)', '',
    '| app | condition | # | verdict | exit | runs a side | shift [low, high] (ms) | tolerance | movers |',
    '|---|---|---:|---|---:|---:|---|---:|---|');
  for (const r of results) {
    for (const c of r.selfChecks) lines.push(`| ${r.app} | ${r.condition} | ${c.run} | ${c.verdict} | ${c.exit} | ${c.runs} | ${signed(c.actual)} [${signed(c.low)}, ${signed(c.high)}] | ${ms(c.limit)} | ${c.movers ? `${c.movers}: ${list(c.moverNames)}` : '0'} |`);
  }
  const pairs = results.flatMap((r) => r.pairs);
  const checks = results.flatMap((r) => r.checks);
  const count = (v) => checks.filter((c) => c.verdict === v).length;
  const byCondition = conditions.map((cond) => {
    const p = results.filter((r) => r.condition === cond.name).flatMap((r) => r.pairs);
    const c = results.filter((r) => r.condition === cond.name).flatMap((r) => r.checks);
    const self = results.filter((r) => r.condition === cond.name).flatMap((r) => r.selfChecks);
    const k = (v, of = c) => of.filter((x) => x.verdict === v).length;
    return `- ${cond.name}: diff ${p.filter((x) => !x.saidChange).length} of ${p.length} said no change; `
      + `check pass ${k('pass')} / inconclusive ${k('inconclusive')} / fail ${k('fail')}, movers listed in ${c.filter((x) => x.movers > 0).length} of ${c.length}; `
      + `against itself pass ${k('pass', self)} / inconclusive ${k('inconclusive', self)} / fail ${k('fail', self)}, movers listed in ${self.filter((x) => x.movers > 0).length} of ${self.length}`;
  });
  lines.push('', '### Totals', '',
    `- diff: ${pairs.filter((p) => !p.saidChange).length} of ${pairs.length} pairs said no change `
      + `(${pairs.filter((p) => p.verdict === 'slower' || p.verdict === 'faster').length} slower or faster, ${pairs.filter((p) => p.verdict === 'cannot tell').length} "cannot tell" (a busy machine), ${pairs.filter((p) => p.movers > 0).length} with movers listed).`,
    `- check: verdicts pass ${count('pass')} / inconclusive ${count('inconclusive')} / fail ${count('fail')} of ${checks.length}; `
      + `movers listed in ${checks.filter((c) => c.movers > 0).length} of ${checks.length}; `
      + `the diff's readyAt said slower/faster in ${checks.filter((c) => c.diffReady && c.diffReady !== 'noise').length} of ${checks.length}.`,
    ...byCondition);
  const errors = results.flatMap((r) => r.errors.map((e) => `- ${r.app}, ${r.condition}: ${e}`));
  if (errors.length) lines.push('', '### Errors', '', ...errors);
  lines.push('');
  return lines.join('\n');
}

async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({ args: argv, options: { pairs: { type: 'string', default: '10' }, checks: { type: 'string', default: '3' }, 'self-checks': { type: 'string', default: '6' } } });
  const options = { pairs: parseCount(values.pairs, '--pairs', 0), checks: parseCount(values.checks, '--checks', 0), selfChecks: parseCount(values['self-checks'], '--self-checks', 0) };
  const progress = (text) => process.stderr.isTTY && process.stderr.write(`\r${text}\x1b[K`);
  const started = Date.now();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-verdict-truth-'));
  const running = new Set();
  let loops = null;
  // On Ctrl-C or a kill, the finally below does not run: stop the loops and clean up here.
  const onSignal = (signal) => {
    for (const child of running) child.kill('SIGKILL');
    if (loops) for (const pid of loops.pids) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    fs.rmSync(scratch, { recursive: true, force: true });
    process.stderr.write(`\nverdict-truth: ${signal}, stopped\n`);
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const conditions = [];
    const results = [];
    for (const condition of CONDITIONS) {
      const entry = { name: condition.name, loadBefore: os.loadavg() };
      if (condition.busyLoops) loops = await startBusyLoops(condition.busyLoops);
      try {
        for (const app of APPS) results.push(await measureApp(app, condition, options, scratch, running, progress));
      } finally {
        if (loops) await loops.stop();
        loops = null;
      }
      entry.loadAfter = os.loadavg();
      conditions.push(entry);
    }
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    process.stdout.write(render({ machine: describeMachine(), conditions, results, options, skipped: SKIPPED, elapsedMs: Date.now() - started }));
    return 0;
  } finally {
    if (loops) await loops.stop();
    for (const child of running) child.kill('SIGKILL');
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) require('./run-as-script.js').runAsScript('verdict-truth', main);

module.exports = { main, render };
