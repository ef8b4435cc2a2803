'use strict';
// The CPU profile a person opens in DevTools or speedscope, without coldstart's frames: the agent
// wraps every require (coldstartLoadRequest, coldstartModuleLoad, ...), which would put two of its
// frames between every level of the app's require tree. Each of its frames is folded into its
// caller: its own samples become the caller's, and its callees hang from the caller, merged with a
// call of the same function there. Pure: a profile in, a new profile out.
const { isOwnCode } = require('./own-code.js');

/**
 * @param {object} profile a V8 CPU profile ({ nodes, samples, timeDeltas, startTime, endTime })
 * @param {(url: string) => boolean} [isFolded] which frames to fold (default: coldstart's own)
 * @returns {object} the profile with those frames folded away (the same object when there are none)
 */
function foldOwnFrames(profile, isFolded = isOwnCode) {
  if (!profile || !Array.isArray(profile.nodes) || !profile.nodes.length) return profile;
  if (!profile.nodes.some((n) => n.callFrame && isFolded(n.callFrame.url))) return profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parentOf.set(c, n.id);

  const newIdOf = new Map(); // old id -> id in the folded profile
  const folded = new Map(); // new id -> node being built
  const byKey = new Map(); // new parent id + frame -> new id
  const frameKey = (f) => `${f.functionName}\0${f.url}\0${f.lineNumber}\0${f.columnNumber}`;
  // Parents before children: a walk from the roots.
  const roots = profile.nodes.filter((n) => !parentOf.has(n.id));
  const stack = roots.slice().reverse();
  while (stack.length) {
    const node = stack.pop();
    const parentNew = parentOf.has(node.id) ? newIdOf.get(parentOf.get(node.id)) : undefined;
    let id;
    if (parentNew !== undefined && node.callFrame && isFolded(node.callFrame.url)) {
      id = parentNew; // folded into its caller
    } else {
      const key = `${parentNew}\0${frameKey(node.callFrame || {})}`;
      id = byKey.get(key);
      if (id === undefined) {
        id = node.id;
        byKey.set(key, id);
        const { children, hitCount, positionTicks, ...rest } = node;
        folded.set(id, { ...rest, hitCount: 0, children: [], ticks: new Map(), parent: parentNew });
        if (parentNew !== undefined) folded.get(parentNew).children.push(id);
      }
    }
    newIdOf.set(node.id, id);
    const into = folded.get(id);
    into.hitCount += node.hitCount || 0;
    // Line ticks stay with their own function only: a folded frame's lines are not its caller's.
    if (into.callFrame === node.callFrame || frameKey(into.callFrame) === frameKey(node.callFrame || {})) {
      for (const t of node.positionTicks || []) into.ticks.set(t.line, (into.ticks.get(t.line) || 0) + t.ticks);
    }
    for (let i = (node.children || []).length - 1; i >= 0; i--) {
      const child = byId.get(node.children[i]);
      if (child) stack.push(child);
    }
  }
  const nodes = [...folded.values()].map(({ ticks, parent, ...n }) => ({
    ...n,
    ...(ticks.size ? { positionTicks: [...ticks].map(([line, count]) => ({ line, ticks: count })) } : {}),
  }));
  return { ...profile, nodes, samples: profile.samples.map((id) => newIdOf.get(id) ?? id) };
}

module.exports = { foldOwnFrames };
