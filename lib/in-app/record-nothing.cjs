'use strict';
// What module-timing.cjs and file-reads.cjs hand the agent, with nothing patched and nothing
// recorded: the agent's stand-ins under COLDSTART_RECORD=0, where the overhead benchmark times
// the inspector and its holds alone (bench/profile-overhead.js --parts).

function recordModules() {
  return {
    esmTimed: () => false,
    recordEsm() {},
    drainEsm() {},
    records: () => ({ modules: [], esm: [], builtins: [], resolutions: [], requires: [], esmResolutions: [] }),
  };
}

function recordFileReads() {
  return {
    records: () => ({ esmReads: [], reads: [] }),
  };
}

module.exports = { recordModules, recordFileReads };
