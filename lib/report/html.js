'use strict';
// report.html: one self-contained page (no network, opens from disk) that shows where the time
// to ready went. The figures and tables are rendered here, so they read without scripts; the
// timeline and the require tree are drawn in the page from the embedded report. Pure.
const { shellLine } = require('../shell-words.js');
const { busyShare, moduleCount, momentOf, listenAndAnswer } = require('../analyze/startup-report.js');
const { ms, size, count } = require('./terminal-format.js');
const { gcShare, noReuseLine, verifiedText } = require('./terminal.js');
const { CLIENT_SCRIPT } = require('./html-client.js');

const CATEGORY_ORDER = ['resolve', 'read', 'compile', 'execute', 'gc', 'other', 'idle', 'offCpu'];
const CATEGORY_LABELS = {
  boot: 'Node start, before profiling',
  resolve: 'resolve',
  read: 'read',
  compile: 'compile',
  execute: 'execute',
  gc: 'gc',
  other: 'other',
  idle: 'idle',
  offCpu: 'not running (machine busy)',
};
const CATEGORY_HINTS = {
  boot: 'Node\'s own bootstrap and coldstart\'s agent setup before the profiler starts; not the app\'s code',
  resolve: 'finding module files: stat, package.json',
  read: 'reading module sources from disk',
  compile: 'compiling sources to functions',
  execute: 'top-level code of the app and its packages',
  gc: 'garbage collection',
  other: 'native code with no JavaScript frame',
  idle: 'waiting on timers or I/O',
  offCpu: 'time the thread was not on a CPU: it is nobody\'s code; a busy machine inflates it',
};

// Light tints, distinct next to each other, readable under dark text. The slowest packages get
// them in order; the rest get a hue from their name.
const PACKAGE_COLORS = ['#7eaad8', '#f3a65a', '#e58585', '#78c5bb', '#93c47d', '#e9cd69',
  '#c29fd6', '#f2a8c3', '#c8a88a', '#a6d46a', '#8fb8c9', '#f0c29e'];
const APP_COLOR = '#b4bfcc';
const APP_PACKAGE = '(app)';

const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

// The terminal's formats, with a dash for a figure the report does not have.
const fmtMs = (n) => (Number.isFinite(n) ? ms(n) : '–');
const fmtBytes = (n) => (Number.isFinite(n) ? size(n) : '–');

function hashHue(name) {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.codePointAt(0)) >>> 0;
  return h % 360;
}

/** package name -> colour, stable for a given report. */
function packageColors(packages) {
  const colors = {};
  let next = 0;
  for (const p of packages) {
    if (p.name === APP_PACKAGE) colors[p.name] = APP_COLOR;
    else if (next < PACKAGE_COLORS.length) colors[p.name] = PACKAGE_COLORS[next++];
    else colors[p.name] = `hsl(${hashHue(p.name)}, 45%, 76%)`;
  }
  return colors;
}

/** Time to ready split into segments: the unsampled start, then the profile's categories. */
function timeSplit(report) {
  const cat = report.categories;
  if (!cat) return null;
  const segments = [];
  const boot = Math.max(0, (report.readyAt || 0) - (cat.totalMs || 0));
  if (boot > 0.05) segments.push({ key: 'boot', ms: boot });
  for (const key of CATEGORY_ORDER) if (cat[key] > 0) segments.push({ key, ms: cat[key] });
  const total = segments.reduce((s, x) => s + x.ms, 0) || 1;
  return segments.map((s) => ({ ...s, share: s.ms / total }));
}

function renderSplit(report) {
  const split = timeSplit(report);
  if (!split) {
    return '<p class="muted">No CPU profile in this report, so no split by category.</p>';
  }
  // A bare Node's time to listen, measured in the same run: tells whether the boot segment is normal here.
  const floorMs = report.machine && Number.isFinite(report.machine.floorMs) ? report.machine.floorMs : null;
  const bar = split.map((s) => `<div class="seg cat-${s.key}" data-key="${s.key}" style="flex-grow:${s.share.toFixed(5)}" ` +
    `title="${esc(`${CATEGORY_LABELS[s.key]}: ${fmtMs(s.ms)} (${(s.share * 100).toFixed(1)}%) – ${CATEGORY_HINTS[s.key]}`)}">` +
    (s.share > 0.07 ? `<span>${esc(CATEGORY_LABELS[s.key])} ${esc(fmtMs(s.ms))}</span>` : '') + '</div>').join('');
  const legend = split.map((s) => `<li data-key="${s.key}"><i class="cat-${s.key}"></i><b>${esc(CATEGORY_LABELS[s.key])}</b> ` +
    `${esc(fmtMs(s.ms))} <span class="muted">${(s.share * 100).toFixed(0)}%</span>` +
    `<div class="hint">${esc(CATEGORY_HINTS[s.key])}</div>` +
    (s.key === 'boot' && floorMs != null ? `<div class="hint floor">for comparison, a bare Node that listens took ${esc(fmtMs(floorMs))} here in the same run</div>` : '') +
    '</li>').join('');
  return `<div class="splitbar" role="img" aria-label="time to ready by category">${bar}</div><ul class="legend">${legend}</ul>`;
}

