'use strict';
// The pages coldstart opens, in a real headless Chromium (Debian's `chromium` driven by
// playwright-core): report.html from disk and speedscope served by `coldstart view`. Screenshots
// are kept under <tmpdir>/coldstart-screenshots/ for a person to look at.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { copyFixture, runCli, spawnCli, waitFor, rm } = require('./helpers/app.js');
const { renderReportHtml } = require('../lib/report/html.js');

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run'];
const SCREENSHOTS = path.join(os.tmpdir(), 'coldstart-screenshots');
const HEADLESS = { DISPLAY: '', WAYLAND_DISPLAY: '', BROWSER: '' };

const { FAST, unlessFast } = require('./helpers/suite.js');

let playwright = null;
try {
  playwright = require('playwright-core');
} catch { /* said below */ }

const missing = !CHROMIUM ? 'chromium is not installed (apt-get install -y chromium)'
  : !playwright ? 'playwright-core is not installed (npm ci)' : null;

/** Skips loudly on a developer machine without a browser; in CI a missing browser is a failure. */
function requireBrowser(t) {
  if (!unlessFast(t, 'a browser')) return false;
  if (!missing) return true;
  if (process.env.CI) assert.fail(`browser test cannot run in CI: ${missing}`);
  process.stderr.write(`\n*** SKIPPED: ${t.name}: ${missing} ***\n\n`);
  t.skip(`SKIPPED: ${missing}`);
  return false;
}

let browser = null;
let app = null;
test.before(async () => {
  if (FAST) return;
  app = copyFixture('express-app');
  const r = await runCli(['profile', '--quiet', '--', 'node', 'server.js'], { cwd: app });
  assert.strictEqual(r.code, 0, r.stderr);
  if (!missing) browser = await playwright.chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
});
test.after(async () => {
  if (browser) await browser.close();
  if (app) rm(app);
});

/** A page that records what would be a problem: errors, failed loads, requests off `allowed`. */
async function watchedPage(allowed) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
  page.on('request', (r) => { if (!allowed(r.url())) problems.push(`request off limits: ${r.url()}`); });
  return { page, problems };
}

