'use strict';
// Whether another way of starting an app (a bundle, a lazy require) answers as the app does: the
// status and body of each request, as askEach (request-driver.js) keeps them. A body the app itself
// gives differently from one start to the next (a time, an id) cannot be compared: where two starts
// of the app disagree, only the status counts.

/**
 * The requests whose body differed between two starts of the app (indexes into the answers).
 * @param {Array<{body: string|null}>} first @param {Array<{body: string|null}>|null} second
 * @returns {Set<number>}
 */
function varyingBodies(first, second) {
  const varying = new Set();
  if (!second) return varying;
  first.forEach((a, i) => { if (!second[i] || a.body !== second[i].body) varying.add(i); });
  return varying;
}

/**
 * How `answers` differ from the app's own `reference` ('' when they do not).
 * @param {Array<{method: string, path: string, status: number|null, body: string|null, error: string|null}>} reference
 * @param {typeof reference|null} answers null: the other start gave no address to ask
 * @param {Set<number>} [varying] requests compared by status only (varyingBodies)
 */
function differentAnswer(reference, answers, varying = new Set()) {
  if (!answers) return 'the app gave no address to ask';
  for (let i = 0; i < reference.length; i++) {
    const a = reference[i];
    const b = answers[i];
    const sameBody = varying.has(i) || (b && a.body === b.body);
    if (!b || a.status !== b.status || a.error !== b.error || !sameBody) {
      const said = (x) => (x ? (x.error ? x.error : `status ${x.status}`) : 'nothing');
      const what = a.status === (b && b.status) && !a.error && !(b && b.error) ? 'a different body' : `${said(b)} instead of ${said(a)}`;
      return `${a.method} ${a.path} answered ${what}`;
    }
  }
  return '';
}

module.exports = { differentAnswer, varyingBodies };
