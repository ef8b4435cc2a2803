// Types of coldstart's programmatic API (lib/index.js), for TypeScript and editors.
// test/types.test.js compiles a consumer against them with `tsc --noEmit`.

/// <reference types="node" />

/** When the app counts as ready. */
export type Until =
  | { mode: 'listen' }
  | { mode: 'exit' }
  | { mode: 'duration'; ms: number }
  /** The first 2xx of a readiness URL on this machine (http:/path, http://:PORT/path), polled every 10 ms from the first listen. */
  | { mode: 'http'; url: string };

/** report.json `memory`: at the ready moment. */
export interface ReportMemory {
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  arrayBuffersBytes: number;
  /** Live sampled allocations by owner; null without the sampling heap profile. */
  sampled: {
    totalBytes: number;
    loaderBytes: number;
    nodeBytes: number;
    coldstartBytes: number;
    unnamedBytes: number;
    packages: Array<{ package: string; bytes: number }>;
  } | null;
}

export interface CaptureOptions {
  /** The app command, e.g. ['node', 'server.js']. */
  command: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Default: the first listen. */
  until?: Until;
  /** Overall limit for listen or exit in ms (default 60 s). */
  timeoutMs?: number;
  /** Run the V8 CPU profiler (default true). */
  profile?: boolean;
  /** Sampling interval in µs (default 1000). */
  interval?: number;
  /** Record which functions ran from start to ready (V8 precise coverage), for the lazy-load advice (default false). */
  coverage?: boolean;
  /** App root (default: the nearest package.json above the entry). */
  root?: string;
  /** Leave the app up after the capture. */
  keepRunning?: boolean;
  /** When to install the ES module timing hooks. */
  esm?: 'auto' | 'always' | 'never';
  /** Where the app's own output goes. */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Abort: stop now and return a partial result. */
  signal?: AbortSignal;
  /** Abort: kill the app now and return nothing. */
  force?: AbortSignal;
  /** Only the ready moment (benchmarks): no inspector, no module data. */
  timingOnly?: boolean;
  /** Keep recording modules and file reads this long (ms) after the ready moment (pack --after). */
  settleMs?: number;
  /**
   * A window after the ready moment (profile --after): the app runs on `ms` under a profile of its
   * own; with `requests`, coldstart sends them to the app's address, `rate` per second (default 2).
   */
  after?: { ms: number; requests?: Array<{ method: string; path: string }>; rate?: number };
}

/** One module load as the app's loader did it, times in ms on the readyAt clock. */
export interface ModuleRecord {
  /** Absolute path. */
  file: string;
  package: string;
  kind: 'cjs' | 'esm' | 'json' | 'addon' | string;
  parent: string | null;
  startMs: number;
  resolveMs: number;
  loadMs: number;
  selfMs: number;
  inclusiveMs: number;
  [key: string]: unknown;
}

/** A file the app needed up to its ready moment, relative to the root. */
export interface StartupFile {
  path: string;
  bytes: number;
  /** How it was read: a module load, the app's own fs call, an addon. */
  via: string;
}

/** V8's CPU profile, as Chrome DevTools and speedscope read it (.cpuprofile). */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number };
    hitCount?: number;
    children?: number[];
    positionTicks?: Array<{ line: number; ticks: number }>;
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface CaptureResult {
  command: string[];
  cwd: string;
  root: string;
  /** The Node that ran coldstart. */
  node: string;
  until: string;
  reason: string;
  /** ms from process start to the ready moment, coldstart's own setup left out. */
  readyAt: number;
  /** ms the app was held while the profiler attached (not in readyAt). */
  attachMs: number;
  partial: boolean;
  pid: number;
  exitCode?: number | null;
  address: unknown;
  mainFile: string | null;
  profile?: CpuProfile;
  modules: ModuleRecord[];
  builtins: string[];
  files: StartupFile[];
  /** Absolute paths the app read outside its root (never packed). */
  outsideRoot: string[];
  resolutions: Array<[string, string, string]>;
  esmResolutions: Array<[string, string, string]>;
  [key: string]: unknown;
}

