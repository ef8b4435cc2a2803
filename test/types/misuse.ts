// Wrong uses the types must reject: tsc exits non-zero on this file.
import { capture, check, writeArchive } from 'coldstart';

void capture({ command: 'node server.js' });
void capture({ command: ['node', 'server.js'], until: { mode: 'duration' } });
const n: string = writeArchive({ root: '.', files: [], out: 'x.tar' }).files;
void n;
void check({ command: ['node', 'server.js'], tolerance: 10 });
