'use strict';
// Part of the control app: startup work of the usual kinds, sized to take about a millisecond.
const table = {};
for (let i = 0; i < 400; i++) table['headers' + i] = { id: i, label: 'headers-' + i.toString(36), tags: [i % 7, i % 11] };
const pattern = /^(?<scope>[a-z]+)-(?<id>[0-9a-z]+)$/;
const parsed = JSON.parse(JSON.stringify(Object.values(table).slice(0, 200)));
class HeadersPart {
  constructor(entries) { this.entries = entries; }
  find(label) { const m = pattern.exec(label); return m ? this.entries[m.groups.scope + parseInt(m.groups.id, 36)] : undefined; }
  count() { return Object.keys(this.entries).length; }
}
const part = new HeadersPart(table);
module.exports = { part, size: part.count() + parsed.length - (part.find('headers-7') ? 0 : 1) };
