'use strict';
// The chart a person looks at instead of the numbers: one row per series on a shared time axis,
// every sample as a dot, a box from p25 to p75, whiskers over the samples kept after the top-1%
// strip, the stripped ones as hollow dots, and the median as a bold marker with its value.
// Self-contained: inline SVG and CSS, no script, nothing fetched. Pure: bench result in, text out.
const { percentile, STAT_COLUMNS } = require('../stats.js');
const { formatMs } = require('../report/terminal-format.js');

const WIDTH = 960;
const LABEL_WIDTH = 280;
const PLOT_LEFT = LABEL_WIDTH + 20;
const PLOT_RIGHT = WIDTH - 40;
const ROW_HEIGHT = 66;
const TOP = 16;
const AXIS_HEIGHT = 52;
const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];

function escapeXml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

// 1, 2, 2.5 or 5 times a power of ten: ticks people read without effort.
function niceStep(span, targetTicks) {
  const raw = span / targetTicks;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

/**
 * The shared axis. It starts at zero unless every sample sits far from it (a 1 s control would
 * be a sliver): then it zooms to the samples.
 */
function axisFor(values) {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (!(hi > lo)) { lo -= 1; hi += 1; }
  if (lo < 0.5 * hi) lo = 0;
  const step = niceStep(hi - lo, 6);
  const from = Math.floor(lo / step) * step;
  let to = Math.ceil(hi / step) * step;
  if (to === hi) to += step * 0.25; // the slowest dot should not sit on the frame
  const ticks = [];
  for (let t = from; t <= to + step / 1e6; t += step) ticks.push(Number(t.toPrecision(12)));
  return { from, to, ticks };
}

// Deterministic vertical spread of dots: the same samples always draw the same picture.
function jitter(i) {
  return ((Math.imul(i + 1, 2654435761) >>> 0) % 1000) / 1000 - 0.5;
}

function truncate(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function seriesSamples(series) {
  return series[series.metric] || [];
}

/**
 * The chart alone, as an SVG element.
 * @param {{series: {label: string, metric: 'inside'|'outside', inside: number[], outside: number[],
 *   stats: {inside: ?object, outside: object}}[]}} result a runBench() result
 * @returns {string} an <svg> element (empty chart text when no series has samples)
 */
function renderBenchSvg(result) {
  const rows = result.series.filter((s) => seriesSamples(s).length > 0);
  if (!rows.length) {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="60" role="img"><text x="20" y="35" font-size="14">no samples</text></svg>`;
  }
  const axis = axisFor(rows.flatMap(seriesSamples));
  const x = (ms) => PLOT_LEFT + ((ms - axis.from) / (axis.to - axis.from)) * (PLOT_RIGHT - PLOT_LEFT);
  const plotBottom = TOP + rows.length * ROW_HEIGHT;
  const height = plotBottom + AXIS_HEIGHT;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" `
    + 'role="img" aria-label="time to ready per series" font-family="system-ui, -apple-system, Segoe UI, sans-serif">');

  // Row bands, grid and axis first, so the data sits on top.
  rows.forEach((_, row) => {
    if (row % 2 === 0) out.push(`<rect x="0" y="${TOP + row * ROW_HEIGHT}" width="${WIDTH}" height="${ROW_HEIGHT}" fill="#f9fafb"/>`);
  });
  for (const tick of axis.ticks) {
    const tx = x(tick).toFixed(1);
    out.push(`<line x1="${tx}" y1="${TOP}" x2="${tx}" y2="${plotBottom}" stroke="#e5e7eb" stroke-width="1"/>`);
    out.push(`<text x="${tx}" y="${plotBottom + 18}" font-size="12" fill="#374151" text-anchor="middle">${escapeXml(formatTick(tick))}</text>`);
  }
  out.push(`<line x1="${PLOT_LEFT}" y1="${plotBottom}" x2="${PLOT_RIGHT}" y2="${plotBottom}" stroke="#6b7280" stroke-width="1"/>`);
  out.push(`<text x="${(PLOT_LEFT + PLOT_RIGHT) / 2}" y="${plotBottom + 42}" font-size="13" fill="#111827" text-anchor="middle">time to ready (ms)</text>`);

  rows.forEach((s, row) => {
    const color = COLORS[row % COLORS.length];
    const top = TOP + row * ROW_HEIGHT;
    const mid = top + ROW_HEIGHT / 2;
    const samples = seriesSamples(s);
    const sorted = [...samples].sort((a, b) => a - b);
    const stats = s.stats[s.metric];
    const kept = sorted.slice(0, stats.stripped.n);
    const stripped = sorted.slice(stats.stripped.n);
    const q1 = percentile(sorted, 25);
    const q3 = percentile(sorted, 75);
    const boxHalf = 11;

    out.push(`<g class="series" data-label="${escapeXml(s.label)}">`);
    out.push(`<text x="12" y="${mid - 4}" font-size="13" font-weight="600" fill="#111827"><title>${escapeXml(s.label)}</title>${escapeXml(truncate(s.label, 38))}</text>`);
    const sub = `median ${formatMs(stats.median)} ms · sd ${formatMs(stats.stddev)} · n ${stats.n}`;
    out.push(`<text x="12" y="${mid + 13}" font-size="11" fill="#6b7280">${escapeXml(truncate(sub, 52))}</text>`);

    // Whiskers over the kept samples, then the box, then every sample as a dot.
    out.push(`<line x1="${x(kept[0]).toFixed(1)}" y1="${mid}" x2="${x(kept[kept.length - 1]).toFixed(1)}" y2="${mid}" stroke="${color}" stroke-width="1.5"/>`);
    for (const end of [kept[0], kept[kept.length - 1]]) {
      out.push(`<line x1="${x(end).toFixed(1)}" y1="${mid - 6}" x2="${x(end).toFixed(1)}" y2="${mid + 6}" stroke="${color}" stroke-width="1.5"/>`);
    }
    const boxLeft = x(q1);
    out.push(`<rect x="${boxLeft.toFixed(1)}" y="${mid - boxHalf}" width="${Math.max(1, x(q3) - boxLeft).toFixed(1)}" height="${boxHalf * 2}" `
      + `fill="${color}" fill-opacity="0.15" stroke="${color}" stroke-width="1.5" rx="2"><title>p25 ${formatMs(q1)} ms – p75 ${formatMs(q3)} ms</title></rect>`);
    samples.forEach((ms, i) => {
      out.push(`<circle cx="${x(ms).toFixed(1)}" cy="${(mid + jitter(i) * (ROW_HEIGHT - 24)).toFixed(1)}" r="2.4" fill="${color}" fill-opacity="0.5"/>`);
    });
    for (const ms of stripped) {
      out.push(`<circle cx="${x(ms).toFixed(1)}" cy="${mid}" r="4" fill="none" stroke="${color}" stroke-width="1.5"><title>top 1%: ${formatMs(ms)} ms</title></circle>`);
    }
    const mx = x(stats.median).toFixed(1);
    out.push(`<line x1="${mx}" y1="${mid - boxHalf - 5}" x2="${mx}" y2="${mid + boxHalf + 5}" stroke="#111827" stroke-width="3"><title>median ${formatMs(stats.median)} ms</title></line>`);
    const labelRight = x(stats.median) > PLOT_RIGHT - 80;
    out.push(`<text x="${labelRight ? Number(mx) - 6 : Number(mx) + 6}" y="${top + 14}" font-size="12" font-weight="600" fill="#111827" `
      + `text-anchor="${labelRight ? 'end' : 'start'}">${escapeXml(formatMs(stats.median))} ms</text>`);
    out.push('</g>');
  });
  out.push('</svg>');
  return out.join('\n');
}

function formatTick(ms) {
  return Number.isInteger(ms) ? String(ms) : String(Number(ms.toFixed(3)));
}

function statsTable(result) {
  const head = ['series', 'time', ...STAT_COLUMNS, 'median −1%', 'stddev −1%'];
  const lines = [`<tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>`];
  for (const s of result.series) {
    for (const which of ['inside', 'outside']) {
      const st = s.stats[which];
      if (!st) continue;
      const cells = [
        escapeXml(s.label),
        which === 'inside' ? 'inside (process start → ready)' : s.where === 'docker' ? 'docker run → listening line' : 'outside (spawn → ready)',
        ...STAT_COLUMNS.map((k) => (k === 'n' ? String(st.n) : formatMs(st[k]))),
        formatMs(st.stripped.median),
        formatMs(st.stripped.stddev),
      ];
      lines.push(`<tr${which === s.metric ? ' class="primary"' : ''}>${cells.map((c, i) => `<td${i > 1 ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`);
    }
  }
  return `<table>\n${lines.join('\n')}\n</table>`;
}

/**
 * A whole HTML page: title, what was measured, the chart, the numbers, the machine.
 * @param {{runs: number, warmup: number, until: string, partial?: boolean, series: object[],
 *   machine?: {cpu: string, cores: number, memoryGb: number, os: string, node: string},
 *   notes?: string[]}} result a runBench() result with machine and notes added
 * @param {{title?: string}} [options]
 * @returns {string}
 */
function renderBenchHtml(result, options = {}) {
  const title = options.title || 'coldstart bench: time to ready';
  const m = result.machine;
  const notes = [
    `${result.runs} runs per series after ${result.warmup} warm-up run${result.warmup === 1 ? '' : 's'} (not counted); ready = ${result.until}.`,
    ...(result.notes || []),
  ];
  if (result.partial) notes.push('Interrupted: these are the runs made before the stop.');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(title)}</title>
<style>
  body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #111827; margin: 24px; max-width: 1000px; }
  h1 { font-size: 20px; margin: 0 0 6px; }
  p.note { color: #4b5563; font-size: 13px; margin: 2px 0; }
  figure { margin: 16px 0; }
  figcaption { color: #4b5563; font-size: 12px; margin-top: 4px; }
  table { border-collapse: collapse; font-size: 12px; margin-top: 12px; }
  th, td { border-bottom: 1px solid #e5e7eb; padding: 4px 8px; text-align: left; white-space: nowrap; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  tr.primary td { font-weight: 600; }
  footer { color: #6b7280; font-size: 12px; margin-top: 16px; }
</style>
</head>
<body>
<h1>${escapeXml(title)}</h1>
${notes.map((n) => `<p class="note">${escapeXml(n)}</p>`).join('\n')}
<figure>
${renderBenchSvg(result)}
<figcaption>Each dot is one cold start. Box: p25 to p75; whiskers: fastest to slowest after stripping the slowest 1% (hollow dots); black bar: median.</figcaption>
</figure>
${statsTable(result)}
<footer>${m ? escapeXml(`Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}.`) : ''} Times in milliseconds.</footer>
</body>
</html>
`;
}

module.exports = { renderBenchHtml, renderBenchSvg };
