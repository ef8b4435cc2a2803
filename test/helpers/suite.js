'use strict';
// Which part of the suite runs. `npm test` runs all of it; `npm run test:fast` (COLDSTART_TEST_FAST=1)
// leaves out what needs containers, a browser, a loaded machine or many timed runs of an app (the
// verdicts of check, diff --run-sets, bundle and --verify-advice), and says so in node:test's own skip line.
const FAST = ['1', 'true'].includes(String(process.env.COLDSTART_TEST_FAST || '').toLowerCase());

/**
 * Skips `t` in the fast part of the suite.
 * @param {import('node:test').TestContext} t
 * @param {string} what what the test needs, e.g. 'containers'
 * @returns {boolean} true when the test is to run
 */
function unlessFast(t, what) {
  if (!FAST) return true;
  t.skip(`npm run test:fast leaves out tests that need ${what}`);
  return false;
}

/** test() options for a test left out of the fast part: `test(name, fastSkips('many timed runs'), fn)`. */
const fastSkips = (what) => ({ skip: FAST && `npm run test:fast leaves out tests that need ${what}` });

/**
 * node:test for a test file the fast part leaves out whole: its tests skip there, each saying what
 * it needs, and its hooks (a fixture's install, a bundle built for all its tests) do not run.
 * @param {string} what what the file's tests need, e.g. 'ncc bundles'
 */
function testLeftOutOfFast(what) {
  const test = require('node:test');
  if (!FAST) return test;
  const skipped = (name, options, fn) => test(name, { ...(typeof options === 'object' ? options : {}), ...fastSkips(what) }, typeof options === 'function' ? options : fn);
  const none = () => {};
  return Object.assign(skipped, test, { test: skipped, before: none, after: none, beforeEach: none, afterEach: none });
}

// The Node of the benchmark images (BENCHMARKS.md). The benchmark scripts' end-to-end runs, and the
// few flows no Node changes that take a minute of runs each (a CI workflow, a documented deploy, the
// old spellings), run on this Node, which CI runs; the other Nodes say so in their skip line. CI's
// four Nodes must fit in its time.
const BENCHMARK_NODE = 24;

/**
 * Skips `t` on a Node other than BENCHMARK_NODE, saying where it runs.
 * @param {string} [what] what the test is, for the skip line
 * @returns {boolean} true to run
 */
function onBenchmarkNode(t, what = "a benchmark script's end-to-end run") {
  const major = Number(process.versions.node.split('.')[0]);
  if (major === BENCHMARK_NODE) return true;
  t.skip(`SKIPPED on Node ${major}: ${what}, tested on Node ${BENCHMARK_NODE} (which CI runs)`);
  return false;
}

module.exports = { FAST, unlessFast, fastSkips, testLeftOutOfFast, onBenchmarkNode, BENCHMARK_NODE };
