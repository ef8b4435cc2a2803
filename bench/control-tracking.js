#!/usr/bin/env node
'use strict';
// How `coldstart check` reads a baseline through its control app, judged three ways on the same
// recorded runs: the app's excess over its control run (tracking taken as 1), the app as measured
// (tracking 0), and less the share of the control's move the app follows run by run (what check
// does: lib/check/control.js). Each set is `check -n N --update-baseline` of an app (every run and
// its control run, each less its wait for a CPU), recorded quiet, with two busy loops and with
// eight; every set is then judged as a baseline against every other set's first --now runs of the
// same app, and a grown app's sets (50 ms more of CPU work) against the app's. Then, in each
// condition, `check --baseline-cmd` (the app's old revision run alternately, no control needed):
// the unchanged app against itself and the grown app against the app, --alternated times each.
// Prints markdown.
//
//   node bench/control-tracking.js [--sets 2] [--runs 16] [--now 10] [--loops 0,2,8] [--alternated 3]
//   (--sets 0 or --alternated 0 leaves that part out)
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { describeMachine } = require('../lib/bench/runner.js');
const { parseCount } = require('../lib/options.js');
const { shellLine } = require('../lib/shell-words.js');
const { compareSamples, median } = require('../lib/stats.js');
const { againstControl } = require('../lib/check/control.js');
const { judgedRuns, baselineRuns } = require('../lib/check/baseline-runs.js');
const { cpuWorkModule } = require('../test/helpers/cpu-work.js');
const { startBusyLoops } = require('../test/helpers/busy-loops.js');

const CLI = path.join(__dirname, '..', 'bin', 'coldstart.js');
const condition = (loops) => ({ name: loops ? `${loops} busy loops` : 'quiet', loops });

/** The apps, written once: a one-file server, W1 at 700 modules, and each with 50 ms more CPU work. */
function writeApps(root) {
  const server = "require('http').createServer((req, res) => res.end('ok')).listen(0);\n";
  const work = cpuWorkModule(50);
  const made = (name, files) => {
    fs.mkdirSync(path.join(root, name), { recursive: true });
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name, file), text);
  };
  made('one-file', { 'main.js': server });
  made('one-file+50ms', { 'main.js': `require('./work.js');\n${server}`, 'work.js': work });
  for (const name of ['w1', 'w1+50ms']) {
    const r = spawnSync(process.execPath, [CLI, 'fixture', '--modules', '700', '--out', path.join(root, name), '-q'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`fixture: ${r.stderr}`);
  }
  const index = path.join(root, 'w1+50ms', 'index.js');
  fs.writeFileSync(path.join(root, 'w1+50ms', 'work.js'), work);
  fs.writeFileSync(index, `require('./work.js');\n${fs.readFileSync(index, 'utf8')}`);
  return [
    { name: 'one-file', grown: 'one-file+50ms', command: ['node', 'main.js'] },
    { name: 'w1', grown: 'w1+50ms', command: ['node', 'index.js'] },
  ];
}

