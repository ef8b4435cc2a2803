'use strict';
/** A run log cut into rounds of `size` runs (one run of each series a round). */
const roundsOf = (log, size) => Array.from({ length: Math.ceil(log.length / size) }, (_, i) => log.slice(i * size, (i + 1) * size));

module.exports = { roundsOf };
