#!/usr/bin/env node
// Bundle the emulator for its npm package (`npm pack` runs this as prepack): dist/index.js holds the
// emulator, the platform contract and the small libraries it uses; Cube's compiler, PGlite and GitHub's
// REST description stay dependencies (large, with files they load at run time). dist/compiler-api.cjs
// holds Cube's CompilerApi (server-core's access policies, src/engine/access.ts) with its small libraries,
// so a user never installs server-core. dist/licenses.txt lists the licence of every bundled package.
import { builtinModules, createRequire } from 'node:module';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { bundledLicences } from './licences.mjs';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(here, 'dist');
const OURS = new Set(['datamodel-ci-emulator', '@datamodel-ci/platform-api']);
export const EXTERNAL = ['@cubejs-backend/schema-compiler', '@electric-sql/pglite', '@octokit/openapi'];
/** What the bundled CompilerApi loads from the installed packages: the compiler and its shared utilities. */
const API_EXTERNAL = ['@cubejs-backend/schema-compiler', '@cubejs-backend/shared'];
const asPattern = (name) => new RegExp(`^${name}(/|$)`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  input: { index: join(here, 'src/index.ts') },
  platform: 'node',
  external: [/^node:/, ...EXTERNAL.map(asPattern)],
  output: { dir: out, format: 'esm', entryFileNames: '[name].js' },
  logLevel: 'warn',
});
// One file of server-core, pinned with it (1.7.43); its native module replaced by a stub that is never called.
const api = await build({
  input: { 'compiler-api': createRequire(import.meta.url).resolve('@cubejs-backend/server-core/dist/src/core/CompilerApi.js') },
  platform: 'node',
  external: [/^node:/, ...builtinModules.map((m) => new RegExp(`^${m}$`)), ...API_EXTERNAL.map(asPattern)],
  resolve: { alias: { '@cubejs-backend/native': join(here, 'scripts/native-unused.mjs') } },
  output: { dir: out, format: 'cjs', entryFileNames: '[name].cjs' },
  logLevel: 'warn',
});
// Postgres runs in a thread of its own, from this file beside the bundle (src/engine/database.ts).
copyFileSync(join(here, 'src/engine/postgres-thread.mjs'), join(out, 'postgres-thread.mjs'));
const licences = bundledLicences([...result.output, ...api.output], OURS);
writeFileSync(join(out, 'licenses.txt'), licences.text);
console.log(`wrote ${relative(process.cwd(), join(out, 'index.js'))} with ${licences.count} bundled packages`);
