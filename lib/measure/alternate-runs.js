'use strict';
// The one way coldstart times two or more ways of starting: round after round, one run of each
// variant, so a slow spell of a shared machine falls on all of them alike; each round in an order
// drawn at random, so no variant always runs first or follows the same other one, and no rhythm
// of the machine can fall on one variant more than by chance. A fixed pattern does not do that:
// turning the order by one each round (a b, b a, a b, ...) puts a variant at the same places of
// every four runs, where anything the machine does every few runs (a collector in this process
// after the same allocations each run) lands on it alone. bench, check,
// bundle's verification and profile --verify-advice all measure through it; lib/stats.js judges
// the samples. A variant's run is the caller's (a capture, a container, a bare process): this
// module only orders the runs, keeps what they gave, and stops when told.

/**
 * @typedef {object} Variant
 * @property {string} name
 * @property {(context: { round: number, warmup: boolean }) => Promise<any>} run one start; what it
 *   resolves to is kept as the sample. It may resolve to `{ [DROP]: reason }` to leave the
 *   comparison (the variant does not start that way), or to STOP when it was interrupted
 */

/** A run resolved to this: stop here, keep what was gathered (an interrupted run). */
const STOP = Symbol('coldstart.measure.stop');
/** A run resolved to `{ [DROP]: reason }`: that variant takes no further part. */
const DROP = Symbol('coldstart.measure.drop');

/** A round's order: the live variants shuffled (Fisher-Yates). */
function shuffled(variants, random) {
  const order = [...variants];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/**
 * Runs `warmup` uncounted rounds, then `rounds` counted ones, each in an order drawn at random;
 * with `more`, counted rounds go on
 * one at a time while more.needed(samples) says the samples cannot decide yet, up to more.atMost.
 * @param {{ variants: Variant[], rounds: number, warmup?: number, signal?: AbortSignal,
 *   more?: { atMost: number, needed: (samples: Object<string, any[]>) => boolean }, random?: () => number,
 *   onRun?: (p: { round: number, rounds: number, variant: string, warmup: boolean, done: number }) => void }} options
 *   signal: checked before each run; when aborted the runs stop, marked partial; random: [0, 1)
 *   numbers that draw the orders (Math.random)
 * @returns {Promise<{ rounds: number, partial: boolean, samples: Object<string, any[]>,
 *   dropped: Object<string, string>, order: Array<{ variant: string, round: number, startedMs: number, value: any }> }>}
 *   rounds: the counted rounds completed; samples by variant name in the order they ran; order:
 *   every counted run as it ran (startedMs since the first counted one), with its sample
 */
async function alternateRuns({ variants, rounds, warmup = 0, signal, more = null, random = Math.random, onRun = () => {} }) {
  if (!Array.isArray(variants) || !variants.length) throw new TypeError('alternateRuns: no variants');
  const samples = Object.fromEntries(variants.map((v) => [v.name, []]));
  const dropped = {};
  const order = [];
  let first = null;
  let done = 0;
  let completed = 0;
  const live = () => variants.filter((v) => !(v.name in dropped));
  const target = () => (more && completed >= rounds && completed < more.atMost && live().length && more.needed(samples) ? completed + 1 : rounds);

  const round = async (index, isWarmup) => {
    for (const variant of shuffled(live(), random)) {
      if (signal && signal.aborted) return false;
      const startedAt = performance.now();
      const result = await variant.run({ round: index, warmup: isWarmup });
      if (result === STOP) return false;
      if (result && typeof result === 'object' && DROP in result) {
        dropped[variant.name] = result[DROP];
        continue;
      }
      done += 1;
      onRun({ round: index, rounds: Math.max(rounds, index + 1), variant: variant.name, warmup: isWarmup, done });
      if (isWarmup) continue;
      if (first === null) first = startedAt;
      samples[variant.name].push(result);
      order.push({ variant: variant.name, round: index, startedMs: Math.round((startedAt - first) * 100) / 100, value: result });
    }
    return true;
  };

  for (let i = 0; i < warmup; i++) {
    if (!(await round(i, true))) return { rounds: 0, partial: true, samples, dropped, order };
  }
  while (completed < target() && live().length) {
    if (!(await round(completed, false))) return { rounds: completed, partial: true, samples, dropped, order };
    completed += 1;
  }
  return { rounds: completed, partial: false, samples, dropped, order };
}

module.exports = { alternateRuns, STOP, DROP };
