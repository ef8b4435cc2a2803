'use strict';
// bench/docker-startup.js for real, at its smallest: a 50-module fixture, one sample of each
// variant under runc and runsc, no warm-up. Without a Docker engine the Docker test skips with a
// loud line, except in CI where that is a failure (test/helpers/docker.js).
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const { runBenchmark, renderMarkdown, VARIANTS, APPS, variantsFor } = require('../bench/docker-startup.js');
const { UsageError } = require('../lib/errors.js');
const { needDocker, cleanup } = require('./helpers/docker.js');
const { onBenchmarkNode } = require('./helpers/suite.js');

after(cleanup);

test('docker-startup: every variant reaches listen under runc and runsc, phases add up', { timeout: 300_000 }, async (t) => {
  if (!onBenchmarkNode(t)) return;
  if (!(await needDocker(t))) return;
  const report = await runBenchmark({ modules: 50, runs: 1, warmup: 0, timeoutMs: 60_000 });

  assert.equal(report.image.fixture.modules, 50);
  // 50 packages (package.json + index.js each), the root package.json and index.js.
  assert.ok(report.image.archive.files >= 102, `archive: ${JSON.stringify(report.image.archive)}`);
  assert.deepEqual(report.runtimes, ['runc', 'runsc']);
  // The base image holds the Node under test: from 22.1 on it builds Node's compile caches.
  const caches = report.image.compileCaches;
  if (typeof require('node:module').enableCompileCache === 'function') {
    for (const dir of ['/compile-cache', '/compile-cache-portable', '/compile-cache-bundle']) assert.ok(caches[dir] > 0, `${dir}: ${JSON.stringify(caches)}`);
  }
  const ran = VARIANTS.filter((v) => !v.needs || caches[v.needs] > 0);
  assert.equal(report.results.length, ran.length * 2);
  for (const r of report.results) {
    assert.equal(r.total.n, 1, `${r.variant} ${r.runtime}`);
    assert.ok(r.total.median > 0, `${r.variant} ${r.runtime}: ${r.total.median} ms`);
    for (const [phase, stats] of Object.entries(r.phases)) {
      assert.ok(stats.median >= 0 && stats.median <= r.total.median,
        `${r.variant} ${r.runtime}: ${phase} ${stats.median} ms within ${r.total.median} ms`);
    }
  }
  for (const r of report.results.filter((x) => x.variant.startsWith('seed-') || x.variant.startsWith('start-'))) {
    assert.deepEqual(Object.keys(r.phases).sort(), ['afterFilesReady', 'archiveWork', 'toFilesReady'], `${r.variant} phases`);
  }
  // coldstart start wrote every file of the archive but its own index, in place and into the
  // tmpfs; in memory it serves them.
  const { files } = report.image.archive;
  for (const r of report.results.filter((x) => x.variant.startsWith('start-'))) {
    const said = /^(extracted|serving) (\d+) files/.exec(r.startReport || '');
    assert.ok(said, `${r.variant} ${r.runtime} printed what it did: ${r.startReport}`);
    assert.equal(said[1], r.variant.startsWith('start-memory') ? 'serving' : 'extracted', r.startReport);
    assert.equal(Number(said[2]), files - 1, `${r.variant} ${r.runtime}: ${r.startReport}`);
  }

  // The ncc bundle holds all 50 packages: nothing external, no node_modules beside it.
  assert.ok(VARIANTS.some((v) => v.name === 'bundle'));
  const { bundle } = report.image;
  assert.deepEqual(bundle.externals, [], JSON.stringify(bundle));
  assert.equal(bundle.packages, 0);
  assert.ok(bundle.entryBytes > 10_000 && bundle.files <= 4, JSON.stringify(bundle));
  for (const r of report.results.filter((x) => x.variant === 'bundle')) assert.deepEqual(r.phases, {}, r.runtime);

  const table = renderMarkdown(report);
  assert.match(table, /\| variant \| runc median \| runc stddev \| runsc median \| runsc stddev \|/);
  for (const variant of ran) assert.ok(table.includes(`| ${variant.label} |`), variant.name);
  assert.match(table, /Machine: .+ cores.+node v\d+/);
  assert.match(table, /; bundle: \d+ files, .+ nothing kept external\)(; Node compile cache: [^;]+)?; startup snapshot: made, holding \d+ of \d+ startup modules\./);
  // The snapshot of the 50 packages was made in the image, and both of its variants listened.
  assert.deepEqual(report.results.filter((r) => r.variant.startsWith('snapshot')).map((r) => r.runtime).sort(), ['runc', 'runc', 'runsc', 'runsc']);
  for (const line of table.split('\n').filter((l) => l.startsWith('|'))) t.diagnostic(line);
});

