#!/usr/bin/env node
// Run a TypeScript developer script (scripts/<name>.ts) without a build step: rolldown (a dev dependency)
// bundles the script and the project's sources it imports into .tmp/run-ts/ in a fraction of a second,
// every package left to Node, and the bundle runs. Usage: node scripts/run-ts.mjs <name> [args...]
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'rolldown';

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
const [name, ...args] = process.argv.slice(2);
if (!name) {
  process.stderr.write('usage: node scripts/run-ts.mjs <name> [args...]\n');
  process.exit(2);
}
const entry = resolve(repo, 'scripts', `${name}.ts`);
// One folder per script, so two scripts can run at once (the suite runs the demo beside the rest).
const out = join(repo, '.tmp', 'run-ts', name.replace(/[^\w.-]+/g, '_'));
mkdirSync(out, { recursive: true });
const ours = (id) => id.startsWith('@datamodel-ci/') || id.startsWith('datamodel-ci-emulator');
await build({
  input: { main: entry },
  platform: 'node',
  // Packages are Node's to load (Cube's compiler reads files beside its own); the workspace packages are sources.
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !ours(id),
  output: { dir: out, format: 'esm', entryFileNames: '[name].mjs', codeSplitting: false },
  logLevel: 'warn',
});
// The emulator's Postgres thread is a file of its own, found beside the module that starts it.
copyFileSync(join(repo, 'packages/emulator/src/engine/postgres-thread.mjs'), join(out, 'postgres-thread.mjs'));
const { main } = await import(pathToFileURL(join(out, 'main.mjs')).href);
process.exitCode = await main(args);