/** A module as report.json lists it: paths relative to the root, GC and idle apart. */
export interface ReportModule {
  file: string;
  package: string;
  kind: string;
  parent: string | null;
  startMs: number;
  resolveMs: number;
  loadMs: number;
  /** The module's own work: the CPU its load used, collections apart. */
  selfMs: number;
  /** Garbage collection inside its load window; null without a CPU profile. */
  gcMs: number | null;
  idleMs: number | null;
  /** The rest of its own wall time, when the machine kept it off the CPU; null when not measured. */
  offCpuMs: number | null;
  inclusiveMs: number;
}

/** How busy the machine was during the profiled run. */
export interface ReportMachine {
  /** Profiled time the app's thread was not running though it had work, and its share (0..1). */
  offCpuMs: number | null;
  offCpuShare: number | null;
  /** Of that, the time waiting for a CPU (Linux schedstat), and its share; null where it cannot be read. */
  runQueueMs: number | null;
  runQueueShare: number | null;
  /** null where the kernel fakes it (gVisor's reads 0 with no task at all; Windows'). */
  loadAverage: [number, number, number] | null;
  /** Whose load average it is when not the machine the app ran on: 'the host' for profile --docker under gVisor, whose own is 0. */
  loadAverageOf?: string;
  cpus: number;
  /** A bare Node reaching the same ready moment, timed right after the capture; null when not timed. */
  floorMs: number | null;
  /** runQueueShare (else offCpuShare) of 10% or more. */
  busy: boolean;
}

/** An OpenTelemetry instrumentation loaded at startup. */
export interface ReportInstrumentation {
  package: string;
  /** The packages it patches, read from its source; null when they could not be read. */
  instruments: string[] | null;
  /** Whether the app loaded one of them before ready; null when unknown. */
  loaded: boolean | null;
  ownMs: number;
  modules: number;
}

export interface ReportPackage {
  name: string;
  modules: number;
  selfMs: number;
  inclusiveMs: number;
  gcMs: number | null;
  loadMs: number;
  bytes: number;
}

/** The report.json document. */
export interface StartupReport {
  schema: number;
  command: string[];
  cwd: string;
  root: string;
  node: string;
  until: string;
  partial: boolean;
  readyAt: number;
  attachMs: number;
  pid: number;
  exitCode: number | null;
  address: unknown;
  /** How many files the app needed, and their bytes. */
  files: number;
  bytes: number;
  filesByVia: Record<string, number>;
  outsideRoot: string[];
  /** Where the CPU profile's time went (offCpu: time the thread was not running); null without one. */
  categories: ({ totalMs: number } & Record<string, number>) | null;
  machine: ReportMachine | null;
  /** Under coldstart start: how it served the app. */
  served: { mode: 'memory' | 'snapshot' | 'extract'; verify: 'size' | 'none'; codeCacheModules: number; index: boolean } | null;
  instrumentations: ReportInstrumentation[];
  /** profile --runs: each run's time to ready (the reported run first), how busy each was, the findings too few runs found. */
  runs?: { count: number; readyAt: number[]; busyShare: Array<number | null>; unstable: Array<{ kind: string; subject: string; file: string; line: number | null; runs: { seen: number; of: number } }> };
  packages: ReportPackage[];
  modules: ReportModule[];
  builtins: string[];
  /** Memory at the ready moment (process.memoryUsage()) and, from V8's sampling heap profile, the packages that allocated the heap alive then. */
  memory: ReportMemory | null;
  /** What startup waited on (outbound connections, requests, child processes); null when not recorded. */
  network: ReportNetwork | null;
  /** The window after the ready moment (profile --after); null without one. */
  afterReady: AfterReadyReport | null;
  /** Changes that would save startup time; empty without coverage. */
  advice: ReportAdvice[];
  /** With --verify-advice: the proposals verification dropped, and why. */
  adviceDropped?: Array<{ kind: string; subject: string; file: string; line: number | null; estimatedMs: number; reason: string }>;
  artifacts: Record<string, string>;
  [key: string]: unknown;
}

