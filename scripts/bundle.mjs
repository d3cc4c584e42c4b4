#!/usr/bin/env node
// The action's bundle: src/index.ts with rolldown into `outDir`: index.js (the entry: the command table,
// help and completion) and one file per part that a command loads when it runs, plus licenses.txt. The
// one place its options live (`npm run bundle` writes dist/; scripts/check-dist.mjs builds the same into a
// temporary folder and compares).
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { bundledLicences } from '../packages/emulator/scripts/licences.mjs';

const OURS = new Set(['datamodel-ci', '@datamodel-ci/platform-api']);

/** Bundle src/index.ts into `outDir` (emptied first). */
export async function bundle(outDir) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    input: { index: 'src/index.ts' },
    platform: 'node',
    external: [/^node:/],
    output: {
      dir: outDir,
      format: 'esm',
      entryFileNames: '[name].js',
      // A part is named after its main module and its content (a changed part gets a new name).
      chunkFileNames: '[name]-[hash].js',
      minify: true,
      comments: { legal: false },
    },
    logLevel: 'warn',
  });
  // Line ends as git keeps them (`eol=lf`): a licence written with CRLF would differ from a fresh clone's.
  writeFileSync(join(outDir, 'licenses.txt'), bundledLicences(result.output, OURS).text.replace(/\r\n?/g, '\n'));
  writeFileSync(join(outDir, 'package.json'), '{\n  "type": "module"\n}\n');
  chmodSync(join(outDir, 'index.js'), 0o755);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle(process.argv[2] ?? 'dist');
