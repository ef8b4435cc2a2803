'use strict';
// The script of report.html: runs in the browser on the embedded data, builds the timeline and the
// require tree, sorts and filters the tables. Kept as functions so Node parses them too; each goes
// into the page as its source (toString), all in one scope: a function here may use the others and
// the browser's globals, nothing else of this module.

/** The page's state: the data, the tree's root, what the tree is zoomed to and what is selected. */
function client(data) {
  const view = { data, root: requireTree(data.modules), focus: null, selected: null, fromFirst: false, tip: $('#tip') };
  view.focus = view.root;
  const zoomBox = $('#timeline-from-first');
  if (zoomBox) zoomBox.addEventListener('change', () => { view.fromFirst = zoomBox.checked; drawTimeline(view); });
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && view.focus.parentNode) { view.focus = view.focus.parentNode; drawTree(view); }
  });
  sortableTables();
  moduleFilter(data);
  drawTimeline(view);
  drawTree(view);
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { drawTimeline(view); drawTree(view); }, 120);
  });
}

function $(sel) {
  return document.querySelector(sel);
}

function fmt(n) {
  return n == null || !isFinite(n) ? '–' : n >= 100 ? Math.round(n) + ' ms' : n.toFixed(1) + ' ms';
}

function plural(n, noun) {
  return n + ' ' + noun + (n === 1 ? '' : 's');
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

function short(file) {
  const i = file.lastIndexOf('node_modules/');
  return i === -1 ? file : file.slice(i + 'node_modules/'.length);
}

/** The require tree: each module under the module that first loaded it; its root, with depths and parents linked. */
function requireTree(modules) {
  const nodes = new Map();
  for (const m of modules) nodes.set(m.file, Object.assign({}, m, { children: [] }));
  const top = [];
  for (const n of nodes.values()) {
    const p = n.parent && nodes.get(n.parent);
    if (p && p !== n) p.children.push(n);
    else top.push(n);
  }
  // A malformed report with a parent cycle must not hang the page: cut the cycle.
  const reached = new Set();
  (function mark(list) {
    for (const n of list) {
      if (reached.has(n)) continue;
      reached.add(n);
      mark(n.children);
    }
  })(top);
  for (const n of nodes.values()) if (!reached.has(n)) { top.push(n); n.children = []; reached.add(n); }
  const bySize = (a, b) => b.inclusiveMs - a.inclusiveMs || (a.file < b.file ? -1 : 1);
  for (const n of nodes.values()) n.children.sort(bySize);
  top.sort(bySize);
  // One entry module (the usual case) is the root itself; several get a common root.
  const root = top.length === 1 ? top[0] : {
    file: 'all modules', package: null, root: true, children: top, parentNode: null,
    inclusiveMs: top.reduce((s, n) => s + (n.inclusiveMs || 0), 0), selfMs: 0,
  };
  root.parentNode = null;
  (function link(n, depth) {
    n.depth = depth;
    for (const c of n.children) { c.parentNode = n; link(c, depth + 1); }
  })(root, 0);
  return root;
}

/** The tooltip shared by the timeline and the tree. */
function showTip(view, ev, n) {
  const { tip, data } = view;
  tip.replaceChildren(
    el('div', 't', n.file),
    el('div', 'd', n.root ? plural(data.modules.length, 'module') : n.package + ' · ' + n.kind + (n.parent ? ' · required by ' + n.parent : ' · entry')),
    el('div', '', 'inclusive ' + fmt(n.inclusiveMs) + (n.root ? '' : ' · self ' + fmt(n.selfMs) + ' · resolve ' + fmt(n.resolveMs))),
    el('div', 'd', n.root ? '' : 'started at ' + fmt(n.startMs) + ' · ' + n.children.length + (n.children.length === 1 ? ' direct require' : ' direct requires')));
  tip.hidden = false;
  const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
  const y = ev.clientY + 16 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 10 : ev.clientY + 16;
  tip.style.left = Math.max(4, x) + 'px';
  tip.style.top = y + 'px';
}

/** A box that shows the tooltip for module n while the pointer is over it. */
function withTip(view, box, n) {
  box.addEventListener('mousemove', (ev) => showTip(view, ev, n));
  box.addEventListener('mouseleave', () => { view.tip.hidden = true; });
}

function niceStep(span, count) {
  const raw = span / count;
  const pow = Math.pow(10, Math.floor(Math.log10(raw)));
  const unit = [1, 2, 5, 10].find((s) => s * pow >= raw) * pow;
  return unit;
}

/** Module loading from process start (or the first module) to ready: one bar a module, one row a depth. */
function drawTimeline(view) {
  const { data } = view;
  const box = $('#timeline');
  box.replaceChildren();
  const first = data.modules.reduce((min, m) => Math.min(min, m.startMs), Infinity);
  const end = Math.max(data.readyAt || 0, ...data.modules.map((m) => m.startMs + m.inclusiveMs)) || 1;
  const from = view.fromFirst && isFinite(first) ? Math.max(0, first - (end - first) * 0.01) : 0;
  const span = end - from || 1;
  // x: the time scale, as a share of the box's width.
  const x = { from, end, span, width: box.clientWidth, pct: (ms) => (100 * (ms - from) / span) + '%', len: (ms) => (100 * ms / span) + '%' };
  const axis = timelineAxis(data, x);
  const lanes = el('div', 'lanes');
  const rowH = 15;
  const maxDepth = moduleBars(view, lanes, x, rowH);
  waitBars(data, lanes, x, 8 + (maxDepth + 1) * rowH, rowH);
  if (isFinite(first) && first > from) {
    const wide = (first - from) / span * x.width > 170;
    const boot = el('div', 'bootzone', wide ? 'before the first module: ' + fmt(first) : '');
    boot.style.width = x.len(first - from);
    boot.title = 'Node boot and preloads, before the first module of the app began to load';
    lanes.prepend(boot);
  }
  if (data.readyAt) {
    const ready = el('div', 'ready');
    ready.style.left = x.pct(data.readyAt);
    lanes.append(ready);
    const label = el('div', 'tick readylabel', 'ready ' + fmt(data.readyAt));
    label.style.left = x.pct(data.readyAt);
    label.style.transform = 'translateX(-100%)';
    axis.append(label);
  }
  box.append(axis, lanes);
}

function timelineAxis(data, x) {
  const axis = el('div', 'axis');
  const step = niceStep(x.span, Math.max(2, Math.floor(x.width / 90)));
  for (let t = Math.ceil(x.from / step) * step; t <= x.end; t += step) {
    // Leave room for the ready label, which sits left of the ready line.
    if (data.readyAt && Math.abs(data.readyAt - t) / x.span * x.width < 100) continue;
    const tick = el('div', 'tick', t + ' ms');
    tick.style.left = x.pct(t);
    if ((t - x.from) / x.span * x.width < 24) tick.style.transform = 'none'; // keep it inside the box
    axis.append(tick);
  }
  return axis;
}

/** @returns {number} the deepest row a module bar took */
function moduleBars(view, lanes, x, rowH) {
  const { root } = view;
  let maxDepth = 0;
  (function place(list) {
    for (const n of list) {
      if (!n.root) {
        const d = n.depth - root.depth - (root.root ? 1 : 0);
        maxDepth = Math.max(maxDepth, d);
        const bar = el('div', 'bar');
        bar.style.left = x.pct(n.startMs);
        bar.style.width = x.len(Math.max(n.inclusiveMs, 0));
        bar.style.top = (4 + d * rowH) + 'px';
        bar.style.background = view.data.colors[n.package] || '#ccc';
        bar.dataset.file = n.file;
        withTip(view, bar, n);
        bar.addEventListener('click', () => select(view, n, true));
        lanes.append(bar);
      }
      place(n.children);
    }
  })([root]);
  return maxDepth;
}

/** What startup waited on, one row each below the modules: requests, child processes, timers. */
function waitBars(data, lanes, x, waitTop, rowH) {
  data.waits.forEach((w, i) => {
    const bar = el('div', 'bar wait ' + w.kind);
    bar.style.left = x.pct(w.startMs);
    bar.style.width = x.len(Math.max((w.endMs == null ? x.end : w.endMs) - w.startMs, 0));
    bar.style.top = (waitTop + i * rowH) + 'px';
    bar.title = w.label + ' — ' + fmt(((w.endMs == null ? x.end : w.endMs) - w.startMs)) + (w.endMs == null ? ' (open at ready)' : '');
    lanes.append(bar);
  });
  lanes.style.height = (waitTop + data.waits.length * rowH) + 'px';
}

/** The icicle: rows by depth, widths by inclusive time, the focused node spanning the width. */
function drawTree(view) {
  const box = $('#tree');
  box.replaceChildren();
  const width = box.clientWidth || 1000;
  const rowH = 23;
  let maxDepth = 0;
  function place(n, left, w, depth) {
    maxDepth = Math.max(maxDepth, depth);
    box.append(treeBox(view, n, { left, w, width, depth, top: depth * rowH }));
    const total = n.children.reduce((s, c) => s + Math.max(c.inclusiveMs, 0), 0);
    // Children can add up to a little more than their parent (rounding, async ESM): squeeze them in.
    const scale = total > n.inclusiveMs || !(n.inclusiveMs > 0) ? (total > 0 ? w / total : 0) : w / n.inclusiveMs;
    let x = left;
    for (const c of n.children) {
      const cw = Math.max(c.inclusiveMs, 0) * scale;
      if (cw >= 2) place(c, x, cw, depth + 1);
      x += cw;
    }
  }
  place(view.focus, 0, width, 0);
  box.style.height = ((maxDepth + 1) * rowH) + 'px';
  drawCrumbs(view);
}

/** One module's box in the icicle (left, w: in px of width), labelled where it is wide enough. */
function treeBox(view, n, { left, w, width, depth, top }) {
  const div = el('div', 'node' + (n.root ? ' root' : '') + (n === view.selected ? ' selected' : ''));
  div.style.left = (100 * left / width) + '%';
  div.style.width = 'calc(' + (100 * w / width) + '% - 1px)';
  div.style.top = top + 'px';
  if (!n.root) div.style.background = view.data.colors[n.package] || '#ccc';
  div.dataset.depth = String(depth);
  div.dataset.file = n.file;
  if (n.package) div.dataset.package = n.package;
  div.dataset.inclusiveMs = String(n.inclusiveMs);
  if (w > 44) {
    const label = n.root ? 'all modules' : short(n.file);
    div.append(el('b', '', label), document.createTextNode(' ' + fmt(n.inclusiveMs)));
  }
  withTip(view, div, n);
  div.addEventListener('click', (ev) => { ev.stopPropagation(); select(view, n, false); });
  return div;
}

function drawCrumbs(view) {
  const nav = $('#crumbs');
  nav.replaceChildren();
  const path = [];
  for (let n = view.focus; n; n = n.parentNode) path.unshift(n);
  path.forEach((n, i) => {
    if (i) nav.append(document.createTextNode(' › '));
    const b = el('button', '', n.root ? 'all modules' : short(n.file));
    if (n === view.focus) b.disabled = true;
    b.type = 'button';
    b.addEventListener('click', () => { view.focus = n; drawTree(view); });
    nav.append(b);
  });
}

/** A module clicked (reveal: in the timeline, which scrolls to the tree): zoom to it and show its figures. */
function select(view, n, reveal) {
  const { data, root } = view;
  view.selected = n;
  if (n === view.focus && !reveal) view.focus = n.parentNode || root; // a click on the top box zooms out
  else if (n.root) view.focus = root;
  else if (n.children.length) view.focus = n;
  else if (reveal) view.focus = n.parentNode || root;
  drawTree(view);
  const box = $('#selection');
  box.classList.remove('muted');
  box.replaceChildren(
    el('div', 'file', n.file),
    el('div', 'figs', n.root
      ? plural(data.modules.length, 'module') + ' · ' + fmt(n.inclusiveMs) + ' loading them'
      : n.package + ' · ' + n.kind + ' · self ' + fmt(n.selfMs) + ' · inclusive ' + fmt(n.inclusiveMs) +
        ' · resolve ' + fmt(n.resolveMs) + ' · started at ' + fmt(n.startMs)),
    el('div', 'muted', n.root ? '' : (n.parent ? 'required by ' + n.parent : 'entry') +
      (n.children.length ? ' · requires ' + n.children.length + (n.children.length === 1 ? ' module: ' : ' modules, the slowest ') +
        short(n.children[0].file) + ' (' + fmt(n.children[0].inclusiveMs) + ')' : '')));
  if (reveal) $('#tree-section').scrollIntoView({ behavior: 'smooth', block: 'start' });
}

/** Sortable tables: each cell carries its sort value in data-v. */
function sortableTables() {
  for (const table of document.querySelectorAll('table.sortable')) {
    const heads = [...table.tHead.rows[0].cells];
    heads.forEach((th, col) => th.addEventListener('click', () => {
      const numeric = th.dataset.type === 'num';
      const dir = th.getAttribute('aria-sort') === 'descending' ? 'ascending'
        : th.getAttribute('aria-sort') === 'ascending' ? 'descending' : numeric ? 'descending' : 'ascending';
      for (const h of heads) h.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', dir);
      const sign = dir === 'ascending' ? 1 : -1;
      const body = table.tBodies[0];
      const rows = [...body.rows];
      const val = (r) => r.cells[col].dataset.v;
      rows.sort((a, b) => {
        const x = val(a), y = val(b);
        const c = numeric ? (Number(x) - Number(y)) : x.localeCompare(y);
        return sign * c;
      });
      body.append(...rows);
    }));
  }
}

/** The modules table's filter: rows whose file or package holds what is typed. */
function moduleFilter(data) {
  const filter = $('#module-filter');
  if (!filter) return;
  filter.addEventListener('input', () => {
    const q = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of $('#modules-table').tBodies[0].rows) {
      const hit = !q || row.cells[0].dataset.v.toLowerCase().includes(q) || row.cells[1].dataset.v.toLowerCase().includes(q);
      row.hidden = !hit;
      if (hit) shown++;
    }
    $('#module-count').textContent = q ? shown + ' of ' + plural(data.modules.length, 'module') : plural(data.modules.length, 'module');
  });
}

const PAGE_FUNCTIONS = [client, $, fmt, plural, el, short, requireTree, showTip, withTip, niceStep, drawTimeline, timelineAxis,
  moduleBars, waitBars, drawTree, treeBox, drawCrumbs, select, sortableTables, moduleFilter];

/** The page's script: the functions above in a scope of their own, run on the data the page embeds. */
const CLIENT_SCRIPT = `(function (data) {
${PAGE_FUNCTIONS.map(String).join('\n')}
client(data);
})(JSON.parse(document.getElementById('coldstart-data').textContent));`;

module.exports = { CLIENT_SCRIPT };
