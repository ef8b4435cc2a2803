'use strict';
// The control app of `coldstart check`: a small real app run alternately with the app checked. It
// loads a dozen modules that each do a little of what startup code does (classes, tables, regular
// expressions, JSON, closures) and then becomes ready the way the app does, so a busy or slower
// machine stretches it as it stretches the app. Usage: node main.js listen | exit | http <port>
const parts = [
  require('./routes.js'), require('./config.js'), require('./schema.js'), require('./errors.js'),
  require('./logger.js'), require('./cache.js'), require('./headers.js'), require('./dates.js'),
  require('./ids.js'), require('./retry.js'), require('./metrics.js'), require('./templates.js'),
];
const ready = parts.reduce((n, part) => n + part.size, 0);
const [mode, port] = process.argv.slice(2);
if (mode === 'exit') {
  process.exitCode = ready > 0 ? 0 : 1;
} else {
  require('http').createServer((req, res) => res.end(String(ready))).listen(mode === 'http' ? Number(port) || 0 : 0, '127.0.0.1');
}