/** What every finding of the advice holds. */
export interface AdviceFinding {
  subject: string;
  /** The file to change (root-relative when inside the root) and its line; null when not known. */
  file: string;
  line: number | null;
  /** The saving this run suggests, in ms (with --runs: the median of the runs that found it). */
  estimatedMs: number;
  /** Where the place was written, through the compiled file's source map. */
  original?: { file: string; line: number; column: number };
  /** In how many of the profiled runs it was found (one run: { seen: 1, of: 1 }). */
  runs?: { seen: number; of: number };
  /** The interval of the estimate over the runs; null below two. */
  interval?: [number, number] | null;
  /** What was measured. */
  evidence: string;
  /** What to change. */
  fix: string;
}

/** One statement to change: where, and the request it loads. */
export interface AdviceSite {
  file: string;
  line: number;
  column: number;
  request: string;
  original?: { file: string; line: number; column: number };
}

/**
 * What profile --verify-advice found for a lazy-load proposal: the saving measured in alternating
 * timed starts (median shift, its interval, runs of each), or why it could not be measured.
 */
export interface AdviceVerification {
  verdict: 'confirmed' | 'noise' | 'too few runs' | 'not verified';
  measuredMs?: number | null;
  low?: number | null;
  high?: number | null;
  runs?: number;
  reason?: string;
}

/** A module the app's code loads before ready and does not use yet (with --coverage). */
export interface LazyLoadAdvice extends AdviceFinding {
  kind: 'lazy-load';
  /** The package, or the app's file (root-relative), to load lazily; file and line: the require/import to change. */
  subject: string;
  /** Its subtree's load time, less what the rest of startup also loads. */
  estimatedMs: number;
  /** The specifier as the parent's code writes it, and how: require() or an ES module import. */
  request: string;
  form: 'require' | 'import';
  column: number;
  /** Every file that loads the module before ready, when there are several: all must change. */
  sites?: AdviceSite[];
  /** The command that measures it (profile --verify-advice), until it is measured. */
  command?: string;
  /** With --after, --request and coverage: the first request that ran its code after ready, or null when none did. */
  usedBy?: string | null;
  /** With --verify-advice, when the saving was measured beyond noise. */
  measuredMs?: number;
  /** With --verify-advice: what the alternating runs found. */
  verified?: AdviceVerification;
}

/** One package loaded at startup from several copies. */
export interface DuplicatePackageAdvice extends AdviceFinding {
  kind: 'duplicate-package';
  /** The package name; file: the copy with the largest own time. */
  subject: string;
  line: null;
  /** The own load time of every copy but that one. */
  estimatedMs: number;
  copies: Array<{ dir: string; version: string | null; modules: number; ms: number; pulledBy: string | null }>;
}

/** Synchronous work before ready (a *Sync call, or a module's own top-level code). */
export interface SyncWorkAdvice extends AdviceFinding {
  kind: 'sync-work';
  /** e.g. 'fs.readFileSync', 'child_process.execSync', 'zlib.*Sync', 'top-level code'. */
  subject: string;
  /** The CPU time it took in this run (CPU profile samples). */
  estimatedMs: number;
  /** The call's line and column (the first, when the function makes several: calls lists them). */
  line: number;
  column: number;
  calls?: number[];
  samples: number;
  /** The call chain, outermost first, ending at the call. */
  chain: string[];
}

/** OpenTelemetry instrumentations whose packages the app did not load before ready. */
export interface ApmInstrumentationsAdvice extends AdviceFinding {
  kind: 'apm-instrumentations';
  line: number;
  column: number;
  sites?: AdviceSite[];
  packages: Array<{ package: string; instruments: string[]; ownMs: number }>;
}

/** What only a start inside a container says (profile --docker). */
export interface ContainerAdvice extends Omit<AdviceFinding, 'file'> {
  kind: 'container-start' | 'container-verify' | 'container-code-cache';
  file: null;
  line: null;
}

