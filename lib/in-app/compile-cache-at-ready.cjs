'use strict';
// Preloaded (NODE_OPTIONS=--require) with NODE_COMPILE_CACHE set, by `coldstart dockerfile
// --choose`, the Dockerfiles it writes and the benchmark image: Node's compile cache built as an
// image build would, by one run up to the ready moment, then the process exits, for Node writes its
// cache out at a normal exit.
const { onReadyMoment, readyMoment } = require('./ready-moment.cjs');

onReadyMoment(readyMoment(), () => setImmediate(() => process.exit(0)));
