'use strict';
// Inside a benchmark container: node first-answer.js CMD...: starts the server (HOSTNAME=127.0.0.1,
// its output dropped) and prints "first-answer MS", the time from here to its first 200 to GET /
// on 127.0.0.1 (PORT, else 3000), asked every 5 ms. Ends the server after.
const { spawn } = require('node:child_process');
const http = require('node:http');
const t0 = performance.now();
const port = Number(process.env.PORT) || 3000;
const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, HOSTNAME: '127.0.0.1' } });
child.on('exit', (code) => { console.log(`ended ${code}`); process.exit(1); });
function ask() {
  http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
    res.resume();
    if (res.statusCode !== 200) return setTimeout(ask, 5);
    console.log(`first-answer ${(performance.now() - t0).toFixed(1)}`);
    child.removeAllListeners('exit');
    child.kill();
    process.exit(0);
  }).on('error', () => setTimeout(ask, 5));
}
ask();
