'use strict';
// Why a capture ended without a ready moment, said in one line the user can act on: the app
// crashed or exited, nothing started, the time ran out, the profiler could not attach, or a
// Lambda function's init failed.
const { CommandError, UsageError } = require('../errors.js');

/**
 * The error for an outcome that is not a ready moment.
 * @param {{type: string, exit?: object, error?: object, pid?: number}} what how the capture ended
 * @param {{run: import('./capture-result.js').CaptureRun, timeoutMs: number, timingOnly?: boolean,
 *   heardFrom: boolean, stderrTail: () => string[]}} context heardFrom: a Node process of the app
 *   announced itself
 * @returns {Error}
 */
function captureFailure(what, { run, timeoutMs, timingOnly, heardFrom, listened, stderrTail }) {
  const { command, until, lambda } = run;
  if (what.type === 'lambda-init-error') {
    const { errorType, errorMessage } = what.error;
    const line = `${errorType}: ${errorMessage}`.replace(/\s+/g, ' ').trim();
    if (errorType === 'Runtime.HandlerNotFound') return new UsageError(`--lambda ${lambda.handler}: ${line}`);
    return new CommandError(`the function failed at init: ${line}`, { code: 'APP_FAILED', details: { stderr: stderrTail() } });
  }
  if (what.type === 'attach-failed') {
    return new CommandError(`could not attach the profiler to pid ${what.pid} over 127.0.0.1: ${what.error.message}`, { code: 'ATTACH_FAILED' });
  }
  if (what.type === 'timeout') {
    if (until.mode === 'duration') return new CommandError(`no Node process of the app started within ${timeoutMs / 1000}s (--timeout)`, { code: 'TIMEOUT' });
    if (lambda) return new CommandError(`the function's runtime did not ${lambda.event === undefined ? 'finish init (ask the Runtime API for an event)' : 'answer its first invocation'} within ${timeoutMs / 1000}s (--timeout)`, { code: 'TIMEOUT' });
    if (until.mode === 'answer' && listened) {
      return new CommandError(`the app listened but did not answer GET ${until.path} with a status below 500 within ${timeoutMs / 1000}s (--timeout; --until listen if it is ready before it answers, answer:/path for another path)`, { code: 'TIMEOUT' });
    }
    const hint = until.mode === 'listen' || until.mode === 'answer' ? ' (use --until 10s to profile an app that never listens)' : '';
    const moment = until.mode === 'exit' ? 'exit' : until.mode === 'http' ? `answer ${until.url} with a 2xx after it listened` : 'listen';
    return new CommandError(`the app did not ${moment} within ${timeoutMs / 1000}s (--timeout)${hint}`, { code: 'TIMEOUT' });
  }
  // The tree ended before any process reached the ready moment.
  const { exit } = what;
  if (exit.error) return new CommandError(`could not start "${command[0]}": ${exit.error.message}`, { code: 'SPAWN' });
  if (!timingOnly && !heardFrom) {
    const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
    const tail = errorLine(stderrTail());
    return new CommandError(`no Node process of the app started: "${command[0]}" ended (${how})${tail ? ': ' + tail : ''}`,
      { code: 'APP_FAILED', details: { exitCode: exit.code, signal: exit.signal, stderr: stderrTail() } });
  }
  // 13: an ES module runtime client's top-level await that never settled.
  if ((exit.code === 0 || exit.code === 13) && lambda) {
    return new CommandError(`the function's runtime ended (exit code ${exit.code}) before ${lambda.event === undefined ? 'its init was done' : 'it answered its first invocation'}: a handler whose promise never settles leaves Node nothing to wait for (Lambda would time the invocation out)`, { code: 'APP_FAILED' });
  }
  if (exit.code === 0 && until.mode !== 'exit') {
    return new CommandError('the app exited (code 0) without listening; use --until exit for a script that ends by itself', { code: 'EXIT_WITHOUT_LISTEN' });
  }
  const when = until.mode === 'exit' ? 'before its exit could be recorded' : lambda ? 'before its init ended'
    : listened ? `after it listened, before it answered GET ${until.path}` : 'before listening';
  return crashError(exit, stderrTail(), when);
}

function crashError(exit, tail, when) {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  const inUse = tail.some((l) => /EADDRINUSE/.test(l));
  // Node's message names the address ("listen EADDRINUSE: address already in use :::3000"); when
  // a long stack pushed it out of the tail, the error's own fields still say "port: 3000".
  const address = tail.map((l) => /EADDRINUSE\b.*?([\w.:[\]]*:\d+)\s*$/.exec(l)).find(Boolean)
    || tail.map((l) => /^\s*port: (\d+)/.exec(l)).find(Boolean);
  const reason = inUse ? `port already in use${address ? ` (${/^\d+$/.test(address[1]) ? 'port ' : ''}${address[1]})` : ''}` : '';
  const msg = `the app failed ${when} (${how})${reason ? ': ' + reason : ''}${!reason && tail.length ? ': ' + errorLine(tail) : ''}`;
  return new CommandError(msg, { code: inUse ? 'EADDRINUSE' : 'APP_FAILED', details: { exitCode: exit.code, signal: exit.signal, stderr: tail } });
}

/** The most telling stderr line: the thrown error if there is one, else the last line. */
function errorLine(tail) {
  const lines = tail.map((l) => l.trim()).filter((l) => l && !/^Node\.js v\d/.test(l));
  const thrown = [...lines].reverse().find((l) => /^([A-Z]\w*)?(Error|Exception)\b.*:/.test(l) || /^Uncaught /.test(l));
  return thrown || lastStatement(lines);
}

/**
 * The app's last words when it threw nothing: its last line that is not a stack frame; a value it
 * printed over several lines ({ missing: [...] } ending in `}`) whole, on one line.
 */
function lastStatement(lines) {
  let end = lines.length - 1;
  while (end >= 0 && /^at /.test(lines[end])) end--;
  if (end < 0) return '';
  if (!/^[\]})]/.test(lines[end])) return lines[end];
  const depth = (l) => (l.match(/[\]})]/g) || []).length - (l.match(/[[{(]/g) || []).length;
  let start = end;
  for (let open = depth(lines[end]); start > 0 && open > 0;) open += depth(lines[--start]);
  return lines.slice(start, end + 1).join(' ').slice(0, 300);
}

module.exports = { captureFailure, errorLine };
