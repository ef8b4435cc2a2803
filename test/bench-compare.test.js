'use strict';
// bench --compare: the runs of all series alternate (round-robin), and each series is compared
// with the first: two commands doing the same work are "no difference beyond noise", one that
// spins 50 ms in a module before listening is "slower". No wall-clock constant is asserted: the
// verdicts come from the runs themselves, alternated, so they hold on a loaded machine.
const { test, before, after } = require('node:test');
const { fastSkips } = require('./helpers/suite.js');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runCli, REPO } = require('./helpers/app.js');
const { roundsOf } = require('./helpers/rounds.js');
const { renderText } = require('../lib/report/bench-summary.js');

const SLOW = path.join(REPO, 'fixtures', 'slow-require', 'slow.js');
const RUNS = 12;

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coldstart-bench-compare-'));
  // Each start appends its name to runs.log before anything else: the order the runs really had.
  fs.writeFileSync(path.join(dir, 'app.js'), [
    "'use strict';",
    "require('fs').appendFileSync(require('path').join(__dirname, 'runs.log'), process.argv[2] + '\\n');",
    `if (process.argv[2] === 'slow') require(${JSON.stringify(SLOW)});`,
    "require('http').createServer((req, res) => res.end()).listen(0);",
    '',
  ].join('\n'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function bench(names, runs) {
  fs.rmSync(path.join(dir, 'runs.log'), { force: true });
  const r = await runCli(['bench', '-n', String(runs), '--json', '--compare', ...names.map((n) => `node app.js ${n}`)], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const log = fs.readFileSync(path.join(dir, 'runs.log'), 'utf8').trim().split('\n');
  return { result: JSON.parse(r.stdout), log };
}

test('bench --compare runs each series once a round, in an order drawn at random, and compares each with the first', { timeout: 180_000, ...fastSkips('many timed runs of an app') }, async () => {
  const names = ['a', 'b', 'slow'];
  // A 95% interval leaves out the true shift (zero for a and b) once in twenty by design, and a
  // burst of load from elsewhere can widen one past 50 ms: a second, independent try makes a
  // wrong verdict a rare event instead of a flaky test. A systematic error fails both tries.
  let verdicts;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const { result, log } = await bench(names, RUNS);
    // Each round runs every series once (the warm-up round first); the runner reports the order they ran in.
    const rounds = roundsOf(log, names.length);
    assert.equal(rounds.length, 1 + RUNS, log.join(' '));
    for (const round of rounds) assert.deepEqual([...round].sort(), [...names].sort(), `each round runs every series once: ${log.join(' ')}`);
    assert.deepEqual(result.order.map((i) => names[i]), log.slice(names.length), 'the runner reports the order they ran in');
    assert.deepEqual(result.comparisons.map((c) => [c.index, c.baselineIndex, c.metric]), [[1, 0, 'inside'], [2, 0, 'inside']]);
    for (const c of result.comparisons) {
      assert.deepEqual([c.before.n, c.after.n], [RUNS, RUNS]);
      assert.equal(c.verdict, c.low > 0 ? 'slower' : c.high < 0 ? 'faster' : 'noise', 'the verdict follows from the interval');
    }
    verdicts = result.comparisons.map((c) => c.verdict);
    if (verdicts[0] === 'noise' && verdicts[1] === 'slower') break;
  }
  assert.deepEqual(verdicts, ['noise', 'slower'], 'a against b: noise; the 50 ms module: slower');
});

test('the terminal report: medians with intervals, baseline, verdicts in words', () => {
  const series = (label, inside) => ({ label, where: 'local', command: ['node'], metric: 'inside', inside, outside: inside.map((x) => x + 5) });
  const { summarize } = require('../lib/stats.js');
  const { compareSeries } = require('../lib/bench/comparisons.js');
  const base = [100, 102, 98, 101, 99, 103, 97];
  const list = [series('node a.js', base), series('node a.js', base.map((x) => x + 1)), series('node slow.js', base.map((x) => x + 50)), series('node b.js', base.slice(0, 2))]
    .map((s) => ({ ...s, stats: { inside: summarize(s.inside), outside: summarize(s.outside) } }));
  const text = renderText({
    runs: 7, warmup: 1, until: 'listen', partial: false, notes: [], series: list, comparisons: compareSeries(list),
    machine: { cpu: 'Test CPU', cores: 2, memoryGb: 4, os: 'Linux', node: 'v20' },
  }, { color: false });
  const block = text.slice(text.indexOf('Compared:')).split('\n');
  assert.match(block[0], /^Compared: median \[\d+% interval\] of the inside time; the runs of all series alternated$/);
  assert.match(block[1], /^node a\.js\s+100 ms \[97\.0–103\]\s+baseline$/);
  assert.match(block[2], /^node a\.js\s+101 ms \[98\.0–104\]\s+no difference beyond noise \(\+1\.00 ms, 9\d% interval −\S+ … \+\S+ ms\)$/);
  assert.match(block[3], /^node slow\.js\s+150 ms \[147–153\]\s+1\.50x slower \(\+50\.0 ms, 9\d% interval \+\S+ … \+\S+ ms; 1\.\d\d–1\.\d\dx\)$/);
  assert.match(block[4], /^node b\.js\s+.*too few runs to tell a difference from noise \(7 and 2 runs\): use -n 7 or more$/);
});

test('containers compare within one runtime: each series against the first of its runtime', () => {
  const { compareSeries } = require('../lib/bench/comparisons.js');
  const docker = (label, runtime, outside) => ({ label, where: 'docker', runtime, metric: 'outside', inside: [], outside });
  const base = [500, 510, 490, 505, 495];
  const list = [
    docker('a [runc]', 'runc', base), docker('a [runsc]', 'runsc', base.map((x) => x * 3)),
    docker('b [runc]', 'runc', base.map((x) => x + 1)), docker('b [runsc]', 'runsc', base.map((x) => x * 3 - 400)),
  ];
  const c = compareSeries(list);
  assert.deepEqual(c.map((x) => [x.index, x.baselineIndex, x.metric]), [[2, 0, 'outside'], [3, 1, 'outside']]);
  assert.deepEqual(c.map((x) => x.verdict), ['noise', 'faster']);
  assert.deepEqual(compareSeries([list[0]]), [], 'a lone series has nothing to compare with');
});