/** A package loaded whole (googleapis, aws-sdk v2, lodash) when the app's code uses one to three parts of it. */
export interface HeavyEntryPointAdvice extends AdviceFinding {
  kind: 'heavy-entry-point';
  /** The package. file and line: the first use of a part in the app's code. */
  subject: string;
  /** The parts the app's code uses, e.g. ['drive'], ['S3'], ['debounce']. */
  parts: string[];
  /** The own load time of the package's modules the lighter entry would not load. */
  estimatedMs: number;
  /** Where the lighter entry point is documented. */
  source: string;
}

export type ReportAdvice = LazyLoadAdvice | DuplicatePackageAdvice | SyncWorkAdvice | HeavyEntryPointAdvice | ApmInstrumentationsAdvice | ContainerAdvice;

/** What pack() takes besides the app's capture options (none with `manifest`). */
export interface PackOptions extends Partial<CaptureOptions> {
  /** The archive to write (relative to cwd). */
  out: string;
  /** Pack the paths listed in this file (startup-files.txt) instead of running the app. */
  manifest?: string;
  /** Also store V8 code cache: 'run' records it from a start under coldstart start, 'compile' compiles without running. */
  codeCache?: 'run' | 'compile' | null;
  /** Also write a V8 startup snapshot of the CommonJS startup modules to this file. */
  snapshotBlob?: string;
  /** Start the app once from the archive's files alone (default true). */
  verify?: boolean;
  /** Keep recording this long (ms) after the ready moment. */
  settleMs?: number;
}

/** What pack() resolves to: the summary `coldstart pack --json` prints. */
export interface PackSummary {
  archive: string;
  root: string;
  files: number;
  bytes: number;
  archiveBytes: number;
  codeCache: unknown;
  snapshot: unknown;
  check: { readyAt?: number; ms?: number; [key: string]: unknown } | null;
  readyAt: number | null;
  outsideRoot: unknown[];
  missing: string[];
  warnings: unknown[];
  ms: number;
  [key: string]: unknown;
}

/** What bundle() takes besides the app's capture options. */
export interface BundleOptions extends CaptureOptions {
  /** The bundle directory (relative to cwd). */
  out: string;
  externals?: string[];
  /** Decide externals from what the app does at startup (default true). */
  autoExternal?: boolean;
  /** Start the bundle beside the app and compare (default true). */
  verify?: boolean;
  /** Timed starts of each for the comparison. */
  runs?: number;
  /** Asked of both, which must answer alike (default GET /). */
  requests?: Array<{ method: string; path: string }>;
}

/** What bench() takes. */
export interface BenchOptions {
  /** The commands to time, each as words. */
  commands: string[][];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Cold starts per series (default 20), after one warm-up round. */
  runs?: number;
  /** As the CLI's --until: listen (default), exit, http:/path, line:/REGEX/ (containers). */
  until?: string;
  timeoutMs?: number;
  /** Run every sample in a fresh container under each of these runtimes. */
  containers?: string[] | null;
  /** Image with node to build on (containers). */
  baseImage?: string;
  /** Every run with this share of one CPU and under this memory limit (--cpus, --memory). */
  limits?: { cpus: number | null; memoryBytes: number | null } | null;
}

/** What bench() resolves to: the result `coldstart bench --json` prints. */
export interface BenchResult {
  tool: unknown;
  machine: unknown;
  notes: string[];
  runs: number;
  warmup: number;
  until: unknown;
  partial: boolean;
  order: unknown[];
  series: Array<{
    label: string; where: string; command: string[]; metric: string;
    /** ms per counted run: process start to ready (local runs), spawn or `docker run` to ready. */
    inside: number[]; outside: number[];
    /** ms each local run waited for a CPU before its ready moment, where the kernel counts it. */
    wait: number[];
    stats: { inside: Description; [key: string]: unknown }; [key: string]: unknown;
  }>;
  comparisons: Array<Record<string, unknown>>;
}

export interface WriteArchiveOptions {
  /** Directory the file paths are relative to. */
  root: string;
  /** Root-relative files to store. */
  files: string[];
  /** Archive path to write. */
  out: string;
  /** Generated files appended after the app's files. */
  extraEntries?: Array<{ path: string; data: Buffer }>;
}

