#!/usr/bin/env node
// Bundle the emulator for its npm package (`npm pack` runs this as prepack): dist/index.js holds the
// emulator, the platform contract and the small libraries it uses; Cube's compiler, PGlite and GitHub's
// REST description stay dependencies (large, with files they load at run time). dist/licenses.txt lists
// the licence of every bundled package.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(here, 'dist');
const OURS = new Set(['datamodel-ci-emulator', '@datamodel-ci/platform-api']);
export const EXTERNAL = ['@cubejs-backend/schema-compiler', '@electric-sql/pglite', '@octokit/openapi'];

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

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  input: { index: join(here, 'src/index.ts') },
  platform: 'node',
  external: [/^node:/, ...EXTERNAL.map((name) => new RegExp(`^${name}(/|$)`))],
  output: { dir: out, format: 'esm', entryFileNames: '[name].js' },
  logLevel: 'warn',
});
const packages = new Map();
for (const chunk of result.output) {
  for (const id of chunk.type === 'chunk' ? chunk.moduleIds : []) {
    const found = id.startsWith('\0') ? undefined : owner(id);
    if (found && !OURS.has(found.pkg.name)) packages.set(`${found.pkg.name}@${found.pkg.version}`, found);
  }
}
const sections = [...packages.keys()].sort().map((key) => {
  const { dir, pkg } = packages.get(key);
  return `${key}\n${pkg.license ?? 'see the package'}\n${licenceText(dir)}`.trim();
});
writeFileSync(join(out, 'licenses.txt'), `${sections.join('\n\n')}\n`);
console.log(`wrote ${relative(process.cwd(), join(out, 'index.js'))} with ${packages.size} bundled packages`);
