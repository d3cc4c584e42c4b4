/**
 * `npm run refresh-contract -- --vendor FILE [--spec FILE]`: derive the committed inputs of the contract
 * from the vendor's OpenAPI file and the platform spec (given by path; the repository never reads them
 * anywhere else), then regenerate the contract. The facts must generate the same contract as the whole
 * vendor file: a key dropped as prose that the generator needed stops the refresh.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { OVERLAY_DIR, ROOT, generateFrom, writeGenerated } from './generate.js';
import { loadOverlay } from './overlay.js';
import { SPEC_ENDPOINTS_FILE, VENDOR_FILE, specFacts, vendorFacts } from './vendor-data.js';

const USAGE = 'usage: npm run refresh-contract -- --vendor <cube-platform-api.yaml> [--spec <platform-api-spec.md>]';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The generated files apart from their first lines (the header names the source file). */
function body(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.replace(/^(\/\/[^\n]*\n)+/, '')]));
}

export function main(argv: string[]): number {
  let values: { vendor?: string; spec?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { vendor: { type: 'string' }, spec: { type: 'string' } }, strict: true }));
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!values.vendor && !values.spec) {
    console.error(`give the vendor file, the spec or both\n${USAGE}`);
    return 2;
  }
  if (values.vendor) {
    const text = readFileSync(resolve(values.vendor), 'utf8');
    const whole = parse(text) as Record<string, unknown>;
    const facts = vendorFacts(whole, text);
    const overlay = loadOverlay(join(ROOT, OVERLAY_DIR));
    const [a, b] = [body(generateFrom(whole, overlay)), body(generateFrom(facts, overlay))];
    const differing = Object.keys(a).filter((k) => a[k] !== b[k]);
    if (differing.length) {
      console.error(`the facts generate a different contract than the whole file (${differing.join(', ')}): a dropped key is needed`);
      return 1;
    }
    writeFileSync(join(ROOT, VENDOR_FILE), json(facts));
    console.log(`wrote ${VENDOR_FILE}`);
  }
  if (values.spec) {
    writeFileSync(join(ROOT, SPEC_ENDPOINTS_FILE), json(specFacts(readFileSync(resolve(values.spec), 'utf8'))));
    console.log(`wrote ${SPEC_ENDPOINTS_FILE}`);
  }
  for (const rel of writeGenerated()) console.log(`wrote ${rel}`);
  return 0;
}