test('report.html in Chromium: no errors, no network, the slowest package first in the tree', async (t) => {
  if (!requireBrowser(t)) return;
  const report = JSON.parse(fs.readFileSync(path.join(app, '.coldstart', 'report.json'), 'utf8'));
  const opened = await runCli(['view', '--report', '--json'], { cwd: app, env: HEADLESS });
  assert.strictEqual(opened.code, 0, opened.stderr);
  const { url } = JSON.parse(opened.stdout);

  const { page, problems } = await watchedPage((u) => u.startsWith('file:') || u.startsWith('data:'));
  try {
    await page.goto(url);
    await page.waitForSelector('#tree .node');
    assert.strictEqual(await page.textContent('#command'), 'node server.js');
    assert.strictEqual(await page.textContent('#node-version'), report.node);

    // The slowest package: the most wall time to load, the app's own code aside (express here).
    const slowest = report.packages.filter((p) => p.name !== '(app)').sort((a, b) => b.loadMs - a.loadMs)[0].name;
    const nodes = await page.$$eval('#tree .node', (list) => list.map((n) => ({
      file: n.dataset.file, pkg: n.dataset.package, depth: Number(n.dataset.depth), left: n.getBoundingClientRect().left,
    })));
    assert.strictEqual(nodes[0].file, 'server.js', 'the entry is the root of the tree');
    const first = nodes.find((n) => n.pkg !== '(app)');
    assert.strictEqual(first.pkg, slowest, 'the first package in the tree is the slowest');
    const leftmost = Math.min(...nodes.filter((n) => n.depth === first.depth).map((n) => n.left));
    assert.strictEqual(first.left, leftmost, 'and it is drawn first, on the left');

    assert.strictEqual(await page.locator('#timeline .bar:not(.wait)').count(), report.modules.length, 'one timeline bar per module');
    assert.strictEqual(await page.textContent('#packages-table tbody tr:first-child td:first-child'), report.packages[0].name);

    // Sort packages by module count.
    await page.click('#packages-table th:nth-child(2)');
    const mostModules = Math.max(...report.packages.map((p) => p.modules));
    assert.strictEqual(Number(await page.textContent('#packages-table tbody tr:first-child td:nth-child(2)')), mostModules);
    assert.strictEqual(await page.getAttribute('#packages-table th:nth-child(2)', 'aria-sort'), 'descending');

    // Filter modules.
    await page.fill('#module-filter', slowest);
    const shown = await page.$$eval('#modules-table tbody tr', (rows) => rows.filter((r) => !r.hidden).map((r) => r.cells[1].dataset.v));
    assert.ok(shown.length > 0 && shown.every((p) => p === slowest), shown.join(','));
    await page.fill('#module-filter', '');

    // Click the slowest package's box: it is selected, figures shown, tree zoomed to it.
    const box = page.locator(`#tree .node[data-file="${first.file}"]`);
    await box.click();
    assert.match(await page.textContent('#selection'), new RegExp(`${first.file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[\\s\\S]*${slowest} · cjs · self [\\d.]+ ms · inclusive [\\d.]+ ms`));
    assert.strictEqual(await page.getAttribute('#tree .node[data-depth="0"]', 'data-file'), first.file, 'zoomed in');
    await page.keyboard.press('Escape');
    assert.strictEqual(await page.getAttribute('#tree .node[data-depth="0"]', 'data-file'), 'server.js', 'Esc zooms out');

    await page.locator(`#tree .node[data-file="${first.file}"]`).hover();
    assert.ok(await page.isVisible('#tip'), 'hover shows the figures');
    assert.match(await page.textContent('#tip'), /inclusive [\d.]+ ms · self [\d.]+ ms/);

    const shot = path.join(SCREENSHOTS, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    t.diagnostic(`report.html screenshot: ${shot}`);
    assert.deepStrictEqual(problems, []);
  } finally {
    await page.close();
  }
});

// A monorepo path with no space to break at: the kind that widened the old four-column table.
const DEEP = `packages/${'a-directory-name-with-no-spaces-in-it/'.repeat(7)}src/startup-entry-point-with-a-long-name.js`;

/** Findings with every optional field, as long as real ones get. */
function longAdvice() {
  return [
    {
      kind: 'lazy-load', subject: `@example-scope/${'reporting-'.repeat(9)}client`, file: DEEP, line: 12, column: 7,
      request: `@example-scope/${'reporting-'.repeat(9)}client`, form: 'require', estimatedMs: 31.4,
      evidence: '14 modules loaded before ready (31.4 ms with what they load); none of their functions ran before ready',
      fix: `move require('@example-scope/${'reporting-'.repeat(9)}client') into the function that uses it`,
      samples: 27, runs: { seen: 3, of: 3 }, interval: [24.9, 38.2],
      sites: [1, 2, 3].map((n) => ({ file: DEEP.replace('entry-point', `entry-point-${n}`), line: 10 * n, column: 5, request: `@example-scope/${'reporting-'.repeat(9)}client` })),
      command: `coldstart profile --verify-advice --runs 10 -- node ${DEEP} --config=${'/srv/configuration/'.repeat(6)}app.json`,
    },
    {
      kind: 'sync-work', subject: 'fs.readFileSync', file: DEEP, line: 40, column: 18, estimatedMs: 8.2,
      evidence: `8.2 ms blocked in fs.readFileSync called from ${DEEP} before ready (CPU profile samples)`,
      fix: 'read the file asynchronously, or once at build time', samples: 7, runs: { seen: 1, of: 1 },
      chain: ['Module._load', `loadConfiguration (${DEEP}:40:18)`, `readEverySchemaFileInTheConfigurationDirectoryRecursively (${DEEP}:88:3)`, 'fs.readFileSync'],
    },
  ];
}

test('report.html leads with the advice, which fits its card at 1000 and 1400 px; boot and a busy machine are explained', async (t) => {
  if (!requireBrowser(t)) return;
  // busy.js uses 50 ms of CPU at its top level however busy the machine is: a finding every run has.
  const dir = copyFixture('busy-machine');
  const { page, problems } = await watchedPage((u) => u.startsWith('file:') || u.startsWith('data:'));
  try {
    const r = await runCli(['profile', '--coverage', '--quiet', '--', 'node', 'server.js'], { cwd: dir });
    assert.strictEqual(r.code, 0, r.stderr);
    const report = JSON.parse(fs.readFileSync(path.join(dir, '.coldstart', 'report.json'), 'utf8'));
    assert.ok(report.advice.some((a) => a.kind === 'sync-work' && a.file === 'busy.js'),
      `the real finding: busy.js's top-level work; found ${JSON.stringify(report.advice.map((a) => [a.kind, a.file, a.line, a.estimatedMs, a.samples]))}, machine ${JSON.stringify(report.machine)}`);
    report.advice.push(...longAdvice());
    report.machine = { offCpuMs: 48, offCpuShare: 0.31, loadAverage: [7.92, 5.1, 3.3], cpus: 4, floorMs: 41.7, busy: true };
    const file = path.join(dir, '.coldstart', 'report-long-advice.html');
    fs.writeFileSync(file, renderReportHtml(report));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('#tree .node');

    assert.ok(await page.$eval('#advice', (advice) => Boolean(advice.compareDocumentPosition(document.querySelector('#split')) & Node.DOCUMENT_POSITION_FOLLOWING)),
      'the advice comes before the split');
    assert.strictEqual(await page.locator('#advice .advice-item').count(), report.advice.length);

    for (const width of [1000, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      const fit = await page.evaluate(() => {
        const card = document.querySelector('#advice');
        return { page: document.documentElement.scrollWidth, inner: window.innerWidth, scroll: card.scrollWidth, client: card.clientWidth };
      });
      assert.ok(fit.page <= fit.inner, `${width} px: the page is ${fit.page} px wide in a ${fit.inner} px window`);
      assert.ok(fit.scroll <= fit.client, `${width} px: the advice card's content is ${fit.scroll} px wide in ${fit.client} px`);
      const shot = path.join(SCREENSHOTS, `report-advice-${width}.png`);
      await page.screenshot({ path: shot });
      t.diagnostic(`report.html at ${width} px: ${shot}`);
    }

    // At 1400x900 the answer is on the first screen, without scrolling.
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.evaluate(() => window.scrollTo(0, 0));
    const card = await page.locator('#advice').boundingBox();
    const first = await page.locator('#advice .advice-item').first().boundingBox();
    assert.ok(card.y >= 0 && card.y < 900, `the advice card starts at ${card.y}`);
    assert.ok(first.y + first.height <= 900, `the first advice ends at ${first.y + first.height}`);
    assert.match(await page.textContent('#advice .advice-item:first-child'), /top-level code blocks startup[\s\S]*busy\.js:\d+:\d+/);

    // Each line's evidence, where the report has it.
    const long = page.locator('#advice .advice-item', { hasText: 'reporting-' }).first();
    const text = await long.textContent();
    assert.match(text, /27 CPU samples/);
    assert.match(text, /in 3 of 3 runs/);
    assert.match(text, /estimate 31\.4 ms \[24\.9 ms … 38\.2 ms\]/);
    assert.match(text, /change all 3 places/);
    assert.strictEqual(await long.locator('.sites li').count(), 3);
    assert.match(await long.locator('code.command').textContent(), /^coldstart profile --verify-advice/);
    const sync = page.locator('#advice .advice-item', { hasText: 'fs.readFileSync blocks startup' });
    assert.match(await sync.textContent(), /single run/);
    assert.strictEqual(await sync.locator('details.chain li').count(), 4);
    assert.strictEqual(await sync.locator('details.chain li').first().isVisible(), false, 'the chain is folded');

    // What the first segment of the split is, and what is normal for it here.
    assert.match(await page.getAttribute('#split .seg[data-key="boot"]', 'title'), /before profiling/);
    const boot = await page.textContent('#split .legend [data-key="boot"]');
    assert.match(boot, /Node start, before profiling/);
    assert.match(boot, /not the app's code/);
    assert.match(boot, /a bare Node that listens took 41\.7 ms here in the same run/);
    assert.match(await page.textContent('#machine-busy'), /^The machine was busy: for 31% of the profiled time the app was not running, waiting for a CPU \(load average 7\.92 on 4 CPUs\)/);
    assert.deepStrictEqual(problems, []);
  } finally {
    await page.close();
    rm(dir);
  }
});

test('speedscope served by coldstart view loads the profile offline in Chromium', async (t) => {
  if (!requireBrowser(t)) return;
  const { child, done, output } = spawnCli(['view'], { cwd: app, env: HEADLESS });
  let page = null;
  try {
    const url = await waitFor(() => (/http:\/\/127\.0\.0\.1:\d+\/\S+/.exec(output().stdout) || [])[0], 10000, 'the URL');
    const origin = new URL(url).origin;
    const watched = await watchedPage((u) => u.startsWith(`${origin}/`) || u.startsWith('data:') || u.startsWith('blob:'));
    page = watched.page;
    await page.goto(url);
    await page.waitForFunction(() => document.title === 'startup.cpuprofile - speedscope', null, { timeout: 15000 });
    await page.waitForSelector('canvas');
    assert.match(await page.textContent('body'), /Time Order/);
    const shot = path.join(SCREENSHOTS, 'speedscope.png');
    await page.screenshot({ path: shot });
    t.diagnostic(`speedscope screenshot: ${shot}`);
    assert.deepStrictEqual(watched.problems, []);
    child.kill('SIGINT');
    const result = await done;
    assert.strictEqual(result.code, 0, result.stderr);
  } finally {
    if (page) await page.close();
    child.kill('SIGKILL');
  }
});
