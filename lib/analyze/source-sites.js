'use strict';
// Statements in a module's source, found by parsing it (acorn), never by matching text: the
// require()/import statements that load a module, the function a CPU profile frame stands for,
// the calls of a function by name inside it. A comment or a string that mentions `require('x')`
// is not a statement. Pure: source text in, positions out (1-based lines, 1-based columns).
const acorn = require('acorn');

const PARSE_OPTIONS = {
  ecmaVersion: 'latest',
  allowHashBang: true,
  allowReturnOutsideFunction: true, // CommonJS: the module body is a function body
  allowAwaitOutsideFunction: true,
  allowImportExportEverywhere: true,
  allowReserved: true,
};

/** The program of a source (module syntax first, then script), or null when neither parses. */
function parseProgram(source) {
  if (typeof source !== 'string') return null;
  for (const sourceType of ['module', 'script']) {
    try {
      return acorn.parse(source, { ...PARSE_OPTIONS, sourceType });
    } catch { /* try the other, then give up */ }
  }
  return null;
}

/** Every node under `node`, with its ancestors; `enter` returns false to skip a node's children. */
function walk(node, enter, ancestors = []) {
  if (enter(node, ancestors) === false) return;
  ancestors.push(node);
  for (const key of Object.keys(node)) {
    if (key === 'type' || key === 'start' || key === 'end') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === 'string') walk(child, enter, ancestors);
    } else if (value && typeof value.type === 'string') walk(value, enter, ancestors);
  }
  ancestors.pop();
}

const isFunction = (node) => node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';

