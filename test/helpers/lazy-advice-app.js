'use strict';
// An app for the lazy-load advice and its verification: server.js requires at top level a module
// of CPU work used only by GET /heavy, one destructured where it is required, and one whose field a
// function of server.js reads at startup (coverage cannot see a read, and the source shows it only
// inside a function: only a run tells). Shared by the tests and the benchmark.
const fs = require('fs');
const path = require('path');
const { cpuWorkModule } = require('./cpu-work.js');

const SERVER = `'use strict';
const http = require('http');
const heavy = require('./heavy');
const { label } = require('./destructured');
const config = require('./config');

function portOf() { return config.port; }

http.createServer((req, res) => {
  if (req.url === '/heavy') return res.end(String(heavy.work()) + label());
  res.end('ok');
}).listen(portOf());
`;

/** Writes the app into `dir` (made if needed); heavyMs: the heavy module's work at load, idle. */
function writeLazyAdviceApp(dir, { heavyMs }) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"verify-advice","private":true}\n');
  fs.writeFileSync(path.join(dir, 'server.js'), SERVER);
  fs.writeFileSync(path.join(dir, 'heavy.js'), cpuWorkModule(heavyMs) + 'module.exports.work = function work() { return x; };\n');
  fs.writeFileSync(path.join(dir, 'destructured.js'), cpuWorkModule(8) + 'module.exports.label = function label() { return "!"; };\n');
  fs.writeFileSync(path.join(dir, 'config.js'), cpuWorkModule(5) + 'module.exports = { port: 0 };\n');
  return dir;
}

module.exports = { writeLazyAdviceApp, SERVER };
