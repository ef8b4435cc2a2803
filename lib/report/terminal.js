'use strict';
// The terminal summary of a profile. Reads only the report; returns a string.
const { headline } = require('../analyze/startup-report.js');
const { formatBytes } = require('../format-bytes.js');
const { CATEGORIES } = require('../analyze/cpuprofile-categories.js');

const ms = (n) => (n == null ? '-' : n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`);
const size = formatBytes;

/** ANSI styles, or plain strings when color is off. */
function palette(color) {
  const wrap = (a, b) => (s) => (color ? `\u001b[${a}m${s}\u001b[${b}m` : String(s));
  return {
    bold: wrap(1, 22), dim: wrap(2, 22), cyan: wrap(36, 39), yellow: wrap(33, 39), red: wrap(31, 39), green: wrap(32, 39),
  };
}

/** Left/right aligned columns; widths measured before `paint(row, column, text)` colours a cell. */
function table(rows, align, paint = () => (s) => s) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r, y) => '  ' + r.map((cell, i) => {
    const s = String(cell);
    const padded = align[i] === 'r' ? s.padStart(widths[i]) : s.padEnd(widths[i]);
    return paint(y, i, s)(padded);
  }).join('  ').trimEnd()).join('\n');
}

function shorten(file, max = 60) {
  return file.length <= max ? file : '…' + file.slice(file.length - max + 1);
}

const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * @param {object} report report.json content
 * @param {{ color?: boolean, artifacts?: {profile?, files?, report?} }} [opts]
 */
function renderProfileSummary(report, opts = {}) {
  const c = palette(opts.color);
  const h = headline(report, 5);
  const lines = [];
  const status = report.partial ? c.yellow(' (partial: interrupted)') : '';
  const moment = report.until === 'listen' ? 'listening' : report.until === 'exit' ? 'exit' : `the ${report.until} mark`;
  lines.push(`${c.bold('coldstart')}: ready (${moment}) after ${c.bold(ms(report.readyAt))}${status}`);
  lines.push(`  ${report.modules.length} modules, ${report.files} files, ${size(report.bytes)} read to start` +
    (report.outsideRoot.length ? `, ${report.outsideRoot.length} files outside the root` : ''));
  lines.push(`  root ${report.root}   node ${report.node}`);

  if (report.categories) {
    const cat = report.categories;
    const parts = CATEGORIES.filter((k) => cat[k] != null).map((k) => `${k} ${ms(cat[k])}`);
    lines.push('', c.bold('Time by category') + c.dim(' (from the CPU profile)'), '  ' + parts.join('  ·  '));
  }

  if (h.topPackages.length) {
    lines.push('', c.bold('Top packages') + c.dim(' (own time; load = wall time with dependencies)'));
    lines.push(table([['package', 'modules', 'own', 'load'],
      ...h.topPackages.map((p) => [p.name, p.modules, ms(p.inclusiveMs), ms(p.loadMs)])], ['l', 'r', 'r', 'r']));
  }
  if (h.topInclusive.length) {
    lines.push('', c.bold('Top modules by inclusive time'));
    lines.push(table(h.topInclusive.map((m) => [shorten(m.file), ms(m.inclusiveMs)]), ['l', 'r']));
    lines.push('', c.bold('Top modules by self time'));
    lines.push(table(h.topSelf.map((m) => [shorten(m.file), ms(m.selfMs)]), ['l', 'r']));
  }
  if (report.outsideRoot.length) {
    lines.push('', c.bold('Read outside the root') + c.dim(' (never packed)'));
    for (const f of report.outsideRoot.slice(0, 5)) lines.push(`  ${f}`);
    if (report.outsideRoot.length > 5) lines.push(c.dim(`  … ${report.outsideRoot.length - 5} more in report.json`));
  }
  const a = opts.artifacts || {};
  lines.push('', c.bold('Written'));
  if (a.profile) lines.push(`  ${a.profile}`);
  if (a.files) lines.push(`  ${a.files}`);
  if (a.report) lines.push(`  ${a.report}`);
  if (a.html) lines.push(`  ${a.html}`);
  if (a.html || a.profile) lines.push('');
  if (a.html) lines.push(c.dim(`Open the report:  coldstart view ${a.html}   (a file any browser opens)`));
  if (a.profile) {
    lines.push(c.dim(`Open the profile: coldstart view ${a.profile}   (speedscope, offline)`),
      c.dim('  or Chrome DevTools > Performance > Load profile'));
  }
  return lines.join('\n') + '\n';
}

module.exports = { renderProfileSummary, size, ms, palette, table, shorten, count };
