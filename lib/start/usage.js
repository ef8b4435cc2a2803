'use strict';
// `coldstart start --help`, and the first line of it under a command line start cannot use.
const USAGE = `usage: coldstart start --archive FILE [--mode memory|extract] [--trust-archive] [--report-file FILE] [--into DIR] [--root DIR] [--quiet] -- node [node flags] app.js [args]

Runs the app in this process with the startup files of FILE (made by coldstart pack).
--mode memory (the default): modules are resolved and read from the archive in memory; nothing
is written. A packed file missing on disk, of another size, or modified after FILE is read from
disk instead (--trust-archive: no check, the archive's copy is served).
--mode extract: the files are written over the app root, or into DIR (--into implies extract;
the app then runs from DIR, which holds only the archive's files).
--root DIR: the directory the archive's paths are under; by default pack's own rule, the nearest
folder with a package.json above the entry (give the --root pack was given).
--report-file FILE (or COLDSTART_REPORT=FILE|stderr): a JSON report of this cold start (phases,
time per package, code cache use, files that came from disk), written at the ready moment.
Node flags applied in-process: --require/-r, --import, --enable-source-maps; others are
ignored with a warning (put them in NODE_OPTIONS).
`;

module.exports = { USAGE };
