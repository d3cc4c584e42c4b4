/**
 * `node scripts/run-ts.mjs demo-model DIR`: write the emulator's demo model (cube.js and model/) into DIR,
 * a model folder the actions can upload (the workflow's self-test uses it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';

export function main(args: string[]): number {
  const [dir] = args;
  if (!dir || args.length !== 1) {
    console.error('usage: node scripts/run-ts.mjs demo-model DIR');
    return 2;
  }
  for (const [path, text] of Object.entries(DEMO_MODEL)) {
    const file = join(resolve(dir), path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  console.log(`wrote ${Object.keys(DEMO_MODEL).length} files of the demo model to ${dir}`);
  return 0;
}