export interface WriteArchiveResult {
  /** File and symlink entries written. */
  files: number;
  bytes: number;
  generatedBytes: number;
  archiveBytes: number;
}

export interface Description {
  n: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  median: number | null;
  stddev: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
}

/** Runs an app up to its ready moment. */
export function capture(options: CaptureOptions): Promise<CaptureResult>;

/** What profile() takes besides the app's capture options. */
export interface ProfileOptions extends CaptureOptions {
  /** Captures (default 1); the report is the median one's, its advice what most runs found. */
  runs?: number;
  /** Prove the lazy-load advice in this many alternated runs a variant (the CLI's --verify-advice: 7); needs coverage. */
  verifyRuns?: number;
  /** Write the artifacts here (startup.cpuprofile, report.json, report.html, ...); none without it. */
  outDir?: string;
}

/** `coldstart profile` as a function: the report.json document the CLI writes, the raw profile and the capture result. */
export function profile(options: ProfileOptions): Promise<{ report: StartupReport; profile: CpuProfile | undefined; result: CaptureResult }>;

/** What check() takes besides the app's capture options: the runs, the limits, the baseline. */
export interface CheckOptions extends CaptureOptions {
  /** Runs first (default 6); while they cannot decide, more up to maxRuns (default 3 x runs). */
  runs?: number;
  maxRuns?: number;
  budgetMs?: number;
  maxModules?: number;
  maxAdviceMs?: number;
  maxRssBytes?: number;
  maxHeapBytes?: number;
  /** '10%' of the baseline's median (the default, at least 10 ms) or a duration such as '25ms'. */
  tolerance?: string;
  /** A report.json check wrote, or its file. */
  baseline?: object | string;
  /** The baseline revision's command, run alternately with the app instead of the control app. */
  baselineCommand?: string[];
}

/** One limit judged: pass, fail, or inconclusive (the runs cannot decide). */
export interface CheckVerdict {
  name: 'starts' | 'budget' | 'max-modules' | 'baseline' | 'max-advice' | 'max-rss' | 'max-heap';
  ok: boolean;
  verdict: 'pass' | 'fail' | 'inconclusive';
  actual: number | null;
  limit: number;
  low?: number | null;
  high?: number | null;
  runsNeeded?: number | null;
  /**
   * The baseline check through the control app: its median in the baseline and now, whether it
   * moved, and how much the app follows its run-to-run moves (0..1; the app is judged less that share).
   */
  control?: { before: number; after: number; moved: 'slower' | 'faster' | 'noise' | 'too few runs'; tracking: number } | null;
  message: string;
}

/** What `coldstart check --json` prints, and check() resolves to. */
export interface CheckResult {
  ok: boolean;
  verdict: 'pass' | 'fail' | 'inconclusive';
  command: string[];
  readyAt: number;
  readyAtInterval: { median: number; low: number | null; high: number | null; confidence: number; n: number };
  samples: number[];
  /** What each run waited for a CPU (null where the kernel does not say); lessCpuWait: the verdicts judged the times less it. */
  runQueue: Array<number | null>;
  lessCpuWait: boolean;
  control: { command: string[]; median: number; low: number | null; high: number | null; samples: number[] } | null;
  runs: number;
  modules: number;
  files: number;
  bytes: number;
  checks: CheckVerdict[];
  warnings: Array<{ code: string; message: string; context: object }>;
  baseline: string | null;
  baselineCommand: string | null;
  baselineWritten: boolean;
  diff: object | null;
}

/** coldstart check as a function: the runs judged against the limits and a baseline; nothing printed or written. */
export function check(options: CheckOptions): Promise<CheckResult>;

/** `coldstart pack` as a function: resolves to the summary `coldstart pack --json` prints. */
export function pack(options: PackOptions): Promise<PackSummary>;

/** `coldstart bundle` as a function: resolves to the summary `coldstart bundle --json` prints. */
export function bundle(options: BundleOptions): Promise<Record<string, unknown>>;

