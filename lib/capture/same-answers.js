'use strict';
// Whether another way of starting an app (a bundle, a lazy require) answers as the app does: the
// status and body of each request, as askEach (request-driver.js) keeps them. A body the app itself
// gives differently from one start to the next (a time, an id) cannot be compared: where two starts
// of the app disagree, only the status counts.

/** What is asked when the user names nothing: a platform's first request. */
const DEFAULT_REQUESTS = [{ method: 'GET', path: '/' }];

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

/**
 * What was proven, for the report: each request with the app's status, and those compared by status only.
 * @param {Array<{method: string, path: string, status: number|null}>} reference the app's answers
 * @param {Set<number>} varying (varyingBodies)
 */
function provenAnswers(reference, varying) {
  return {
    requests: reference.map(({ method, path, status }) => ({ method, path, status })),
    statusOnly: [...varying].map((i) => `${reference[i].method} ${reference[i].path}`),
  };
}

/** The requests of provenAnswers in a line: "GET / 200, GET /healthz no answer". */
function describeAnswers(requests) {
  return requests.map((r) => `${r.method} ${r.path} ${r.status === null ? 'no answer' : r.status}`).join(', ');
}

module.exports = { DEFAULT_REQUESTS, differentAnswer, varyingBodies, provenAnswers, describeAnswers };
