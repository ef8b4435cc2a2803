'use strict';
// A CPU profile comes back from the app as one WebSocket message; chrome-remote-interface caps
// messages at 256 MiB, past which a big app's profile was lost after the whole capture. A real
// WebSocket endpoint answers Profiler.stop with a message over that cap.
const test = require('node:test');
const assert = require('node:assert');
const WebSocket = require('ws');
const { connectWithRetry } = require('../lib/capture/inspector.js');

test('capture: a profile message over 256 MiB is received whole', async () => {
  const server = new WebSocket.Server({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => server.once('listening', r));
  const urlLength = 260 * 1024 * 1024;
  server.on('connection', (socket) => {
    socket.on('message', (data) => {
      const { id } = JSON.parse(data);
      // The answer's JSON written straight into one buffer: a url of 260 MiB of 'x' between its head and tail.
      const head = `{"id":${id},"result":{"profile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"`;
      const tail = '"}}],"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}}}';
      const message = Buffer.alloc(head.length + urlLength + tail.length, 'x');
      message.write(head, 0);
      message.write(tail, head.length + urlLength);
      socket.send(message, { binary: false });
    });
  });
  const client = await connectWithRetry(`ws://127.0.0.1:${server.address().port}/session`);
  try {
    const { profile } = await client.send('Profiler.stop');
    assert.strictEqual(profile.nodes[0].callFrame.url.length, urlLength);
  } finally {
    await client.close();
    server.close();
  }
});
