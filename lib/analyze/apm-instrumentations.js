'use strict';
// What an APM preload's instrumentations cost at startup, one by one, and whether the app loads
// the package each one instruments. OpenTelemetry's instrumentations (@opentelemetry/instrumentation-*)
// name what they patch in `new InstrumentationNodeModuleDefinition('express', ...)`; those names are
// read by parsing the package's loaded files. One for a package not loaded before ready is startup time
// for nothing: getNodeAutoInstrumentations() loads every one of some forty. Pure: sources come from readSource.
const { parseProgram, walk, calleeName, sourceSitesOf } = require('./source-sites.js');

const INSTRUMENTATION = /^@opentelemetry\/instrumentation-/;
const AUTO = '@opentelemetry/auto-instrumentations-node';
const MIN_MS = 5; // below this in all, not worth a line

/**
 * @param {object} result CaptureResult (modules with package, parent, selfMs/cpuSelfMs; builtins)
 * @param {{ readSource?: (file: string) => ?string, show?: (file: string) => string, minMs?: number }} [options]
 * @returns {{ instrumentations: Array<{ package: string, instruments: ?string[], loaded: ?boolean, ownMs: number, modules: number }>,
 *   advice: Array<object> }} instruments: null when the names could not be read; loaded: null then too
 */
function apmInstrumentations(result, options = {}) {
  const readSource = options.readSource || (() => null);
  const show = options.show || ((f) => f);
  const modules = result.modules || [];
  const byPackage = new Map();
  for (const m of modules) {
    if (!INSTRUMENTATION.test(m.package)) continue;
    if (!byPackage.has(m.package)) byPackage.set(m.package, []);
    byPackage.get(m.package).push(m);
  }
  if (!byPackage.size) return { instrumentations: [], advice: [] };
  const loadedPackages = new Set(modules.map((m) => m.package));
  const builtins = new Set(result.builtins || []);
  const isLoaded = (name) => loadedPackages.has(name) || builtins.has(`node:${name}`) || builtins.has(`node:${name.split('/')[0]}`);

  const instrumentations = [];
  for (const [pkg, own] of byPackage) {
    const instruments = instrumentedNames(own.map((m) => readSource(m.file)));
    const ownMs = own.reduce((sum, m) => sum + (m.cpuSelfMs ?? m.selfMs ?? 0), 0);
    instrumentations.push({
      package: pkg,
      instruments,
      loaded: instruments ? instruments.some(isLoaded) : null,
      ownMs: round(ownMs),
      modules: own.length,
      entry: own.reduce((a, b) => (b.startMs < a.startMs ? b : a)),
    });
  }
  instrumentations.sort((a, b) => b.ownMs - a.ownMs || a.package.localeCompare(b.package));
  const advice = adviceFor(instrumentations.filter((i) => i.loaded === false), result, readSource, show, options.minMs ?? MIN_MS);
  return { instrumentations: instrumentations.map(({ entry, ...i }) => i), advice };
}

/**
 * One finding for the instrumentations of packages never loaded, at the statement that loads them:
 * the require of the auto-instrumentations package, or each instrumentation's own require.
 */
function adviceFor(unused, result, readSource, show, minMs) {
  const ms = round(unused.reduce((sum, i) => sum + i.ownMs, 0));
  if (!unused.length || ms < minMs) return [];
  const byFile = new Map((result.modules || []).map((m) => [m.file, m]));
  const sitesOf = sourceSitesOf(readSource);
  const auto = unused.every((i) => (byFile.get(i.entry.parent) || {}).package === AUTO);
  const sites = [];
  if (auto) {
    const autoEntry = (result.modules || []).filter((m) => m.package === AUTO).sort((a, b) => a.startMs - b.startMs)[0];
    const site = autoEntry && siteOf(byFile.get(autoEntry.parent), AUTO);
    if (!site) return [];
    sites.push(site);
  } else {
    for (const i of unused) {
      const site = siteOf(byFile.get(i.entry.parent), i.package);
      if (!site) return []; // a place that cannot be named: no advice
      sites.push(site);
    }
  }
  const names = unused.map((i) => `${i.package.replace(INSTRUMENTATION, '')} (${i.instruments.join(', ')})`);
  return [{
    kind: 'apm-instrumentations',
    subject: `${unused.length} OpenTelemetry instrumentation${unused.length === 1 ? '' : 's'} for packages not loaded before ready`,
    file: sites[0].file,
    line: sites[0].line,
    column: sites[0].column,
    ...(sites.length > 1 ? { sites } : {}),
    estimatedMs: ms,
    packages: unused.map((i) => ({ package: i.package, instruments: i.instruments, ownMs: i.ownMs })),
    evidence: `${ms} ms loading ${names.slice(0, 6).join(', ')}${names.length > 6 ? ` and ${names.length - 6} more` : ''}: none of the packages they patch was loaded before ready`,
    fix: auto
      ? `list the instrumentations the app uses (e.g. new HttpInstrumentation()) instead of getNodeAutoInstrumentations(), which loads all of them whichever are enabled`
      : `remove ${unused.length === 1 ? 'this instrumentation' : 'these instrumentations'}: nothing at startup loads what ${unused.length === 1 ? 'it patches' : 'they patch'}`,
  }];

  function siteOf(parent, request) {
    if (!parent) return null;
    const parsed = sitesOf(parent.file);
    const site = parsed && parsed.imports().find((s) => s.request === request);
    return site ? { file: show(parent.file), line: site.line, column: site.column, request } : null;
  }
}

/**
 * The module names in `new InstrumentationNodeModuleDefinition(NAME, ...)` of a package's sources:
 * a string, or a name bound to a string somewhere in them (`const MODULE_NAME = 'x'`,
 * `exports.MODULE_NAME = 'x'`, `static COMPONENT = 'x'`). null when none could be read.
 */
function instrumentedNames(sources) {
  const programs = sources.map(parseProgram).filter(Boolean);
  const strings = new Map(); // a name -> the string first bound to it
  const args = [];
  for (const program of programs) {
    walk(program, (node) => {
      if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier') bind(strings, node.id.name, node.init);
      if (node.type === 'AssignmentExpression' && node.left.type === 'MemberExpression' && !node.left.computed) bind(strings, node.left.property.name, node.right);
      if (node.type === 'PropertyDefinition' && node.key.type === 'Identifier') bind(strings, node.key.name, node.value);
      if (node.type === 'NewExpression' && calleeName(node.callee) === 'InstrumentationNodeModuleDefinition' && node.arguments[0]) args.push(node.arguments[0]);
      return true;
    });
  }
  const names = [];
  for (const arg of args) {
    const name = arg.type === 'Literal' && typeof arg.value === 'string' ? arg.value
      : arg.type === 'Identifier' ? strings.get(arg.name)
        : arg.type === 'MemberExpression' && !arg.computed ? strings.get(arg.property.name) : undefined;
    if (name === undefined) return null; // one we cannot read: no claim about the rest
    if (!names.includes(name)) names.push(name);
  }
  return names.length ? names : null;
}

function bind(strings, name, value) {
  if (value && value.type === 'Literal' && typeof value.value === 'string' && !strings.has(name)) strings.set(name, value.value);
}

const round = (n) => Math.round(n * 100) / 100;

module.exports = { apmInstrumentations };
