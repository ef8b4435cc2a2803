// npm run test:fast's last lines: what it left out, by what those tests need (their skip lines),
// so that a green fast run is read for what it covers. A node:test reporter beside the usual one.
const LEFT_OUT = /^npm run test:fast leaves out tests that need (.+)$/;

export default async function* leftOut(source) {
  const byNeed = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const m = typeof event.data.skip === 'string' && LEFT_OUT.exec(event.data.skip);
    if (!m) continue;
    if (!byNeed.has(m[1])) byNeed.set(m[1], []);
    byNeed.get(m[1]).push(event.data.name);
  }
  const total = [...byNeed.values()].reduce((n, names) => n + names.length, 0);
  if (!total) return;
  yield `\nnpm run test:fast left out ${total} tests, which npm test runs:\n`;
  for (const [need, names] of [...byNeed].sort((a, b) => b[1].length - a[1].length)) {
    yield `  ${names.length} that need ${need}:\n${names.map((name) => `    ${name}\n`).join('')}`;
  }
}