/** Offsets of each line's first character, to turn offsets into lines and back. */
function lineStarts(source) {
  const starts = [0];
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || (c === 13 && source.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

function positionOf(starts, offset) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}

/**
 * One parsed source and what can be asked of it. null when the source cannot be parsed.
 * @param {string} source
 */
function sourceSites(source) {
  const program = parseProgram(source);
  if (!program) return null;
  const starts = lineStarts(source);
  const at = (offset) => positionOf(starts, offset);
  let imports = null;
  return {
    /** The require()/import statements of the file (static, dynamic, re-exports), in source order. */
    imports() {
      if (!imports) imports = collectImports(program, at);
      return imports;
    },
    /**
     * The function a profile frame stands for: V8 places a function at its parameter list (0-based
     * line and column), which lies inside the function's own node and no inner one.
     */
    functionAt(line0, column0) {
      const offset = (starts[line0] ?? Infinity) + column0;
      let found = null;
      walk(program, (node) => {
        if (node.end <= offset || node.start > offset) return false;
        if (isFunction(node)) found = node;
        return true;
      });
      return found;
    },
    /**
     * Calls of `names` (a callee `x.name(...)` or `name(...)`) in a function's own body, its inner
     * functions left out (they are frames of their own); the whole program when fn is null.
     */
    callsIn(fn, names) {
      const wanted = new Set(names);
      const root = fn || program;
      const calls = [];
      walk(root, (node) => {
        if (node !== root && isFunction(node)) return false;
        if (node.type === 'CallExpression' || node.type === 'NewExpression') {
          const name = calleeName(node.callee);
          if (name && wanted.has(name)) calls.push({ name, ...at(node.start) });
        }
        return true;
      });
      return calls;
    },
    /**
     * The outermost call that starts on a line of the module's top level (its inner functions left
     * out), with the text of its callee: what a module's own top-level work at that line is.
     */
    topLevelCallOnLine(line) {
      let found = null;
      walk(program, (node) => {
        if (found) return false;
        if (isFunction(node)) return false;
        if ((node.type === 'CallExpression' || node.type === 'NewExpression') && at(node.start).line === line) {
          found = { callee: source.slice(node.callee.start, node.callee.end).replace(/\s+/g, ' ').slice(0, 60), ...at(node.start) };
          return false;
        }
        return true;
      });
      return found;
    },
  };
}

function calleeName(callee) {
  if (!callee) return null;
  if (callee.type === 'Identifier') return callee.name;
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') return callee.property.name;
  if (callee.type === 'MemberExpression' && callee.computed && callee.property.type === 'Literal') return String(callee.property.value);
  if (callee.type === 'ChainExpression') return calleeName(callee.expression);
  // TypeScript's and Babel's CommonJS output: `(0, fs_1.readFileSync)(...)`.
  if (callee.type === 'SequenceExpression') return calleeName(callee.expressions[callee.expressions.length - 1]);
  return null;
}

const stringOf = (node) => {
  if (!node) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked;
  return null;
};

/**
 * @returns {Array<{ request: string, form: 'require'|'import', dynamic: boolean, line: number, column: number,
 *   bindings: string[], typeUse: boolean, topLevelUse: boolean }>} typeUse: a binding of it is used by
 *   `extends` or `instanceof` in the file; topLevelUse: read by the file's top-level code. Either way
 *   it is used at load, which coverage of function calls cannot see
 */
function collectImports(program, at) {
  const sites = [];
  const heritage = new Set(); // names used by `extends X` / `instanceof X`
  walk(program, (node, ancestors) => {
    if ((node.type === 'ClassDeclaration' || node.type === 'ClassExpression') && node.superClass) {
      for (const name of namesIn(node.superClass)) heritage.add(name);
    }
    if (node.type === 'BinaryExpression' && node.operator === 'instanceof') for (const name of namesIn(node.right)) heritage.add(name);
    let request = null;
    let form = null;
    let dynamic = false;
    if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments.length === 1) {
      request = stringOf(node.arguments[0]);
      form = 'require';
    } else if (node.type === 'ImportExpression') {
      request = stringOf(node.source);
      form = 'import';
      dynamic = true;
    } else if (node.type === 'ImportDeclaration' || ((node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') && node.source)) {
      request = stringOf(node.source);
      form = 'import';
    }
    if (request == null) return true;
    sites.push({ request, form, dynamic, ...at(node.start), bindings: bindingsOf(node, ancestors), superClass: isSuperClass(node, ancestors) });
    return true;
  });
  const atTopLevel = topLevelReferences(program);
  return sites.map(({ superClass, ...s }) => ({
    ...s,
    typeUse: superClass || s.bindings.some((n) => heritage.has(n)),
    topLevelUse: s.bindings.some((n) => atTopLevel.has(n)),
  }));
}

/**
 * Names read by the module's own top-level code (outside its functions): a binding used there,
 * such as a router passed to `app.use(router)` or a re-export, is needed at load even when none of
 * its functions runs.
 */
function topLevelReferences(program) {
  const names = new Set();
  const declaring = new Set(); // the identifiers a declaration binds (`const { a, b: c } = ...`)
  walk(program, (node, ancestors) => {
    if (isFunction(node)) return false;
    if (node.type === 'VariableDeclarator') for (const id of patternIdentifiers(node.id)) declaring.add(id);
    if (node.type !== 'Identifier' || declaring.has(node)) return true;
    const parent = ancestors[ancestors.length - 1];
    if (!parent) return true;
    const declared = (parent.type === 'VariableDeclarator' && parent.id === node) ||
      (parent.type === 'MemberExpression' && parent.property === node && !parent.computed) ||
      ((parent.type === 'Property' || parent.type === 'PropertyDefinition' || parent.type === 'MethodDefinition') && parent.key === node && !parent.computed && !parent.shorthand) ||
      /^(Import|Export)\w*Specifier$/.test(parent.type) || parent.type === 'LabeledStatement' ||
      ((parent.type === 'ClassDeclaration' || parent.type === 'FunctionDeclaration') && parent.id === node);
    if (!declared) names.add(node.name);
    return true;
  });
  return names;
}

/** Identifiers an expression reads: `X`, `X.Y` (X), `require('x').Y` (none). */
function namesIn(node) {
  if (node.type === 'Identifier') return [node.name];
  if (node.type === 'MemberExpression') return namesIn(node.object);
  return [];
}

/** `class A extends require('x')` or `extends require('x').B`: the module is used at load. */
function isSuperClass(node, ancestors) {
  let child = node;
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const up = ancestors[i];
    if ((up.type === 'ClassDeclaration' || up.type === 'ClassExpression') && up.superClass === child) return true;
    if (up.type !== 'MemberExpression') return false;
    child = up;
  }
  return false;
}

/** The names a require/import statement binds: `const X = require()`, `const { a, b: c } =`, `import X, { y as z }`. */
function bindingsOf(node, ancestors) {
  if (node.type === 'ImportDeclaration') return node.specifiers.map((s) => s.local.name);
  // Through `await import(...)`, `require(...).x` and `a?.b` to what takes the value.
  let child = node;
  let i = ancestors.length - 1;
  for (; i >= 0; i--) {
    const up = ancestors[i];
    if (!(up.type === 'AwaitExpression' || up.type === 'ChainExpression' || (up.type === 'MemberExpression' && up.object === child))) break;
    child = up;
  }
  const up = ancestors[i];
  if (up && up.type === 'VariableDeclarator' && up.init === child) return patternNames(up.id);
  if (up && up.type === 'AssignmentExpression' && up.right === child && up.left.type === 'Identifier') return [up.left.name];
  return [];
}

function patternIdentifiers(pattern) {
  if (!pattern) return [];
  if (pattern.type === 'Identifier') return [pattern];
  if (pattern.type === 'ObjectPattern') {
    return pattern.properties.flatMap((p) => (p.type === 'RestElement' ? patternIdentifiers(p.argument) : [...(p.shorthand ? [p.key] : []), ...patternIdentifiers(p.value)]));
  }
  if (pattern.type === 'ArrayPattern') return pattern.elements.flatMap((e) => patternIdentifiers(e));
  if (pattern.type === 'AssignmentPattern') return patternIdentifiers(pattern.left);
  if (pattern.type === 'RestElement') return patternIdentifiers(pattern.argument);
  return [];
}

function patternNames(pattern) {
  if (!pattern) return [];
  if (pattern.type === 'Identifier') return [pattern.name];
  if (pattern.type === 'ObjectPattern') return pattern.properties.flatMap((p) => patternNames(p.type === 'RestElement' ? p.argument : p.value));
  if (pattern.type === 'ArrayPattern') return pattern.elements.flatMap((e) => patternNames(e));
  if (pattern.type === 'AssignmentPattern') return patternNames(pattern.left);
  if (pattern.type === 'RestElement') return patternNames(pattern.argument);
  return [];
}

/** sourceSites of files read with readSource, each parsed once (null for one that cannot be). */
function sourceSitesOf(readSource) {
  const parsed = new Map();
  return (file) => {
    if (!parsed.has(file)) parsed.set(file, sourceSites(readSource(file)));
    return parsed.get(file);
  };
}

module.exports = { sourceSites, sourceSitesOf, parseProgram, walk, calleeName };
