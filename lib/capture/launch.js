'use strict';
// Starts the app's process tree with the agent preloaded, passes its output
// through, and ends the whole tree afterwards: no process outlives the capture.
const { spawn } = require('child_process');
const path = require('path');

const AGENT = path.join(__dirname, 'agent.cjs');

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

/** Splits a stream into lines, drops inspector noise, forwards the rest. */
function lineFilter(onLine) {
  let buf = '';
  return {
    push(chunk) {
      buf += chunk.toString('utf8');
      let i;
      while ((i = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!INSPECTOR_NOISE.some((re) => re.test(line))) onLine(line + '\n');
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
 *          esm?: string, stdout?: NodeJS.WritableStream, stderr?: NodeJS.WritableStream}} opts
 * @returns {{child, done: Promise<{code, signal}>, stderrTail: () => string[], kill: (pids?) => Promise<void>}}
 */
function launch(opts) {
  const env = {
    ...opts.env,
    NODE_OPTIONS: nodeOptionsWithPreload(AGENT, opts.env.NODE_OPTIONS),
    COLDSTART_CHANNEL: opts.channel,
    COLDSTART_UNTIL: opts.until,
  };
  if (opts.esm) env.COLDSTART_ESM = opts.esm;
  if (opts.timingOnly) env.COLDSTART_TIMING = '1';

  const child = spawn(opts.command[0], opts.command.slice(1), {
    cwd: opts.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so the whole tree can be ended at once
  });

  const tail = [];
  const out = lineFilter((line) => opts.stdout && opts.stdout.write(line));
  const err = lineFilter((line) => {
    tail.push(line.replace(/\n$/, ''));
    if (tail.length > 20) tail.shift();
    if (opts.stderr) opts.stderr.write(line);
  });
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

  let exited = false;
  child.on('exit', () => { exited = true; });

  /** Ends the process group and any extra pids (processes that left the group). */
  async function kill(extraPids = []) {
    const alive = () => {
      const list = [];
      if (child.pid) {
        try { process.kill(-child.pid, 0); list.push(-child.pid); } catch { /* group gone */ }
      }
      for (const pid of extraPids) {
        try { process.kill(pid, 0); list.push(pid); } catch { /* gone */ }
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
    if (!exited) await Promise.race([done, new Promise((r) => setTimeout(r, 1000))]);
  }

  return { child, done, stderrTail: () => tail.slice(), kill };
}

module.exports = { launch, nodeOptionsWithPreload };
