// The licence text of every package a rolldown build bundled (its `licenses.txt`): the emulator's package
// (build.mjs here) and the action's bundle (scripts/bundle.mjs at the root of the repository).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package a bundled file belongs to: its nearest package.json with a name, and that folder. */
function owner(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    if (pkg.name) return { dir, pkg };
  }
  return undefined;
}

function licenceText(dir) {
  for (const name of ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license', 'LICENCE']) {
    if (existsSync(join(dir, name))) return readFileSync(join(dir, name), 'utf8').trim();
  }
  return '';
}

/** `licenses.txt` for a build's output: one section per bundled package but `ours`, sorted by name. */
export function bundledLicences(output, ours) {
  const packages = new Map();
  for (const chunk of output) {
    for (const id of chunk.type === 'chunk' ? chunk.moduleIds : []) {
      const found = id.startsWith('\0') ? undefined : owner(id);
      if (found && !ours.has(found.pkg.name)) packages.set(`${found.pkg.name}@${found.pkg.version}`, found);
    }
  }
  const sections = [...packages.keys()].sort().map((key) => {
    const { dir, pkg } = packages.get(key);
    return `${key}\n${pkg.license ?? 'see the package'}\n${licenceText(dir)}`.trim();
  });
  return { count: packages.size, text: `${sections.join('\n\n')}\n` };
}
