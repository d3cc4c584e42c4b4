#!/usr/bin/env node
// The action's bundle: src/index.ts into one file with ncc. The one place its flags live
// (`npm run bundle` writes dist/; scripts/check-dist.mjs builds the same into a temporary folder).
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NCC_FLAGS = ['--minify', '--no-source-map-register', '--license', 'licenses.txt', '--quiet'];

/** Bundle src/index.ts into `outDir` (index.js, executable, and licenses.txt). */
export function bundle(outDir) {
  execFileSync(process.execPath, ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', 'src/index.ts', '-o', outDir, ...NCC_FLAGS], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  chmodSync(join(outDir, 'index.js'), 0o755);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) bundle(process.argv[2] ?? 'dist');