/** `coldstart bench` as a function: resolves to the result `coldstart bench --json` prints. */
export function bench(options: BenchOptions): Promise<BenchResult>;

/**
 * Writes the deterministic startup archive for a list of files. A file whose real path is outside
 * root is never stored: it throws an error with code PACK_PATH_ESCAPES.
 */
export function writeArchive(options: WriteArchiveOptions): WriteArchiveResult;

/** Statistics over timing samples; `stripped` leaves out the top 1%. */
export function summarize(samples: number[]): Description & { stripped: Description };

/** What startup waited on, times in ms on the readyAt clock; null: not seen, or still open at ready. */
export interface ReportNetwork {
  connections: ReportConnection[];
  requests: ReportRequest[];
  children: ReportChildProcess[];
  /** Timers of more than 10 ms the app's code set; waited: fired before the ready moment. */
  timers: Array<{ delayMs: number; at: string | null; phase: 'startup' | 'after-ready'; startMs: number; firedMs: number | null; totalMs: number | null; waited: boolean }>;
  /** Requests the app served. */
  served: Array<{ method: string; path: string; status: number | null; phase: 'startup' | 'after-ready'; startMs: number; endMs: number | null; totalMs: number | null }>;
}

/** Code that used the CPU: a function by total time (its callees included), or one of V8's own entries. */
export interface CpuUser {
  functionName: string;
  file: string | null;
  line: number | null;
  ms: number;
}

/** Outbound requests to one host in one phase, and the connections they opened. */
export interface ConnectionReuse {
  host: string;
  port: number | null;
  requests: number;
  newConnections: number;
  reused: number;
  /** DNS, connect and TLS time the new connections paid, in all and per connection. */
  setupMs: number;
  setupMsPerConnection: number | null;
}

export interface AfterReadyReport {
  durationMs: number;
  /** Requests the app served in the window. */
  requests: number;
  routes: Array<{ method: string; path: string; count: number; statuses: Record<string, number>; medianMs: number | null }>;
  /** coldstart's own requests (--request); null when the user drove the app. */
  sent: { count: number; answered: number; errors: Record<string, number> } | null;
  /** CPU (not idle) in the window, in requests and while none was in flight; null without a profile. */
  cpuMs: number | null;
  inRequestCpuMs: number | null;
  outsideRequestsCpuMs: number | null;
  outside: CpuUser[];
  inside: CpuUser[];
  connections: ConnectionReuse[];
  findings: Array<
    | { kind: 'cpu-outside-requests'; subject: string; ms: number; share: number; fix: string }
    | { kind: 'no-connection-reuse'; subject: string; requests: number; newConnections: number; msPerRequest: number | null; fix: string }>;
}

export interface ReportConnection {
  /** Its index in `connections`, which requests refer to. */
  id: number;
  /** 'http' (http and https), 'fetch' (undici), null (a socket from net.connect no request used). */
  client: 'http' | 'fetch' | null;
  host: string | null;
  port: number | null;
  address: string | null;
  tls: boolean;
  phase: 'startup' | 'after-ready';
  startMs: number;
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  dnsEndMs: number | null;
  connectEndMs: number | null;
  tlsEndMs: number | null;
  endMs: number | null;
  bytesRead: number;
  bytesWritten: number;
  /** Requests it carried. */
  requests: number;
  error: string | null;
}

export interface ReportRequest {
  client: 'http' | 'fetch';
  method: string;
  /** Without the query. */
  url: string;
  host: string | null;
  path: string;
  status: number | null;
  phase: 'startup' | 'after-ready';
  startMs: number;
  firstByteMs: number | null;
  endMs: number | null;
  /** From startMs, the connection's setup included. */
  ttfbMs: number | null;
  totalMs: number | null;
  /** A connection id. */
  connection: number | null;
  reused: boolean;
  error: string | null;
}

export interface ReportChildProcess {
  command: string[];
  pid: number | null;
  phase: 'startup' | 'after-ready';
  startMs: number;
  endMs: number | null;
  totalMs: number | null;
  exitCode: number | null;
}
