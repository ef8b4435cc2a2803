'use strict';
// The limits `coldstart check` enforces: an absolute budget for time to ready, a most modules
// count, and a saved baseline with an allowed regression. Pure: figures in, verdicts out.
const { UsageError } = require('../errors.js');
const { parseDuration } = require('../options.js');
const { ms } = require('./terminal.js');

/**
 * --tolerance: '10%' (relative to the baseline) or a duration such as '25ms' (absolute).
 * @param {string|number} value
 * @returns {{ percent: number } | { ms: number }}
 */
function parseTolerance(value) {
  const text = String(value).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (pct) return { percent: Number(pct[1]) };
  if (/^0+(?:\.0+)?(ms|s)?$/.test(text)) return { ms: 0 };
  if (/^\d+(?:\.\d+)?(ms|s|m)$/.test(text)) return { ms: parseDuration(text, '--tolerance') };
  throw new UsageError(`invalid --tolerance "${value}": use a percentage such as 10% or a duration such as 25ms`);
}

const describeTolerance = (t) => ('percent' in t ? `${t.percent}%` : ms(t.ms));
/** '+12.5%' / '-3.0%' of actual against base. */
function percentChange(actual, base) {
  if (!(base > 0)) return 'n/a';
  const p = ((actual - base) / base) * 100;
  return `${p >= 0 ? '+' : ''}${p.toFixed(1)}%`;
}

/**
 * Checks measured figures against the limits given. A limit that is not given is not checked.
 * @param {{ readyMs: number, modules: number }} measured median time to ready, module count
 * @param {{ budgetMs?: number, maxModules?: number, baseline?: { readyMs: number, modules?: number },
 *   tolerance?: { percent: number } | { ms: number } }} limits tolerance defaults to 10%
 * @returns {{ ok: boolean, checks: Array<{ name: 'budget'|'max-modules'|'baseline', ok: boolean,
 *   actual: number, limit: number, message: string }> }}
 */
function evaluateBudget(measured, limits = {}) {
  const checks = [];
  const ready = measured.readyMs;
  if (limits.budgetMs != null) {
    const ok = ready <= limits.budgetMs;
    checks.push({
      name: 'budget', ok, actual: ready, limit: limits.budgetMs,
      message: ok
        ? `time to ready ${ms(ready)} is within the budget of ${ms(limits.budgetMs)}`
        : `time to ready ${ms(ready)} is over the budget of ${ms(limits.budgetMs)} (by ${ms(ready - limits.budgetMs)})`,
    });
  }
  if (limits.maxModules != null) {
    const ok = measured.modules <= limits.maxModules;
    checks.push({
      name: 'max-modules', ok, actual: measured.modules, limit: limits.maxModules,
      message: ok
        ? `${measured.modules} module${measured.modules === 1 ? '' : 's'}, within --max-modules ${limits.maxModules}`
        : `${measured.modules} modules loaded to start, over --max-modules ${limits.maxModules} (by ${measured.modules - limits.maxModules})`,
    });
  }
  if (limits.baseline) {
    const tolerance = limits.tolerance || { percent: 10 };
    const base = limits.baseline.readyMs;
    const allowed = 'percent' in tolerance ? (base * tolerance.percent) / 100 : tolerance.ms;
    const limit = Math.round((base + allowed) * 100) / 100;
    const ok = ready <= limit;
    checks.push({
      name: 'baseline', ok, actual: ready, limit,
      message: ok
        ? `time to ready ${ms(ready)} against the baseline ${ms(base)} (${percentChange(ready, base)}; limit ${ms(limit)} with --tolerance ${describeTolerance(tolerance)})`
        : `time to ready ${ms(ready)} is ${percentChange(ready, base).slice(1)} over the baseline ${ms(base)} (limit ${ms(limit)} with --tolerance ${describeTolerance(tolerance)})`,
    });
  }
  return { ok: checks.every((c) => c.ok), checks };
}

module.exports = { parseTolerance, evaluateBudget };
