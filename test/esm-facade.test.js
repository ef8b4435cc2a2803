'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseFacade } = require('../lib/start/esm-facade.js');

const plain = (facade) => facade && { imports: facade.imports, exports: Object.fromEntries(facade.exports) };

test('esm-facade: the require(esm) shape is read as imports and the bindings it passes on', () => {
  const source = "// eslint-disable-next-line\nimport getIntrinsic from './index.js';\n\n/** @type {x} */\nexport default getIntrinsic;\n\nexport { getIntrinsic as 'module.exports' };\n";
  assert.deepEqual(plain(parseFacade(source)), {
    imports: [{ specifier: './index.js', names: [['default', 'getIntrinsic']] }],
    exports: { default: { local: 'getIntrinsic' }, 'module.exports': { local: 'getIntrinsic' } },
  });
  assert.deepEqual(plain(parseFacade('import a, { b, c as d } from "pkg"\nexport { a as default, d, b as "module.exports" }')), {
    imports: [{ specifier: 'pkg', names: [['default', 'a'], ['b', 'b'], ['c', 'd']] }],
    exports: { default: { local: 'a' }, d: { local: 'd' }, 'module.exports': { local: 'b' } },
  });
  assert.deepEqual(plain(parseFacade("export { x, y as z } from './lib.cjs';")), {
    imports: [{ specifier: './lib.cjs', names: [] }],
    exports: { x: { specifier: './lib.cjs', imported: 'x' }, z: { specifier: './lib.cjs', imported: 'y' } },
  });
});

test('esm-facade: a module with code of its own, or a form it does not know, is not a facade', () => {
  for (const source of [
    "import a from './a.js';\nconsole.log(a);\nexport default a;",
    "import a from './a.js';\nexport default a();",
    "import * as ns from './a.js';\nexport default ns;",
    "import './a.js';",
    "import a from './a.js';\nexport default b;",
    "import a from './a.js';\nexport { b };",
    "import a from `./a.js`;\nexport default a;",
    "export const x = 1;",
    "import a from './a.js'; /* unclosed",
  ]) {
    assert.equal(parseFacade(source), null, source);
  }
  assert.deepEqual(plain(parseFacade('')), { imports: [], exports: {} }, 'an empty module passes on nothing');
});