/** One recorded set: the baseline report check writes, judged as check judges it (less the wait). */
function recordSet(root, name, command, runs) {
  const file = path.join(root, `${name}-${process.hrtime.bigint()}.json`);
  const r = spawnSync(process.execPath, [CLI, 'check', '-n', `${runs}..${runs}`, '--update-baseline', '--baseline', file, '--out', path.join(root, 'out'), '-q', '--', ...command],
    { cwd: path.join(root, name), encoding: 'utf8', maxBuffer: 1e9 });
  if (r.status !== 0) throw new Error(`check ${name}: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return judgedRuns(baselineRuns(JSON.parse(fs.readFileSync(file, 'utf8')))).now;
}

/** One `check --baseline-cmd` (default runs) of `name` against `against`, run from name's folder: its verdict and interval. */
function alternatedCheck(root, name, against, command) {
  // The same command with its entry in the other app's folder, quoted as a shell reads it.
  const baselineCmd = shellLine([command[0], path.join('..', against, command[1]), ...command.slice(2)]);
  const r = spawnSync(process.execPath, [CLI, 'check', '--json', '--baseline-cmd', baselineCmd, '--out', path.join(root, 'out'), '--', ...command],
    { cwd: path.join(root, name), encoding: 'utf8', maxBuffer: 1e9 });
  let found;
  try { found = JSON.parse(r.stdout).checks.find((c) => c.name === 'baseline'); } catch { /* reported below */ }
  if (!found) throw new Error(`check ${name} --baseline-cmd: exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const low = found.low == null ? '' : ` [${found.low.toFixed(0)} … ${found.high.toFixed(0)}]`;
  return { verdict: found.verdict, text: `${found.verdict} ${found.actual >= 0 ? '+' : ''}${found.actual.toFixed(0)}${low}` };
}

/** The shift's interval of `after` against `before` with the control read at `tracking` (null: measured, as check does). */
function judged(before, after, tracking) {
  const model = againstControl(before, after, { tracking });
  return { ...compareSamples(model.before, model.after), tracking: model.control.tracking };
}

/** check's verdict for that interval at the default tolerance (10% of the baseline, at least 10 ms). */
function verdict(cmp, baseline) {
  const allowed = Math.max(10, median(baseline.samples) * 0.1);
  if (cmp.low == null) return 'too few';
  if (cmp.low > allowed) return 'FAIL';
  if (cmp.high > allowed || (cmp.high >= 0 && (cmp.high - cmp.low) / 2 > allowed)) return 'inconclusive';
  return cmp.high < 0 ? '"faster"' : 'pass';
}

const shown = (cmp, baseline) => `${verdict(cmp, baseline)} ${cmp.shift >= 0 ? '+' : ''}${cmp.shift.toFixed(0)} ±${((cmp.high - cmp.low) / 2).toFixed(0)}`;

async function main() {
  const { values } = parseArgs({ options: { sets: { type: 'string', default: '2' }, runs: { type: 'string', default: '16' }, now: { type: 'string', default: '10' }, loops: { type: 'string', default: '0,2,8' }, alternated: { type: 'string', default: '3' } } });
  const CONDITIONS = values.loops.split(',').map((n) => condition(parseCount(n, '--loops', 0)));
  const sets = parseCount(values.sets, '--sets', 0);
  const alternated = parseCount(values.alternated, '--alternated', 0);
  const runs = parseCount(values.runs, '--runs', 6);
  const now = parseCount(values.now, '--now', 6);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-control-tracking-'));
  const started = Date.now();
  const recorded = [];
  const alternatedRows = [];
  try {
    const apps = writeApps(root);
    for (const { name: conditionName, loops } of CONDITIONS) {
      const busy = loops ? await startBusyLoops(loops) : null;
      try {
        const load = os.loadavg()[0].toFixed(1);
        for (let k = 0; k < sets; k++) {
          for (const app of apps) {
            for (const name of [app.name, app.grown]) recorded.push({ app: app.name, name, condition: conditionName, load, runs: recordSet(root, name, app.command, runs) });
          }
        }
        for (const app of apps) {
          for (const name of alternated ? [app.name, app.grown] : []) {
            const checks = Array.from({ length: alternated }, () => alternatedCheck(root, name, app.name, app.command));
            const count = (v) => checks.filter((c) => c.verdict === v).length;
            alternatedRows.push(`| ${name === app.grown ? `${app.name} + 50 ms` : app.name} | ${conditionName} (load ${load} → ${os.loadavg()[0].toFixed(1)}) | ${count('fail')} / ${count('pass')} / ${count('inconclusive')} | ${checks.map((c) => c.text).join('; ')} |`);
          }
        }
      } finally {
        if (busy) await busy.stop();
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const lines = [];
  if (recorded.length) lines.push(...savedBaselineTable(recorded, CONDITIONS, runs, now));
  if (alternatedRows.length) {
    lines.push('', '## check --baseline-cmd: the old revision run alternately', '', `Each \`check --json --baseline-cmd\` at its default runs (6, going on up to 18 while undecided), default tolerance; the change in ms less the wait for a CPU, with check's interval.`, '',
      '| app | condition | fail / pass / inconclusive | each check |', '|---|---|---|---|', ...alternatedRows);
  }
  const m = describeMachine();
  lines.push('', `${m.cpu}, ${m.cores} cores, Node ${m.node}; ${((Date.now() - started) / 60000).toFixed(1)} min in all.`);
  process.stdout.write(lines.join('\n') + '\n');
}

/** The first part's table: every recorded set as a baseline against every other set's first runs. */
function savedBaselineTable(recorded, CONDITIONS, runs, now) {
  const lines = ['## check against a baseline through the control app, judged three ways', '', `Sets of ${runs} runs (\`check --update-baseline\`), each judged as a baseline against every other set's first ${now} runs at 95%, default tolerance.`, '',
    '| app | baseline → now | pairs | excess over the control (tracking 1) | as measured (tracking 0) | less the share it follows (check) | tracking measured |', '|---|---|---:|---|---|---|---|'];
  const firstRuns = (s) => ({ samples: s.runs.samples.slice(0, now), control: s.runs.control.slice(0, now) });
  for (const app of [...new Set(recorded.map((s) => s.app))]) {
    for (const grown of [false, true]) {
      for (const from of CONDITIONS) {
        for (const to of CONDITIONS) {
          const bases = recorded.filter((s) => s.name === app && s.condition === from.name);
          const nows = recorded.filter((s) => s.app === app && (s.name === app) !== grown && s.condition === to.name);
          const cells = [[], [], []];
          const tracked = [];
          for (const b of bases) {
            for (const n of nows) {
              if (b === n) continue;
              const after = firstRuns(n);
              [1, 0, null].forEach((tracking, i) => {
                const cmp = judged(b.runs, after, tracking);
                cells[i].push(shown(cmp, b.runs));
                if (tracking == null) tracked.push(cmp.tracking);
              });
            }
          }
          if (!cells[0].length) continue;
          lines.push(`| ${grown ? `${app} + 50 ms` : app} | ${from.name} (load ${bases[0].load}) → ${to.name} (load ${nows[0].load}) | ${cells[0].length} | ${cells.map((c) => c.join('; ')).join(' | ')} | ${Math.min(...tracked).toFixed(2)}–${Math.max(...tracked).toFixed(2)} |`);
        }
      }
    }
  }
  return lines;
}

main().catch((err) => {
  process.stderr.write(`control-tracking: ${err.stack || err.message}\n`);
  process.exit(1);
});
