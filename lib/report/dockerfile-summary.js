'use strict';
// What `coldstart dockerfile` says it wrote: one line (the app, its package manager, Node, the way
// it starts), and with --choose the table it chose from (start-choice.js).

// How the line names each way to start but the default.
const START_NAMES = {
  snapshot: 'startup snapshot', bundle: 'ncc bundle', 'bundle-compile-cache': "ncc bundle with Node's compile cache",
  'compile-cache': "Node's compile cache", plain: 'plain node',
};

/**
 * @param {{ shownOut: string, description: object, start: string, choice?: ?object, asked?: string, color?: boolean }} written
 *   description: lib/dockerfile/detect-project.js's; asked: the requests the starts were asked, in words
 * @returns {string}
 */
function renderWritten({ shownOut, description, start, choice = null, asked = '', color = false }) {
  const command = description.lambda ? `Lambda handler ${description.lambda.handler}` : description.appCommand.join(' ');
  const line = `wrote ${shownOut}: ${command} (${description.packageManager.name}, `
    + `node ${description.node.major}${description.typescript ? ', TypeScript build' : ''}${description.next ? ', Next.js standalone' : ''}`
    + `${description.distroless ? ', distroless' : ''}${start === 'modules' ? '' : `, ${START_NAMES[start]}`})\n`;
  return choice ? line + require('./start-choice.js').renderStartChoice(choice, { color, asked }) : line;
}

module.exports = { renderWritten };
