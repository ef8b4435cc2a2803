'use strict';
// Known heavy entry points with lighter ones: a package whose main file loads every part of it
// (googleapis: every Google API; the AWS SDK v2: every service; lodash: every method) when the
// app uses one or two parts. The parts the app uses are read from its own source (`google.drive(`,
// `new AWS.S3(`, `_.debounce(`); the saving is the load time of the package's modules the lighter
// entry would not load. Pure: the caller hands in a way to read the app's files.
const { displayPath } = require('../paths.js');

// Shown only when the app uses at most this many parts: beyond, the whole package may be right.
const MAX_PARTS = 3;
const MIN_MS = 5;

/**
 * One row per package: how the app's source names the parts it uses, which of the package's
 * modules a part needs, the lighter entry, and where that entry point is documented.
 */
const ENTRY_POINTS = [
  {
    package: 'googleapis',
    // google.drive({ version: 'v3' }), google.sheets('v4'); not google.auth / google.options.
    parts: /\bgoogle\s*\.\s*([a-z][a-zA-Z0-9]*)\s*\(/g,
    ignore: ['auth', 'options', 'discover', 'discoverAPI', 'getSupportedAPIs'],
    keeps: (file, part) => file.includes(`/googleapis/build/src/apis/${part}/`),
    fix: (parts) => `depend on ${parts.map((p) => `@googleapis/${p.toLowerCase()}`).join(' and ')} instead of googleapis (the same client, one API per package)`,
    source: 'https://github.com/googleapis/google-api-nodejs-client#using-individual-apis-packages',
  },
  {
    package: 'aws-sdk',
    // new AWS.S3(...), new AWS.DynamoDB.DocumentClient(...)
    parts: /\bnew\s+AWS\s*\.\s*([A-Z][A-Za-z0-9]*)\b/g,
    ignore: ['Config', 'Credentials', 'Endpoint'],
    keeps: (file, part) => new RegExp(`/aws-sdk/(clients|apis)/${part.toLowerCase()}[.-]`).test(file),
    fix: (parts) => `use the AWS SDK v3 clients ${parts.map((p) => `@aws-sdk/client-${p.toLowerCase()}`).join(' and ')} (or require('aws-sdk/clients/${parts[0].toLowerCase()}') in v2) instead of the whole aws-sdk`,
    source: 'https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/migrating.html',
  },
  {
    package: 'lodash',
    // _.debounce(...), lodash.get(...)
    parts: /\b(?:_|lodash)\s*\.\s*([a-z][a-zA-Z0-9]*)\s*\(/g,
    ignore: ['chain', 'mixin', 'runInContext', 'noConflict'],
    keeps: () => false, // lodash.js holds every method: lodash/<method> loads a few small files instead
    fix: (parts) => `require ${parts.map((p) => `'lodash/${p}'`).join(' and ')} instead of the whole of lodash`,
    source: 'https://github.com/lodash/lodash/tree/4.17.21#installation',
  },
];

/**
 * @param {object} result CaptureResult (modules with absolute paths and selfMs, root)
 * @param {{ readSource?: (file: string) => string|null }} [options]
 * @returns {Array<{ kind: 'heavy-entry-point', subject: string, file: string, line: number|null,
 *   estimatedMs: number, parts: string[], evidence: string, fix: string, source: string }>}
 */
function heavyEntryPoints(result, options = {}) {
  const readSource = options.readSource || (() => null);
  const show = (file) => (result.root ? displayPath(result.root, file) : file);
  const modules = result.modules || [];
  const appFiles = modules.filter((m) => m.package === '(app)' && m.kind !== 'json').map((m) => m.file);
  const advice = [];
  for (const row of ENTRY_POINTS) {
    const own = modules.filter((m) => m.package === row.package);
    if (!own.length) continue;
    const found = new Map(); // part -> { file, line }
    for (const file of appFiles) {
      const source = readSource(file);
      if (!source) continue;
      for (const m of source.matchAll(row.parts)) {
        const part = m[1];
        if (row.ignore.includes(part) || found.has(part)) continue;
        found.set(part, { file, line: source.slice(0, m.index).split('\n').length });
      }
    }
    const parts = [...found.keys()];
    if (!parts.length || parts.length > MAX_PARTS) continue;
    // What the lighter entry would not load: the package's modules no used part needs.
    const spared = own.filter((m) => !parts.some((p) => row.keeps(m.file.split('\\').join('/'), p)));
    const estimatedMs = Math.round(spared.reduce((sum, m) => sum + (m.selfMs || 0), 0) * 100) / 100;
    if (estimatedMs < MIN_MS) continue;
    const first = found.get(parts[0]);
    advice.push({
      kind: 'heavy-entry-point',
      subject: row.package,
      file: show(first.file),
      line: first.line,
      estimatedMs,
      parts,
      evidence: `${own.length} module${own.length === 1 ? '' : 's'} of ${row.package} loaded before ready; the app's code uses ${parts.join(', ')} (${show(first.file)}:${first.line})`,
      fix: row.fix(parts),
      source: row.source,
    });
  }
  return advice;
}

module.exports = { heavyEntryPoints, ENTRY_POINTS };
