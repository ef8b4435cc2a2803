// A TypeScript program using coldstart's API as an app would: compiled with `tsc --noEmit`.
import { capture, profile, check, pack, bench, writeArchive, summarize, type CaptureOptions, type StartupReport } from 'coldstart';

const options: CaptureOptions = { command: ['node', 'server.js'], until: { mode: 'duration', ms: 2000 }, esm: 'auto' };

async function main(): Promise<number> {
  const result = await capture({ ...options, profile: false });
  const slowest = result.modules.sort((a, b) => b.selfMs - a.selfMs)[0];
  const { report, profile: cpu } = await profile(options);
  const ready: number = report.readyAt;
  const byPackage: StartupReport['packages'] = report.packages;
  const after = (await profile({ ...options, until: { mode: 'listen' }, after: { ms: 5000, requests: [{ method: 'GET', path: '/' }] } })).report.afterReady;
  const outsideMs: number = after && after.outsideRequestsCpuMs !== null ? after.outsideRequestsCpuMs : 0;
  const written = writeArchive({ root: result.root, files: result.files.map((f) => f.path), out: 'startup.tar' });
  const packed = await pack({ ...options, out: 'startup.tar', codeCache: 'run' });
  const timed = await bench({ commands: [options.command, ['node', 'dist/index.js']], runs: 10, until: 'listen' });
  const medians = timed.series.map((s) => s.stats.inside.median ?? 0);
  const stats = summarize([ready, result.readyAt]);
  const gate = await check({ ...options, runs: 6, budgetMs: 800, maxModules: 1500, baseline: '.coldstart/baseline.json' });
  const failed = gate.checks.filter((c) => c.verdict === 'fail').map((c) => c.message);
  if (!gate.ok) return failed.length + (gate.lessCpuWait ? 1 : 0);
  return (stats.median ?? 0) + written.archiveBytes + packed.files + medians.length + byPackage.length + (cpu ? cpu.samples.length : 0) + (slowest ? slowest.inclusiveMs : 0) + outsideMs;
}

void main();
