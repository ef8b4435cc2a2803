'use strict';
// What `coldstart bench` prints and writes: the terminal report (statistics per series, the
// comparisons, histograms on one axis) and the raw samples as CSV. Pure: a bench result in, text out.
const { STAT_COLUMNS, ENOUGH_RUNS } = require('../stats.js');
const { formatMs: fmt, palette } = require('./terminal-format.js');

function timeName(series, which) {
  if (series.where === 'docker') return 'docker run';
  return which;
}

/** The terminal report: notes, one stats block per series, and histograms on a shared axis. */
function renderText(result, { color }) {
  const { histogram, renderHistogram } = require('../stats.js');
  const { bold, dim } = palette(color);
  const lines = [];
  lines.push(bold(`coldstart bench: ${result.runs} runs per series after ${result.warmup} warm-up run${result.warmup === 1 ? '' : 's'} (not counted), ready = ${result.until}`));
  for (const note of result.notes) lines.push(dim(note));
  const m = result.machine;
  lines.push(dim(`machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, node ${m.node}`));
  const busy = busyLine(result.series);
  if (busy) lines.push(palette(color).yellow(busy));
  if (result.partial) lines.push(bold('interrupted: only the runs made before the stop are counted'));
  lines.push('');

  const rows = [];
  for (const s of result.series) {
    for (const which of ['inside', 'outside']) {
      const st = s.stats[which];
      if (!st) continue;
      rows.push({ s, label: timeName(s, which), st, primary: which === s.metric });
      // The strip removes floor(n / 100) samples: show it only where it removed something.
      if (st.stripped.n < st.n) rows.push({ s, label: `${timeName(s, which)} −1%`, st: st.stripped, primary: false });
    }
  }
  const labelWidth = Math.max(6, ...result.series.map((s) => s.label.length));
  const kindWidth = Math.max(4, ...rows.map((r) => r.label.length));
  const cells = (st) => STAT_COLUMNS.map((k) => (k === 'n' ? String(st.n) : fmt(st[k])));
  const widths = STAT_COLUMNS.map((k, i) => Math.max(k.length, ...rows.map((r) => cells(r.st)[i].length)));
  const header = `${'series'.padEnd(labelWidth)}  ${'time'.padEnd(kindWidth)}  ${STAT_COLUMNS.map((k, i) => k.padStart(widths[i])).join('  ')}`;
  lines.push(dim(`${header}   (ms)`));
  let previous = null;
  for (const r of rows) {
    const name = r.s === previous ? '' : r.s.label;
    previous = r.s;
    const text = `${name.padEnd(labelWidth)}  ${r.label.padEnd(kindWidth)}  ${cells(r.st).map((c, i) => c.padStart(widths[i])).join('  ')}`;
    lines.push(r.primary ? bold(text) : text);
  }

  lines.push(...renderComparisons(result, { bold, dim }));

  // Histograms of each series' main time on one axis, so their positions compare at a glance.
  const all = result.series.flatMap((s) => s[s.metric]);
  if (all.length) {
    const min = Math.min(...all);
    const max = Math.max(...all);
    const longest = Math.max(...result.series.map((s) => s[s.metric].length));
    const bins = Math.min(20, Math.ceil(Math.log2(Math.max(1, longest))) + 1);
    for (const s of result.series) {
      if (!s[s.metric].length) continue;
      lines.push('', bold(`${s.label}: ${s.metric === 'inside' ? 'inside' : timeName(s, 'outside')} time, ${s[s.metric].length} runs`));
      const hist = histogram(s[s.metric], { min, max, bins: min === max ? 1 : bins });
      lines.push(renderHistogram(hist, { width: 40 }).split('\n').map((l) => `  ${l}`).join('\n'));
    }
  }
  return lines.join('\n') + '\n';
}

/**
 * One line when the runs waited for a CPU: how long, per series, as the kernel counted it for the
 * app's process (its run queue), so the times are read as a busy machine's. Null otherwise.
 */
function busyLine(series) {
  const { median } = require('../stats.js');
  const { BUSY_SHARE } = require('../analyze/startup-report.js'); // a profile's busy machine too
  const busy = series.filter((s) => s.wait && s.wait.length && s.inside.length)
    .map((s) => ({ s, wait: median(s.wait), time: median(s.inside) }))
    .filter((b) => b.time > 0 && b.wait / b.time >= BUSY_SHARE);
  if (!busy.length) return null;
  const each = busy.map((b) => `${b.s.label} ${fmt(b.wait)} of ${fmt(b.time)} ms (${Math.round((100 * b.wait) / b.time)}%)`).join('; ');
  return `busy machine: the runs waited for a CPU, median ${each}; the series alternate, so their ratio holds better than their ms`;
}

/**
 * Each series against its baseline: median [interval], then the verdict with the shift and its
 * interval. Nothing for a lone series.
 */
function renderComparisons(result, { bold, dim }) {
  if (!result.comparisons.length) return [];
  const { medianInterval, formatMedianInterval, formatComparison } = require('../stats.js');
  const byIndex = new Map(result.comparisons.map((c) => [c.index, c]));
  const oneBaseline = new Set(result.comparisons.map((c) => c.baselineIndex)).size === 1;
  const labelWidth = Math.max(...result.series.map((s) => s.label.length));
  const rows = result.series.map((s) => ({ s, median: medianInterval(s[s.metric]) }));
  const coverage = Math.floor(100 * Math.min(...rows.map((r) => r.median.confidence)));
  const medianWidth = Math.max(...rows.map((r) => formatMedianInterval(r.median).length));
  const kinds = new Set(rows.map((r) => timeName(r.s, r.s.metric)));
  const time = kinds.size === 1 ? `${[...kinds][0]} time` : 'time (inside, or docker run for containers)';
  const lines = ['', bold(`Compared: median [${coverage}% interval] of the ${time}; the runs of all series alternated`)];
  rows.forEach(({ s, median }, index) => {
    const cmp = byIndex.get(index);
    let verdict = dim('baseline');
    if (cmp) {
      verdict = formatComparison(cmp);
      if (cmp.verdict === 'too few runs') verdict += `: use -n ${ENOUGH_RUNS} or more`;
      if (!oneBaseline) verdict += dim(` against ${cmp.baseline}`);
    }
    lines.push(`${s.label.padEnd(labelWidth)}  ${formatMedianInterval(median).padStart(medianWidth)}  ${verdict}`);
  });
  return lines;
}

function csvCell(value) {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Raw samples, one line per run: series,scenario,runtime,where,run,inside_ms,outside_ms. */
function renderCsv(result) {
  const lines = ['series,scenario,runtime,where,run,inside_ms,outside_ms'];
  for (const s of result.series) {
    s.outside.forEach((outside, i) => {
      const inside = s.inside.length ? s.inside[i].toFixed(3) : '';
      lines.push([s.label, s.scenario || '', s.runtime || '', s.where, i + 1, inside, outside.toFixed(3)].map(csvCell).join(','));
    });
  }
  return lines.join('\n') + '\n';
}

module.exports = { renderText, renderCsv, busyLine };
