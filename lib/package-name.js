'use strict';
// Which npm package a file or a bare specifier belongs to.

/** Package a file belongs to: the last node_modules segment decides. */
function packageOf(file) {
  const parts = file.split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  if (i === -1 || i + 1 >= parts.length) return '(app)';
  const name = parts[i + 1];
  if (name.startsWith('@') && i + 2 < parts.length) return `${name}/${parts[i + 2]}`;
  return name;
}

/** The package a bare specifier names: 'express/lib/x' -> 'express', '@scope/pkg/x' -> '@scope/pkg'. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return parts[0].startsWith('@') && parts.length > 1 ? `${parts[0]}/${parts[1]}` : parts[0];
}

module.exports = { packageOf, packageName };
