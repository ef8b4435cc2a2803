'use strict';
// Ctrl-C and SIGTERM are handled here and nowhere else: the first one finishes
// the capture and writes what was gathered (marked partial), the second kills.

/**
 * @returns {{ signal: AbortSignal, force: AbortSignal, interrupted: () => boolean, dispose: () => void }}
 */
function trapInterrupts() {
  const first = new AbortController();
  const second = new AbortController();
  const onSignal = () => {
    if (!first.signal.aborted) first.abort();
    else second.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: first.signal,
    force: second.signal,
    interrupted: () => first.signal.aborted,
    dispose() {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
}

/**
 * Runs `fn(traps)` with Ctrl-C trapped, and always lets go of the signals afterwards.
 * @template T
 * @param {(traps: ReturnType<typeof trapInterrupts>) => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withInterrupts(fn) {
  const traps = trapInterrupts();
  try {
    return await fn(traps);
  } finally {
    traps.dispose();
  }
}

module.exports = { trapInterrupts, withInterrupts };
