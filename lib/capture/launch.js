'use strict';
// Starts the app's process tree with the agent preloaded, passes its output
// through, and ends the whole tree afterwards: no process outlives the capture.
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

const { isNode } = require('../node-command.js');
const { findPackageBin } = require('../package-bin.js');
const { UNTIL_ENV } = require('../in-app/ready-moment.cjs');
const { startTicks } = require('../in-app/process-start.cjs');
const { sameProcess } = require('../in-app/recorded-children.cjs');

const AGENT = path.join(__dirname, '..', 'in-app', 'agent.cjs');

// Lines Node prints about the inspector the agent opens: noise for the user.
const INSPECTOR_NOISE = [
  /^Debugger listening on ws:\/\//,
  /^For help, see: https:\/\/nodejs\.org\//, // wording differs between Node versions
  /^Debugger attached\.$/,
  /^Debugger ending on ws:\/\//,
  /^Waiting for the debugger to disconnect\.\.\.$/,
];

/** Quotes a path for NODE_OPTIONS, which splits on spaces but honours double quotes. */
function quoteForNodeOptions(p) {
  return `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** NODE_OPTIONS that preload `file` before whatever the existing value asks for. */
function nodeOptionsWithPreload(file, existing) {
  const req = `--require ${quoteForNodeOptions(file)}`;
  return existing ? `${req} ${existing}` : req;
}

/** Splits a stream into lines, drops inspector noise (handed to onNoise), forwards the rest. */
function lineFilter(onLine, onNoise = () => {}) {
  let buf = '';
  return {
    push(chunk) {
      buf += chunk.toString('utf8');
      let i;
      while ((i = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!INSPECTOR_NOISE.some((re) => re.test(line))) onLine(line + '\n');
        else onNoise(line);
      }
    },
    flush() {
      if (buf && !INSPECTOR_NOISE.some((re) => re.test(buf))) onLine(buf);
      buf = '';
    },
  };
}

/**
 * @param {{command: string[], cwd: string, env: object, channel: string, until: string,
 *          esm?: string, timingOnly?: boolean, settleMs?: number, afterMs?: number, limit?: object,
 *          stdout?: NodeJS.WritableStream, stderr?: NodeJS.WritableStream}} opts
 * @returns {{child, done: Promise<{code, signal}>, stderrTail: () => string[], kill: (pids?) => Promise<void>, commandFiles: string[]}}
 */
function launch(opts) {
  const env = {
    ...opts.env,
    NODE_OPTIONS: nodeOptionsWithPreload(AGENT, opts.env.NODE_OPTIONS),
    COLDSTART_CHANNEL: opts.channel,
    [UNTIL_ENV]: opts.until,
    // The agent holds the app only while this process lives (agent.cjs, cliWatcher).
    COLDSTART_CLI_PID: String(process.pid),
  };
  if (opts.esm) env.COLDSTART_ESM = opts.esm;
  if (opts.timingOnly) env.COLDSTART_TIMING = '1';
  if (opts.settleMs) env.COLDSTART_SETTLE = '1';
  if (opts.afterMs) env.COLDSTART_AFTER = '1';

  // A package binary of the app (functions-framework, next), found as npx and npm scripts find it,
  // run by the node on PATH as its `#!/usr/bin/env node` line would (images may have no env).
  const bin = isNode(opts.command[0]) ? null : findPackageBin(opts.command[0], opts.cwd);
  if (bin && bin.foreignOwner !== null) {
    const { UsageError } = require('../errors.js');
    throw new UsageError(`${opts.command[0]} is ${bin.file}, owned by another user (uid ${bin.foreignOwner}): not run; give its path to run it all the same`);
  }
  const command = bin ? ['node', bin.file, ...opts.command.slice(1)] : opts.command;
  // Under --cpus/--memory the first process joins the run's cgroup before it becomes the app.
  const [file, ...args] = opts.limit ? opts.limit.wrap(command) : command;
  const child = spawn(file, args, {
    cwd: opts.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so the whole tree can be ended at once
  });

  const tail = [];
  const out = lineFilter((line) => opts.stdout && opts.stdout.write(line));
  // The inspector a hung timed run opens on SIGUSR1 (hung-start.js) says where it listens.
  let inspectorUrl = null;
  const err = lineFilter((line) => {
    tail.push(line.replace(/\n$/, ''));
    if (tail.length > 20) tail.shift();
    if (opts.stderr) opts.stderr.write(line);
  }, (line) => { inspectorUrl = (/^Debugger listening on (ws:\/\/\S+)/.exec(line) || [])[1] || inspectorUrl; });
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => err.push(c));

  const done = new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
    child.on('close', (code, signal) => {
      out.flush();
      err.flush();
      resolve({ code, signal });
    });
  });

  // An app with its inspector open must not outlive this process even when its own event loop is
  // blocked (the agent's watch of the CLI runs on that loop): killed with SIGKILL, this process
  // leaves a watcher that ends the app's process group within a fraction of a second. Timed runs
  // open no inspector; their agent's own watch ends them.
  if (!opts.timingOnly && child.pid) {
    const watch = require('../death-watch.js').watchForDeath([['kill', '-9', `-${child.pid}`], ['rm', '-rf', opts.channel]]);
    child.once('exit', () => watch.dismiss());
  }

  // Processes started before this one are never ours, whatever pid they have now.
  const startedAt = startTicks(child.pid);

  /**
   * Ends the process group, any extra pids (processes that left the group) and every process
   * below them, found before any is signalled: a parent's death would hide its children.
   */
  async function kill(extraPids = []) {
    const ours = extraPids.filter((pid) => startedAt === null || (startTicks(pid) ?? -1) >= startedAt);
    extraPids = [...new Set([...ours, ...descendants([child.pid, ...ours])])];
    // Signalled only while still the same process: a pid that ends while we wait can be reused.
    const started = new Map(extraPids.map((pid) => [pid, startTicks(pid)]));
    const alive = () => {
      const list = [];
      if (child.pid) {
        try { process.kill(-child.pid, 0); list.push(-child.pid); } catch { /* group gone */ }
      }
      for (const pid of extraPids) {
        try { process.kill(pid, 0); if (sameProcess(pid, started.get(pid))) list.push(pid); } catch { /* gone */ }
      }
      return list;
    };
    const send = (sig) => {
      for (const target of alive()) {
        try { process.kill(target, sig); } catch { /* raced with exit */ }
      }
    };
    send('SIGTERM');
    const deadline = Date.now() + 2000;
    while (alive().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    if (alive().length) send('SIGKILL');
    while (alive().length && Date.now() < deadline + 2000) await new Promise((r) => setTimeout(r, 25));
    // Its pipes drained too: what it printed before it ended is passed on before the capture returns
    // (1 s lost the express fixture's listen line in 3 of 12 profiles run six at a time; 3 s none in 30).
    // The timer goes once they are: left running, it held the CLI's exit up to 3 s after its work.
    let drained;
    await Promise.race([done, new Promise((r) => { drained = setTimeout(r, 3000); })]);
    clearTimeout(drained);
  }

  // What the command was found by (a package binary's .bin link): the archive needs it to start the same way.
  return {
    child, done, stderrTail: () => tail.slice(), kill, commandFiles: bin ? [bin.link] : [],
    inspectorUrl: () => inspectorUrl,
    /** The Node processes of the app's tree, the most recently started first (the app under an npm or a shell). */
    nodePids: () => (child.pid ? [child.pid, ...descendants([child.pid])] : [])
      .filter((pid) => { try { return /^node/.test(path.basename(fs.readlinkSync(`/proc/${pid}/exe`))); } catch { return false; } })
      .sort((a, b) => (startTicks(b) ?? 0) - (startTicks(a) ?? 0)),
  };
}

/** Every process below the given ones, from /proc (Linux; elsewhere none are found). */
function descendants(roots) {
  const children = new Map();
  let entries = [];
  try { entries = fs.readdirSync('/proc'); } catch { return []; }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch { /* ended meanwhile */ }
  }
  const found = new Set();
  const todo = roots.filter(Boolean);
  while (todo.length) {
    for (const pid of children.get(todo.pop()) || []) {
      if (!found.has(pid)) { found.add(pid); todo.push(pid); }
    }
  }
  return [...found];
}

/**
 * The value of the ready-moment variable (UNTIL_ENV) the app's side reads (lib/in-app/ready-moment.cjs)
 * for a ready moment as options.js parses it.
 */
function readyMomentEnv(until) {
  if (until.mode === 'duration') return String(until.ms);
  if (until.mode === 'answer') return `answer:${until.path}`;
  return until.mode === 'http' ? until.url : until.mode;
}

module.exports = { launch, nodeOptionsWithPreload, readyMomentEnv };
