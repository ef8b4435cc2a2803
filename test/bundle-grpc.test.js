'use strict';
// A gRPC server that reads .proto files at startup: its own (beside server.js) and one shipped
// inside a package that is required by a computed name. The bundle must start and answer both
// services, with the proto package kept in node_modules and explained.
const test = require('./helpers/suite.js').testLeftOutOfFast('ncc bundles');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { copyFixture, runCli, rm } = require('./helpers/app.js');
const { startServer } = require('./helpers/server.js');

const ECHO_PROTO = 'syntax = "proto3";\npackage echo;\nservice Echo { rpc Echo (Msg) returns (Msg) {} }\nmessage Msg { string text = 1; }\n';

/** A package that ships a .proto and reads it relative to itself, as @google-cloud/* clients do. */
function writeProtoPackage(dir) {
  const pkg = path.join(dir, 'node_modules', 'echo-protos');
  fs.mkdirSync(path.join(pkg, 'protos'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'echo-protos', version: '1.0.0', main: 'index.js' }));
  fs.writeFileSync(path.join(pkg, 'protos', 'echo.proto'), ECHO_PROTO);
  fs.writeFileSync(path.join(pkg, 'index.js'), [
    "const path = require('path');",
    'module.exports = {',
    "  protoFile: path.join(__dirname, 'protos', 'echo.proto'),",
    "  service: 'echo.Echo',",
    '  implementation: { Echo: (call, cb) => cb(null, { text: call.request.text }) },',
    '};',
    '',
  ].join('\n'));
}

function call(client, method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + 5000 }, (err, reply) => (err ? reject(err) : resolve(reply)));
  });
}

test('bundle of a gRPC server reading .proto files at startup: starts, answers, proto package kept external', async () => {
  const dir = copyFixture('grpc-proto');
  const alone = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-grpc-alone-'));
  const env = { EXTRA_PROTO_PACKAGE: 'echo-protos' };
  let server = null;
  const clients = [];
  try {
    writeProtoPackage(dir);
    const r = await runCli(['bundle', '--json', '--runs', '1', '--', 'node', 'server.js'], { cwd: dir, env });
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);

    const echo = summary.externals.find((e) => e.name === 'echo-protos');
    assert.ok(echo, `echo-protos is external: ${JSON.stringify(summary.externals)}`);
    const codes = echo.reasons.map((x) => x.code).sort();
    assert.deepEqual(codes, ['DYNAMIC_REQUIRE', 'READS_OWN_FILES']);
    assert.match(echo.reasons.find((x) => x.code === 'READS_OWN_FILES').detail, /protos\/echo\.proto/);
    assert.ok(!summary.externals.some((e) => e.name.startsWith('@grpc/')), 'grpc itself is bundled');
    assert.ok(summary.bundle.files < summary.original.files, `the bundle reads fewer files (${summary.bundle.files} < ${summary.original.files})`);

    // The output alone, in a directory of its own, with only what it needs.
    fs.cpSync(path.join(dir, 'dist-bundle'), alone, { recursive: true });
    assert.deepEqual(fs.readdirSync(path.join(alone, 'node_modules')), ['echo-protos']);
    server = await startServer(alone, ['server.js'], /grpc-proto listening on (\d+)/, { ...env, PORT: '0' });

    const load = (file, pkg) => grpc.loadPackageDefinition(protoLoader.loadSync(file, { keepCase: true }))[pkg];
    const greeterProto = load(path.join(dir, 'proto', 'greeter.proto'), 'greeter');
    const echoProto = load(path.join(dir, 'node_modules', 'echo-protos', 'protos', 'echo.proto'), 'echo');
    const address = `127.0.0.1:${server.port}`;
    const greeter = new greeterProto.Greeter(address, grpc.credentials.createInsecure());
    const echoClient = new echoProto.Echo(address, grpc.credentials.createInsecure());
    clients.push(greeter, echoClient);
    assert.deepEqual(await call(greeter, 'SayHello', { name: 'bundle' }), { message: 'hello bundle' });
    assert.deepEqual(await call(echoClient, 'Echo', { text: 'from a package proto' }), { text: 'from a package proto' });
  } finally {
    for (const c of clients) c.close();
    if (server) await server.stop();
    rm(dir);
    rm(alone);
  }
});
