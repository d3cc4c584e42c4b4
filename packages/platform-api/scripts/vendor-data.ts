/**
 * The committed inputs of the contract, derived from two files outside the repository: the vendor's
 * OpenAPI file becomes its facts (paths, operations, parameters, schemas) without the vendor's prose,
 * and section 4 of the platform spec becomes the list of endpoints it writes out. `npm run
 * refresh-contract -- --vendor FILE --spec FILE` rewrites both (scripts/refresh.ts); nothing else
 * reads outside the repository.
 */
import { createHash } from 'node:crypto';

/** Where the derived files live, from the repository root. */
export const VENDOR_DIR = 'packages/platform-api/vendor';
export const VENDOR_FILE = `${VENDOR_DIR}/cube-platform-api.json`;
export const SPEC_ENDPOINTS_FILE = `${VENDOR_DIR}/spec-endpoints.json`;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Keys that carry prose, not facts: dropped wherever they are keywords (not names of properties). */
const PROSE = new Set(['description', 'summary', 'title', 'x-mint', 'example', 'examples', 'externalDocs']);
/** Keys whose value is a map from names (of properties, paths, status codes, media types…) to nodes. */
const NAME_MAPS = new Set([
  'paths',
  'properties',
  'patternProperties',
  'schemas',
  'responses',
  'content',
  'headers',
  'parameters',
  'requestBodies',
  'securitySchemes',
  'variables',
  '$defs',
  'dependentSchemas',
  'callbacks',
  'links',
  'mapping',
]);
/** Keys whose value is data (a literal), copied as it is. */
const DATA = new Set(['default', 'enum', 'const']);

function strip(node: Json, namesHere = false): Json {
  if (Array.isArray(node)) return node.map((n) => strip(n));
  if (node === null || typeof node !== 'object') return node;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(node)) {
    if (namesHere) out[k] = strip(v);
    else if (PROSE.has(k)) continue;
    else if (DATA.has(k)) out[k] = v;
    // `parameters` is a list under an operation and a map under components: only a map holds names.
    else out[k] = strip(v, NAME_MAPS.has(k) && !Array.isArray(v));
  }
  return out;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The vendor document without its prose, with where it came from (the source file's hash). */
export function vendorFacts(vendor: Record<string, unknown>, sourceText: string): Record<string, unknown> {
  const facts = strip(vendor as Json) as Record<string, Json>;
  return { 'x-derived-from': { sha256: sha256(sourceText), bytes: Buffer.byteLength(sourceText) }, ...facts };
}

/** One endpoint written in spec section 4: its subsection, the methods written with it (if any) and the path. */
export interface SpecEndpoint {
  section: string;
  methods: string[];
  path: string;
}

/**
 * Every absolute path the text of spec section 4 writes in backticks (`GET /api/...`, `` `PUT`, `DELETE
 * /build/...` ``), with its subsection. Relative forms (`.../x`) are not paths and are skipped.
 */
export function specEndpoints(spec: string): SpecEndpoint[] {
  const start = spec.indexOf('## 4. Endpoints');
  const end = spec.indexOf('## 5. ', start);
  if (start < 0 || end < 0) throw new Error('spec: no "## 4. Endpoints" section followed by "## 5."');
  const out: SpecEndpoint[] = [];
  let section = '4';
  for (const line of spec.slice(start, end).split('\n')) {
    const heading = /^### (4\.\d+)\b/.exec(line);
    if (heading) section = heading[1] as string;
    for (const m of line.matchAll(/`((?:[A-Z]+`, `)*[A-Z]+ )?(\/(?:api|build)[^`\s]*)`/g)) {
      const methods = (m[1] ?? '').split(/`, `|\s/).filter(Boolean);
      out.push({ section, methods, path: m[2] as string });
    }
  }
  return out;
}

/** The committed form of the spec's endpoint list, with the source's hash. */
export function specFacts(spec: string): { 'x-derived-from': { sha256: string; bytes: number }; endpoints: SpecEndpoint[] } {
  return { 'x-derived-from': { sha256: sha256(spec), bytes: Buffer.byteLength(spec) }, endpoints: specEndpoints(spec) };
}
