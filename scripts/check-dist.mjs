#!/usr/bin/env node
// Fail when the committed dist/ differs from a fresh bundle of src/ (scripts/bundle.mjs, as `npm run bundle`).
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from './bundle.mjs';

const fresh = mkdtempSync(join(tmpdir(), 'datamodel-ci-dist-'));
try {
  await bundle(fresh);
  const names = new Set([...readdirSync(fresh), ...(existsSync('dist') ? readdirSync('dist') : [])]);
  const differing = [];
  for (const name of [...names].sort()) {
    const a = join('dist', name);
    const b = join(fresh, name);
    if (!existsSync(a)) differing.push(`${name}: missing from dist/`);
    else if (!existsSync(b)) differing.push(`${name}: in dist/ but not produced by the build`);
    else if (!readFileSync(a).equals(readFileSync(b))) differing.push(`${name}: content differs`);
  }
  if (differing.length) {
    console.error('check-dist: dist/ is not a fresh build of src/:');
    for (const d of differing) console.error(`  ${d}`);
    console.error('Run `npm run build` and commit dist/.');
    process.exit(1);
  }
  console.log('check-dist: dist/ matches a fresh build');
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