function renderGcNote(report) {
  const gc = gcShare(report);
  if (!gc) return '';
  return `<p class="muted">Garbage collection took ${esc(fmtMs(gc.ms))}, ${Math.round(gc.share * 100)}% of the profiled startup. ` +
    'A collection falls on whichever module is loading when the heap fills, so module self times leave it out ' +
    '(the gc column shows where it fell); allocating less at startup, or loading less, is what shrinks it.</p>';
}

function stat(label, value, note) {
  return `<div class="stat"><div class="label">${esc(label)}</div><div class="value">${esc(value)}</div>` +
    (note ? `<div class="note">${esc(note)}</div>` : '') + '</div>';
}

function renderMemory(report) {
  const m = report.memory;
  if (!m) return '';
  const held = m.sampled ? m.sampled.packages.map((p) => `<tr><td>${esc(p.package)}</td><td class="num">${esc(fmtBytes(p.bytes))}</td></tr>`).join('\n') : '';
  const loader = m.sampled && m.sampled.loaderBytes ? `; Node's module loader (sources, compiled code) ${fmtBytes(m.sampled.loaderBytes)}` : '';
  return `<section class="card" id="memory">
  <h2>Memory at ready <span class="muted small">what a platform's memory limit counts (resident) and the JavaScript heap, read in the app at its ready moment</span></h2>
  <div class="stats">
    ${stat('resident (RSS)', fmtBytes(m.rssBytes))}
    ${stat('heap used', fmtBytes(m.heapUsedBytes), `of ${fmtBytes(m.heapTotalBytes)}`)}
    ${stat('outside the heap', fmtBytes(m.externalBytes), `buffers ${fmtBytes(m.arrayBuffersBytes)}`)}
  </div>
  ${held ? `<p class="muted">The heap still alive at ready, by the package whose code allocated it (V8's sampled allocations${esc(loader)}):</p>
  <table><thead><tr><th>package</th><th class="num">holds</th></tr></thead><tbody>
${held}
  </tbody></table>` : ''}
</section>`;
}

function renderPackages(report, colors) {
  if (!report.packages.length) return '<p class="muted">No modules were loaded.</p>';
  const most = Math.max(...report.packages.map((p) => p.inclusiveMs), 0.001);
  const rows = report.packages.map((p) => `<tr>` +
    `<td data-v="${esc(p.name)}"><i class="swatch" style="background:${colors[p.name]}"></i>${esc(p.name)}</td>` +
    `<td class="num" data-v="${p.modules}">${p.modules}</td>` +
    `<td class="num" data-v="${p.inclusiveMs}">${esc(fmtMs(p.inclusiveMs))}</td>` +
    `<td class="num" data-v="${p.loadMs}">${esc(fmtMs(p.loadMs))}</td>` +
    `<td class="barcell" data-v="${p.inclusiveMs}"><div class="minibar" style="width:${(100 * p.inclusiveMs / most).toFixed(1)}%;background:${colors[p.name]}"></div></td>` +
    `</tr>`).join('\n');
  return `<div class="scroll"><table class="sortable" id="packages-table">
<thead><tr><th data-type="text">package</th><th data-type="num" class="num">modules</th>
<th data-type="num" class="num" aria-sort="descending" title="time in the package's own files, dependencies excluded: packages add up">own</th>
<th data-type="num" class="num" title="wall time of loading the package from outside, its dependencies included">load (with deps)</th>
<th data-type="num">share of own time</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
}

function renderModules(report, colors) {
  if (!report.modules.length) return '<p class="muted">No modules were loaded.</p>';
  const byInclusive = [...report.modules].sort((a, b) => b.inclusiveMs - a.inclusiveMs || a.file.localeCompare(b.file));
  const rows = byInclusive.map((m) => `<tr>` +
    `<td class="file" data-v="${esc(m.file)}" title="${esc(m.parent ? `required by ${m.parent}` : 'entry')}">${esc(m.file)}</td>` +
    `<td data-v="${esc(m.package)}"><i class="swatch" style="background:${colors[m.package]}"></i>${esc(m.package)}</td>` +
    `<td data-v="${esc(m.kind)}">${esc(m.kind)}</td>` +
    `<td class="num" data-v="${m.startMs}">${esc(fmtMs(m.startMs))}</td>` +
    `<td class="num" data-v="${m.resolveMs}">${esc(fmtMs(m.resolveMs))}</td>` +
    `<td class="num" data-v="${m.selfMs}">${esc(fmtMs(m.selfMs))}</td>` +
    `<td class="num" data-v="${m.gcMs ?? ''}">${m.gcMs ? esc(fmtMs(m.gcMs)) : ''}</td>` +
    `<td class="num" data-v="${m.inclusiveMs}">${esc(fmtMs(m.inclusiveMs))}</td>` +
    `</tr>`).join('\n');
  return `<div class="tools"><input type="search" id="module-filter" placeholder="filter by file or package" aria-label="filter modules">
<span class="muted" id="module-count">${esc(count(report.modules.length, 'module'))}</span></div>
<div class="scroll"><table class="sortable" id="modules-table">
<thead><tr><th data-type="text">file</th><th data-type="text">package</th><th data-type="text">kind</th>
<th data-type="num" class="num" title="when its require/import began, ms from process start">start</th>
<th data-type="num" class="num" title="finding the file">resolve</th>
<th data-type="num" class="num" title="its own load time, modules it required excluded, garbage collection apart">self</th>
<th data-type="num" class="num" title="garbage collection that ran while it loaded: not its own work, left out of self">gc</th>
<th data-type="num" class="num" aria-sort="descending" title="load time including the modules it required">inclusive</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`;
}

function renderDetails(report) {
  const rows = [
    ['command', shellLine(report.command)],
    ['node', report.node],
    ['ready moment', `${momentOf(report.until, report.answer)}${report.partial ? ' (partial: interrupted)' : ''}`],
    ['time to ready', fmtMs(report.readyAt)],
    listenAndAnswer(report, fmtMs) && ['listen and first answer', listenAndAnswer(report, fmtMs)],
    report.attachMs != null && ['profiler attach pause', `${fmtMs(report.attachMs)} (not counted in time to ready)`],
    ['cwd', report.cwd],
    ['root', report.root],
    ['pid', report.pid],
    report.exitCode != null && ['exit code', report.exitCode],
    report.address && ['address', `${report.address.address} port ${report.address.port}`],
    ['files read to start', `${report.files} (${Object.entries(report.filesByVia || {}).map(([k, v]) => `${v} ${k}`).join(', ')})`],
    ['bytes read', fmtBytes(report.bytes)],
    (report.builtins || []).length && ['builtins', report.builtins.join(' ')],
  ].filter(Boolean);
  return `<dl class="details">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
}

function renderOutside(report) {
  const list = report.outsideRoot || [];
  if (!list.length) return '<p class="muted">None: every startup file is inside the root.</p>';
  return `<p class="muted">Files read during startup outside <code>${esc(report.root)}</code>. ` +
    '<code>coldstart pack</code> never packs them: they must exist where the app runs.</p>' +
    `<ul class="outside">${list.map((f) => `<li><code>${esc(f)}</code></li>`).join('')}</ul>`;
}

/** file:line:column, as much of it as the finding gives. */
function placeText(p) {
  if (!p.file) return '';
  if (!p.line) return p.file;
  const compiled = p.column ? `${p.file}:${p.line}:${p.column}` : `${p.file}:${p.line}`;
  // Compiled output with a source map: the line the user wrote first.
  return p.original ? `${p.original.file}:${p.original.line}:${p.original.column} (${compiled})` : compiled;
}

/** How sure a finding is: CPU samples, how many runs saw it, the estimate's interval. */
function adviceFacts(a) {
  const facts = [];
  if (Number.isFinite(a.samples)) facts.push(count(a.samples, 'CPU sample'));
  if (a.runs) facts.push(a.runs.of > 1 ? `in ${a.runs.seen} of ${a.runs.of} runs` : 'single run');
  if (Array.isArray(a.interval) && a.interval.length === 2) {
    facts.push(`estimate ${fmtMs(a.estimatedMs)} [${fmtMs(a.interval[0])} … ${fmtMs(a.interval[1])}]`);
  }
  return facts;
}

/** What to do, in a few words. */
function adviceWhat(a) {
  if (a.kind === 'duplicate-package') return `${a.subject}: ${a.copies.length} copies`;
  if (a.kind === 'sync-work') return `${a.subject} blocks startup`;
  if (a.kind === 'heavy-entry-point') return `${a.subject}: a lighter entry point`;
  if (a.kind.startsWith('container-')) return `${a.subject} in the container`;
  if (a.kind === 'apm-instrumentations') return a.subject;
  return `load ${a.subject} lazily`;
}

/** One finding: saving, what and where, the fix, then the evidence it rests on. */
function adviceItem(a) {
  const where = placeText(a);
  const evidence = [a.evidence, ...adviceFacts(a)].filter(Boolean).join('; ');
  const sites = Array.isArray(a.sites) && a.sites.length
    ? `<div class="sites">${a.sites.length > 1 ? `change all ${a.sites.length} places` : 'change 1 place'}:<ul>` +
      a.sites.map((s) => `<li><code>${esc(placeText(s))}</code>${s.request ? ` <span class="muted">${esc(s.request)}</span>` : ''}</li>`).join('') +
      '</ul></div>'
    : '';
  const chain = Array.isArray(a.chain) && a.chain.length
    ? `<details class="chain"><summary>call chain, outermost first (${count(a.chain.length, 'frame')})</summary><ol>` +
      a.chain.map((frame) => `<li><code>${esc(frame)}</code></li>`).join('') + '</ol></details>'
    : '';
  return '<li class="advice-item">' +
    `<div class="saving" title="estimated saving">${esc(fmtMs(a.estimatedMs))}</div>` +
    '<div class="advice-body">' +
    `<div class="what"><b>${esc(adviceWhat(a))}</b>${where ? ` <code class="where">${esc(where)}</code>` : ''}</div>` +
    `<div class="fix">${esc(a.fix)}</div>` +
    `<div class="evidence muted small">${esc(evidence)}${a.source ? `; documented at ${esc(a.source)}` : ''}</div>` +
    sites + chain +
    (a.command ? `<div class="proof small">prove it: <code class="command" title="one click selects it all">${esc(a.command)}</code></div>` : '') +
    (a.verified ? `<div class="small"><b>${esc(verifiedText(a.verified))}</b></div>` : '') +
    '</div></li>';
}

/**
 * The advice, first in the page because it is the answer: one item per finding (a list, not a
 * table, so long paths wrap inside the card). Always there when the report has a CPU profile, so
 * no advice reads as "nothing found" rather than "not looked for".
 */
function renderAdvice(report) {
  const advice = report.advice || [];
  const dropped = report.adviceDropped || [];
  if (!advice.length && !dropped.length && !report.categories) return '';
  const items = advice.map(adviceItem).join('\n');
  const gone = dropped.map((d) => `<li>load ${esc(d.subject)} lazily (<code>${esc(placeText(d))}</code>): ${esc(d.reason)}</li>`).join('');
  return `<section class="card" id="advice">
  <h2>Advice <span class="muted small">estimated savings: check them with a run (profile --verify-advice)</span></h2>
  ${items ? `<ol class="advice-list">${items}</ol>` : '<p class="muted" id="no-advice">No advice: nothing found above the evidence thresholds.</p>'}
  ${gone ? `<h3>Dropped by verification</h3><ul class="dropped">${gone}</ul>` : ''}
</section>
`;
}

/** What startup waited on: outbound requests (with the connection each opened) and child processes. */
function renderWaitedOn(report) {
  const net = report.network;
  const atStartup = (x) => x.phase !== 'after-ready';
  if (!net || !(net.requests.some(atStartup) || net.children.some(atStartup) || (net.timers || []).some((t) => t.waited))) return '';
  const cell = (n) => `<td class="num">${esc(fmtMs(n))}</td>`;
  const rows = net.requests.filter(atStartup).map((q) => {
    const c = q.connection == null ? null : net.connections[q.connection];
    const fresh = c && !q.reused;
    return `<tr><td>${esc(fmtMs(q.startMs))}</td><td><code>${esc(`${q.method} ${q.url}`)}</code>${q.error ? ` <em>${esc(q.error)}</em>` : ''}</td>` +
      `<td class="num">${esc(q.status ?? '–')}</td>${cell(q.totalMs)}${cell(fresh ? c.dnsMs : null)}${cell(fresh ? c.connectMs : null)}` +
      `${cell(fresh ? c.tlsMs : null)}${cell(q.ttfbMs)}<td>${c ? (q.reused ? 'reused' : `new #${c.id}`) : '–'}</td></tr>`;
  });
  for (const ch of net.children.filter(atStartup)) {
    rows.push(`<tr><td>${esc(fmtMs(ch.startMs))}</td><td>child process <code>${esc(ch.command.join(' '))}</code></td>` +
      `<td class="num">${esc(ch.exitCode ?? '–')}</td>${cell(ch.totalMs)}<td colspan="5"></td></tr>`);
  }
  for (const t of (net.timers || []).filter((x) => x.waited)) {
    rows.push(`<tr><td>${esc(fmtMs(t.startMs))}</td><td>timer of ${esc(t.delayMs)} ms${t.at ? ` set at <code>${esc(t.at)}</code>` : ''}</td>` +
      `<td></td>${cell(t.totalMs)}<td colspan="5"></td></tr>`);
  }
  return `<section class="card" id="waited-on">
  <h2>Waited on <span class="muted small">outbound requests, child processes and timers before ready; dns, connect and tls are paid by a new connection only; – = not seen or still open at ready</span></h2>
  <div class="scroll"><table><thead><tr><th>start</th><th>what</th><th class="num">status</th><th class="num">total</th><th class="num">dns</th>
<th class="num">connect</th><th class="num">tls</th><th class="num">first byte</th><th>connection</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
</section>
`;
}

/** The window after ready (profile --after): CPU in and outside requests, who used it, reuse. */
function renderAfterReady(report) {
  const a = report.afterReady;
  if (!a) return '';
  const users = (list) => list.map((f) => `<tr><td><code>${esc(f.functionName)}</code></td><td>${esc(f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : '')}</td>` +
    `<td class="num">${esc(fmtMs(f.ms))}</td></tr>`).join('');
  const hosts = a.connections.map((c) => `<tr><td><code>${esc(c.port ? `${c.host}:${c.port}` : c.host)}</code></td><td class="num">${c.requests}</td>` +
    `<td class="num">${c.newConnections}</td><td class="num">${c.reused}</td><td class="num">${esc(fmtMs(c.setupMsPerConnection))}</td></tr>`).join('');
  const findings = a.findings.map((f) => `<li>${esc(f.kind === 'cpu-outside-requests'
    ? `${fmtMs(f.ms)} of CPU ran while no request was in flight: ${f.fix}`
    : noReuseLine(f))}</li>`).join('');
  const table = (title, body, head) => (body ? `<h3>${title}</h3><div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>` : '');
  const fnHead = '<th>function</th><th>where</th><th class="num">total</th>';
  return `<section class="card" id="after-ready">
  <h2>After ready <span class="muted small">${esc(fmtMs(a.durationMs))}, ${esc(count(a.requests, 'request'))} served; CPU ${esc(fmtMs(a.cpuMs))}: in requests ${esc(fmtMs(a.inRequestCpuMs))}, outside requests ${esc(fmtMs(a.outsideRequestsCpuMs))}</span></h2>
  ${findings ? `<ul>${findings}</ul>` : ''}
  ${table('CPU outside requests', users(a.outside), fnHead)}
  ${table('CPU in requests', users(a.inside), fnHead)}
  ${table('Outbound connections', hosts, '<th>host</th><th class="num">requests</th><th class="num">new</th><th class="num">reused</th><th class="num">set-up each</th>')}
</section>
`;
}

/** The timeline's bars for what startup waited on (at most 40, the longest). */
function waitBars(report) {
  const net = report.network;
  if (!net) return [];
  const bars = [];
  for (const q of net.requests) if (q.phase !== 'after-ready') bars.push({ kind: 'request', label: `${q.method} ${q.url}`, startMs: q.startMs, endMs: q.endMs });
  for (const c of net.children) if (c.phase !== 'after-ready') bars.push({ kind: 'child', label: `child process ${c.command.join(' ')}`, startMs: c.startMs, endMs: c.endMs });
  for (const t of net.timers || []) if (t.waited) bars.push({ kind: 'timer', label: `timer of ${t.delayMs} ms${t.at ? ` set at ${t.at}` : ''}`, startMs: t.startMs, endMs: t.firedMs });
  const length = (b) => (b.endMs == null ? Infinity : b.endMs - b.startMs);
  return bars.filter((b) => b.startMs != null).sort((a, b) => length(b) - length(a)).slice(0, 40).sort((a, b) => a.startMs - b.startMs);
}

/** Where the report comes from when it is not a profile on this machine: a container, production. */
function placeLine(report) {
  if (report.container) return ` · in a container of <code>${esc(report.container.image)}</code> under ${esc(report.container.runtime)}`;
  if (!report.production) return '';
  const p = report.production.phases || {};
  const phases = [['archive ready', p.archiveReady], ['first module', p.firstModule], ['ready', p.ready]]
    .filter(([, v]) => v != null).map(([k, v]) => `${k} ${fmtMs(v)}`).join(', ');
  return ` · a production cold start (COLDSTART_REPORT: per-package load times, no profile)${phases ? `: ${esc(phases)}` : ''}`;
}

/**
 * One line when the machine was busy during the run: much of the time to ready was then the app
 * waiting for a CPU, which module times (CPU they used) do not show.
 */
function renderBusyBanner(report) {
  const m = report.machine;
  if (!m || !m.busy) return '';
  const waited = busyShare(m);
  const share = Number.isFinite(waited) ? `${Math.round(waited * 100)}%` : 'part';
  const load = Array.isArray(m.loadAverage) && Number.isFinite(m.loadAverage[0])
    ? ` (load average ${m.loadAverage[0].toFixed(2)}${m.loadAverageOf ? ` of ${m.loadAverageOf}` : ''}${Number.isFinite(m.cpus) ? ` on ${count(m.cpus, 'CPU')}` : ''})` : '';
  // Without a run queue to read (gVisor, macOS) the profile's gaps are all that is known.
  const queue = Number.isFinite(m.runQueueShare);
  const what = queue ? 'the app waited for a CPU' : 'the app was not running, waiting for a CPU';
  return `<p class="busy" id="machine-busy">The machine was busy: for ${esc(share)} of the profiled time ${what}${esc(load)}; ` +
    `${queue ? 'module times are CPU they used' : 'module times leave out the time the profile saw it not running'}.</p>`;
}

/** JSON that can sit inside a <script> element. */
function scriptJson(value) {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Renders report.html from a report (report.json content).
 * @param {object} report as built by lib/analyze/startup-report.js buildReport
 * @returns {string} a complete HTML document with no external resources
 */
function renderReportHtml(report) {
  const colors = packageColors(report.packages || []);
  const firstModule = report.modules.reduce((min, m) => Math.min(min, m.startMs), Infinity);
  const moduleMs = report.modules.filter((m) => !m.parent).reduce((sum, m) => sum + m.inclusiveMs, 0);
  const data = {
    readyAt: report.readyAt,
    colors,
    modules: report.modules.map((m) => ({
      file: m.file, package: m.package, kind: m.kind, parent: m.parent,
      startMs: m.startMs, resolveMs: m.resolveMs, selfMs: m.selfMs, inclusiveMs: m.inclusiveMs,
    })),
    waits: waitBars(report),
  };
  const title = `coldstart: ${shellLine(report.command)}`;
  const outside = (report.outsideRoot || []).length;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="coldstart">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="card head">
  <div class="brand">coldstart <span>startup report</span>${report.partial ? ' <em class="badge">partial: interrupted</em>' : ''}</div>
  <h1><code id="command">${esc(shellLine(report.command))}</code></h1>
  <div class="meta">node <b id="node-version">${esc(report.node)}</b> · root <code>${esc(report.root)}</code> · pid ${esc(report.pid)}${placeLine(report)}</div>
  <div class="stats">
    ${stat(`time to ready (${momentOf(report.until, report.answer)})`, fmtMs(report.readyAt), report.attachMs != null ? `excludes a ${fmtMs(report.attachMs)} profiler pause` : '')}
    ${stat('modules', String(moduleCount(report)), count((report.packages || []).length, 'package'))}
    ${stat('loading modules', fmtMs(moduleMs), Number.isFinite(firstModule) ? `first module at ${fmtMs(firstModule)}` : '')}
    ${stat('files read', String(report.files), fmtBytes(report.bytes))}
    ${stat('outside the root', String(outside), outside ? 'never packed' : 'all packable')}
  </div>
  ${renderBusyBanner(report)}
</header>

${renderAdvice(report)}
<section class="card" id="split">
  <h2>Where the time to ready went</h2>
  ${renderSplit(report)}
  ${renderGcNote(report)}
</section>

${renderWaitedOn(report)}
${renderAfterReady(report)}
${renderMemory(report)}
<section class="card" id="timeline-section">
  <h2>Module loading, from process start to ready
    <label class="timeline-tools"><input type="checkbox" id="timeline-from-first"> start at the first module</label></h2>
  <p class="muted">Each bar is one module, from the start of its require or import until it returned; modules it loaded sit below it. Hover for figures.</p>
  <div id="timeline" class="timeline"><noscript>The timeline needs JavaScript.</noscript></div>
</section>

<section class="card" id="tree-section">
  <h2>Require tree <span class="muted small">width = inclusive time · colour = package · click to zoom, Esc to zoom out</span></h2>
  <nav id="crumbs" class="crumbs" aria-label="zoom path"></nav>
  <div id="tree" class="tree"></div>
  <div id="selection" class="selection muted">Click a module to see its figures.</div>
</section>

<section class="card" id="packages">
  <h2>Packages <span class="muted small">click a column to sort</span></h2>
  ${renderPackages(report, colors)}
</section>

<section class="card" id="modules">
  <h2>Modules</h2>
  ${renderModules(report, colors)}
</section>

<section class="card" id="outside">
  <h2>Read outside the root</h2>
  ${renderOutside(report)}
</section>

<section class="card" id="details">
  <h2>Capture</h2>
  ${renderDetails(report)}
</section>
<footer class="muted small">Written by coldstart. Open the CPU profile with <code>coldstart view</code>; compare two reports with <code>coldstart diff</code>.</footer>
<div id="tip" class="tip" hidden></div>
<script type="application/json" id="coldstart-data">${scriptJson(data)}</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}

const STYLE = `
:root { --bg: #f4f6f9; --card: #fff; --fg: #1d2430; --muted: #5f6b7a; --line: #e2e6ec; --accent: #2f6fce;
  --boot: #d5dae1; --resolve: #5b8fd1; --read: #4fb3a9; --compile: #9b7ed6; --execute: #ee9a4d; --gc: #e06b6b;
  --other: #a3acb9; --idle: #e8ebef; --offcpu: #c98f86; color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; padding: 20px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
body > * { max-width: 1240px; margin-left: auto; margin-right: auto; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.95em; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; margin-bottom: 16px; }
h1 { font-size: 20px; margin: 4px 0 4px; word-break: break-all; }
h2 { font-size: 16px; margin: 0 0 10px; }
.muted { color: var(--muted); }
.small { font-size: 12px; font-weight: normal; }
.brand { font-weight: 700; color: var(--accent); letter-spacing: 0.02em; }
.brand span { color: var(--muted); font-weight: 500; }
.badge { font-style: normal; background: #fde7b0; color: #6b4a00; border-radius: 4px; padding: 1px 6px; font-size: 12px; }
.meta { color: var(--muted); margin-bottom: 12px; overflow-wrap: anywhere; }
.busy { margin: 12px 0 0; padding: 7px 12px; border-radius: 6px; background: #fde7b0; color: #5a3e00; border: 1px solid #efcf7a; }
.stats { display: flex; flex-wrap: wrap; gap: 10px; }
.stat { flex: 1 1 160px; border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.stat .label { color: var(--muted); font-size: 12px; }
.stat .value { font-size: 24px; font-weight: 650; font-variant-numeric: tabular-nums; }
.stat:first-child .value { color: var(--accent); }
.stat .note { color: var(--muted); font-size: 12px; }
.splitbar { display: flex; height: 34px; border-radius: 6px; overflow: hidden; border: 1px solid var(--line); }
.seg { min-width: 2px; display: flex; align-items: center; justify-content: center; overflow: hidden; white-space: nowrap;
  font-size: 12px; color: #10161f; border-right: 1px solid rgba(255,255,255,0.7); }
.seg:last-child { border-right: 0; }
.cat-boot { background: repeating-linear-gradient(45deg, var(--boot), var(--boot) 6px, #e6e9ee 6px, #e6e9ee 12px); }
.cat-resolve { background: var(--resolve); } .cat-read { background: var(--read); } .cat-compile { background: var(--compile); }
.cat-execute { background: var(--execute); } .cat-gc { background: var(--gc); } .cat-other { background: var(--other); }
.cat-idle { background: var(--idle); }
.cat-offCpu { background: repeating-linear-gradient(135deg, var(--offcpu), var(--offcpu) 5px, #dfb6af 5px, #dfb6af 10px); }
.legend { list-style: none; padding: 0; margin: 12px 0 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 6px 16px; }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 3px; vertical-align: -1px; margin-right: 6px; }
.legend .hint { color: var(--muted); font-size: 12px; margin-left: 18px; white-space: normal; }
.legend .hint.floor { color: var(--fg); margin-top: 3px; }
.timeline { position: relative; overflow: hidden; }
.timeline .axis { position: relative; height: 20px; border-bottom: 1px solid var(--line); font-size: 11px; color: var(--muted); }
.timeline .tick { position: absolute; top: 0; transform: translateX(-50%); white-space: nowrap; }
.timeline .tick::after { content: ''; position: absolute; left: 50%; top: 15px; height: 5px; border-left: 1px solid #c4cad3; }
.timeline .lanes { position: relative; }
.timeline .bar { position: absolute; height: 13px; border-radius: 2px; min-width: 1px; box-shadow: inset 0 0 0 0.5px rgba(0,0,0,0.25); }
.timeline .bar.wait { background: repeating-linear-gradient(135deg, #8a94a6, #8a94a6 4px, #a9b1bf 4px, #a9b1bf 8px); }
.timeline .bar.wait.timer { background: repeating-linear-gradient(135deg, #c9a227, #c9a227 4px, #dcc26a 4px, #dcc26a 8px); }
.timeline .bar:hover, .tree .node:hover { outline: 2px solid var(--fg); z-index: 2; }
.timeline .bootzone { position: absolute; top: 0; bottom: 0; left: 0; background: repeating-linear-gradient(45deg, #f1f3f6, #f1f3f6 6px, #fafbfc 6px, #fafbfc 12px);
  color: var(--muted); font-size: 11px; padding: 4px 6px; overflow: hidden; white-space: nowrap; }
.timeline .ready { position: absolute; top: 0; bottom: 0; border-left: 2px solid #d23c3c; }
.timeline .readylabel { color: #b32d2d; font-weight: 600; }
.timeline .readylabel::after { left: auto; right: 0; border-left-color: #d23c3c; }
.timeline-tools { float: right; font-size: 12px; color: var(--muted); font-weight: normal; }
.crumbs { font-size: 13px; margin-bottom: 6px; min-height: 20px; }
.crumbs button { border: 0; background: none; color: var(--accent); cursor: pointer; padding: 0 2px; font: inherit; }
.crumbs button:hover { text-decoration: underline; }
.crumbs button:disabled { color: var(--fg); cursor: default; text-decoration: none; font-weight: 600; }
.tree { position: relative; user-select: none; }
.tree .node { position: absolute; height: 21px; border-radius: 3px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis;
  font-size: 12px; line-height: 21px; padding: 0 5px; cursor: pointer; color: #10161f; box-shadow: inset 0 0 0 0.5px rgba(0,0,0,0.28); }
.tree .node.root { background: #e9edf2; }
.tree .node.selected { outline: 2px solid var(--accent); z-index: 3; }
.tree .node b { font-weight: 600; }
.selection { margin-top: 10px; min-height: 40px; font-size: 13px; }
.selection .file { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--fg); word-break: break-all; }
.selection .figs { color: var(--fg); }
.tools { display: flex; gap: 12px; align-items: center; margin-bottom: 8px; }
.tools input { flex: 0 1 360px; padding: 6px 9px; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
.scroll { max-height: 460px; overflow: auto; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 10px; text-align: left; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { position: sticky; top: 0; background: #f7f9fb; font-weight: 600; font-size: 12px; color: var(--muted); cursor: pointer; z-index: 1; }
th:hover { color: var(--fg); }
th[aria-sort=descending]::after { content: ' ▾'; } th[aria-sort=ascending]::after { content: ' ▴'; }
td.file { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; white-space: normal; word-break: break-all; }
.num { text-align: right; }
tbody tr:hover { background: #f3f6fa; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 7px; vertical-align: 0; box-shadow: inset 0 0 0 0.5px rgba(0,0,0,0.3); }
.barcell { width: 28%; min-width: 120px; }
.minibar { height: 10px; border-radius: 2px; min-width: 1px; }
.outside { margin: 6px 0 0; padding-left: 20px; overflow-wrap: anywhere; }
/* Advice as a list, not a table: paths and commands of any length wrap inside the card. */
.advice-list { list-style: none; margin: 0; padding: 0; }
.advice-item { display: grid; grid-template-columns: 80px minmax(0, 1fr); gap: 0 14px; padding: 9px 0; border-top: 1px solid var(--line); }
.advice-item:first-child { border-top: 0; padding-top: 0; }
.advice-item .saving { font-size: 17px; font-weight: 650; color: var(--accent); text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.advice-body { min-width: 0; overflow-wrap: anywhere; }
.advice-body > div + div, .advice-body > details { margin-top: 2px; }
.advice-body code { overflow-wrap: anywhere; }
.advice-body .where { margin-left: 6px; color: var(--muted); }
.advice-body ul, .advice-body ol { margin: 2px 0 0; padding-left: 20px; }
.advice-body summary { cursor: pointer; color: var(--muted); font-size: 12px; }
.advice-body .command { user-select: all; white-space: pre-wrap; background: #f3f5f8; border: 1px solid var(--line); border-radius: 4px; padding: 0 5px; }
#advice .dropped { overflow-wrap: anywhere; }
.details { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 0; }
.details dt { color: var(--muted); }
.details dd { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; word-break: break-all; }
footer { text-align: center; padding: 4px 0 12px; }
.tip { position: fixed; z-index: 10; pointer-events: none; background: #1d2430; color: #fff; border-radius: 6px; padding: 7px 10px;
  font-size: 12px; line-height: 1.5; max-width: 460px; box-shadow: 0 4px 14px rgba(0,0,0,0.25); }
.tip .t { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; font-weight: 600; }
.tip .d { color: #c5cdd8; }
`;

module.exports = { renderReportHtml };