test('docker-startup: unknown apps and variants are usage errors before any Docker work', async () => {
  await assert.rejects(runBenchmark({ app: 'no-such-app' }),
    (err) => err instanceof UsageError && /no-such-app/.test(err.message));
  await assert.rejects(runBenchmark({ app: 'otel-express', variants: ['bundle', 'no-such-variant'] }),
    (err) => err instanceof UsageError && /no-such-variant/.test(err.message));
  await assert.rejects(runBenchmark({ variants: ['plain', 'no-such-variant'] }),
    (err) => err instanceof UsageError && /no-such-variant/.test(err.message));
});

test('docker-startup: a runtime the engine does not have is a usage error naming the ones it has', async (t) => {
  if (!(await needDocker(t))) return;
  await assert.rejects(runBenchmark({ runtimes: ['runc', 'kata'] }),
    (err) => err instanceof UsageError && /unknown --runtimes "kata": this Docker engine has .*runc/.test(err.message));
});

test('docker-startup: otel-express runs its own command in every variant, the bundle from /bundle', () => {
  const app = APPS['otel-express'];
  const variants = variantsFor(app);
  const command = ['node', '--require', './tracing.js', 'server.js'];
  assert.deepEqual(app.command, command);
  assert.ok(app.ready.test('otel-express listening on 8080\n'));
  for (const name of app.variants) assert.ok(variants.some((v) => v.name === name), name);
  for (const v of variants.filter((x) => !x.name.startsWith('floor-'))) {
    const args = v.args.join(' ');
    // The snapshot's node takes the blob before the app's own flags.
    const expected = v.name.startsWith('snapshot') ? `node --snapshot-blob /snapshot/startup.blob ${command.slice(1).join(' ')}` : command.join(' ');
    assert.ok(args.endsWith(expected), `${v.name}: ${args}`);
    assert.doesNotMatch(args, /index\.js/, v.name);
  }
  const bundle = variants.find((v) => v.name === 'bundle');
  assert.deepEqual(bundle.args, command);
  assert.deepEqual(bundle.dockerArgs, ['--workdir', '/bundle']);
  // The generated fixture keeps its labels.
  assert.equal(VARIANTS.find((v) => v.name === 'plain').label, 'plain `node index.js`');
});

