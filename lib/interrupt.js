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

module.exports = { trapInterrupts };
