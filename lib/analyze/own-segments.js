'use strict';
// Whose time each moment of startup was: every module has windows on the app's thread (a
// CommonJS module from its resolve to the end of its load, an ES module its fetch when hooks ran
// on the app's thread and its evaluation), windows nest and may overlap, and the innermost one
// open owns the moment. The segments are disjoint, so module times built from them add up to at
// most the time they cover, never more. Pure.

/**
 * @param {Array<{ from: number, to: number, file: string }>} windows on one clock
 * @returns {Array<{ from: number, to: number, file: string }>} disjoint, sorted by time
 */
function ownSegments(windows) {
  // Outer windows first at the same start, so a child opening at its parent's start nests inside.
  const sorted = windows.filter((w) => w.to > w.from).sort((a, b) => a.from - b.from || b.to - a.to);
  const segments = [];
  const open = [];
  let at = -Infinity;
  const emitUntil = (t) => {
    if (open.length && t > at) segments.push({ from: at, to: t, file: open[open.length - 1].file });
    at = Math.max(at, t);
  };
  const close = () => {
    emitUntil(open[open.length - 1].to);
    open.pop();
  };
  for (const w of sorted) {
    while (open.length && open[open.length - 1].to <= w.from) close();
    emitUntil(w.from);
    // The open window that ends first is the innermost. One that outlasts the window it opened in
    // (overlapping, not nested: an asynchronous ES module graph) owns its time after that one closes.
    open.push(w);
    open.sort((a, b) => b.to - a.to);
  }
  while (open.length) close();
  return segments;
}

/** Each file's total of the segments it owns. */
function ownTotals(segments) {
  const totals = new Map();
  for (const s of segments) totals.set(s.file, (totals.get(s.file) || 0) + (s.to - s.from));
  return totals;
}

/** The index of the first of the sorted, disjoint segments that ends after t (segments.length: none). */
function firstEndingAfter(segments, t) {
  let lo = 0;
  let hi = segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid].to <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

module.exports = { ownSegments, ownTotals, firstEndingAfter };