test('docker-startup: heavy installs its three packages beside its server.js, which prints its ready line', () => {
  const app = APPS.heavy;
  assert.deepEqual(app.command, ['node', 'server.js']);
  assert.deepEqual(app.install, ['express', 'googleapis', 'firebase-admin']);
  assert.equal(app.env.PORT, '8080');
  for (const required of ["require('express')", "const { google } = require('googleapis')", "require('firebase-admin')"]) {
    assert.ok(app.source.includes(required), required);
  }
  // No credentials, so no network: a project id only.
  assert.match(app.source, /initializeApp\(\{ projectId: '[^']+' \}\)/);
  assert.ok(app.ready.test('heavy listening on 8080\n'));
  const variants = variantsFor(app);
  for (const name of app.variants) assert.ok(variants.some((v) => v.name === name), name);
  assert.deepEqual(variants.find((v) => v.name === 'bundle').args, ['node', 'server.js']);
});

test('docker-startup: the markdown table shows one row per variant and indented phase rows', () => {
  const stats = (median, stddev) => ({ n: 3, median, stddev });
  const report = {
    machine: { cpu: 'Test CPU', cores: 2, kernel: '6.1', node: 'v20.20.2', docker: '20.10', runsc: 'runsc version test' },
    image: { fixture: { modules: 3, files: 8 }, archive: { files: 8, bytes: 4000, archiveBytes: 10240 } },
    runs: 3, warmup: 1, runtimes: ['runc', 'runsc'],
    results: [
      { variant: 'plain', label: 'plain `node index.js`', runtime: 'runc', total: stats(300.4, 10.6), phases: {}, startReport: null },
      { variant: 'plain', label: 'plain `node index.js`', runtime: 'runsc', total: stats(1500, 40), phases: {}, startReport: null },
      { variant: 'start-into', label: 'start into', runtime: 'runc', total: stats(280, 5),
        phases: { toFilesReady: stats(150, 3), archiveWork: stats(40, 1), afterFilesReady: stats(130, 4) },
        startReport: 'extracted 8 files, 4.0 kB' },
      { variant: 'start-into', label: 'start into', runtime: 'runsc', total: stats(1200, 30),
        phases: { toFilesReady: stats(600, 9), archiveWork: stats(300, 8), afterFilesReady: stats(600, 20) },
        startReport: 'extracted 8 files, 4.0 kB' },
    ],
  };
  const lines = renderMarkdown(report).split('\n').filter((l) => l.startsWith('|'));
  assert.deepEqual(lines, [
    '| variant | runc median | runc stddev | runsc median | runsc stddev |',
    '| --- | ---: | ---: | ---: | ---: |',
    '| plain `node index.js` | 300 | 11 | 1500 | 40 |',
    '| start into | 280 | 5 | 1200 | 30 |',
    '| &nbsp;&nbsp;↳ run → files ready | 150 | 3 | 600 | 9 |',
    '| &nbsp;&nbsp;↳ of which extraction / loading | 40 | 1 | 300 | 8 |',
    '| &nbsp;&nbsp;↳ files ready → listening | 130 | 4 | 600 | 20 |',
  ]);

  // A fixture app instead of the generated one: the footer names it, its command and the bundle.
  const otel = {
    ...report,
    app: 'otel-express',
    image: {
      fixture: null, packages: 86, archive: report.image.archive,
      bundle: { files: 4138, bytes: 19.5e6, entryBytes: 2800, externals: ['express'], packages: 91 },
    },
  };
  assert.match(renderMarkdown(otel), /^App: fixtures\/otel-express \(`node --require \.\/tracing\.js server\.js`, PORT=8080\), 86 packages in node_modules; archive: 8 files, .*; bundle: 4138 files, 19\.5 MB \(entry 2\.8 kB; 91 packages in node_modules, kept external: express\)\.$/m);

  // An app installed from the registry: the footer gives the versions, its node_modules and the modules packed.
  const heavy = {
    ...otel,
    app: 'heavy',
    image: {
      ...otel.image,
      packages: 180,
      installed: { versions: { express: '5.3.0', googleapis: '188.0.0', 'firebase-admin': '14.5.1' }, files: 7311, bytes: 310.7e6 },
      archive: { files: 1275, modules: 1193, bytes: 40.1e6, archiveBytes: 49.7e6 },
    },
  };
  assert.match(renderMarkdown(heavy), /^App: heavy, express@5\.3\.0, googleapis@188\.0\.0, firebase-admin@14\.5\.1 from the npm registry \(`node server\.js`, PORT=8080\), 180 packages in node_modules \(7311 files, 310\.7 MB\); archive: 1275 files \(1193 modules\), 40\.1 MB \(tar 49\.7 MB\); /m);
});
