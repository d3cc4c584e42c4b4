/**
 * The team's own key queries: a committed JSON file (input `data-diff-queries`), read and checked
 * before the first platform call. Its form (docs/impact.md):
 *
 *   { "queries": [ { "name": "Revenue by month", "query": { "measures": ["orders.total_amount"], … } } ] }
 *
 * (a bare list of the same items is read too). Each query is in the data API's REST format.
 */
import { readFile } from 'node:fs/promises';
import { InputError } from '../../client/errors.js';
import type { CubeQuery, KeyQuery } from './types.js';

const INPUT = 'data-diff-queries';
const MEMBER = /^[A-Za-z_]\w*\.[A-Za-z_]\w*$/;
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Why `q` is not a query the data API can run, or nothing. */
function problem(q: unknown): string | undefined {
  if (!isObject(q)) return 'is not an object';
  for (const list of ['measures', 'dimensions', 'segments'] as const) {
    const v = q[list];
    if (v === undefined) continue;
    if (!Array.isArray(v) || !v.every((m) => typeof m === 'string' && MEMBER.test(m))) return `.${list} is not a list of member names (cube.member)`;
  }
  if (q.timeDimensions !== undefined) {
    if (!Array.isArray(q.timeDimensions) || !q.timeDimensions.every((t) => isObject(t) && typeof t.dimension === 'string' && MEMBER.test(t.dimension)))
      return '.timeDimensions is not a list of { "dimension": "cube.member", … }';
  }
  if (![q.measures, q.dimensions].some((l) => Array.isArray(l) && l.length)) return 'names no measure and no dimension';
  if (q.limit !== undefined && !(Number.isInteger(q.limit) && (q.limit as number) > 0)) return '.limit is not a positive integer';
  return undefined;
}

/** Read the key-queries file at `path`; an InputError names the input, the file and the first item that is wrong. */
export async function readKeyQueriesFile(path: string, input = INPUT): Promise<KeyQuery[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new InputError(input, path, `a readable JSON file of key queries (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseKeyQueries(text, path, input);
}

/** A key-queries file's text checked (`path` names it in the error). */
export function parseKeyQueries(text: string, path: string, input = INPUT): KeyQuery[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new InputError(input, path, `a JSON file (${(e as Error).message})`);
  }
  const items = Array.isArray(doc) ? doc : isObject(doc) ? doc.queries : undefined;
  if (!Array.isArray(items)) throw new InputError(input, path, 'a JSON file holding { "queries": [ { "name": …, "query": { … } } ] }');
  const names = new Set<string>();
  return items.map((item, i) => {
    const at = `queries[${i}]`;
    if (!isObject(item)) throw new InputError(input, path, `a file whose ${at} is an object with "name" and "query"`);
    const name = typeof item.name === 'string' ? item.name.trim() : '';
    if (!name) throw new InputError(input, path, `a file whose ${at}.name is a non-empty string`);
    if (names.has(name)) throw new InputError(input, path, `a file whose query names are unique (${at}.name ${JSON.stringify(name)} is used twice)`);
    names.add(name);
    const why = problem(item.query);
    if (why) throw new InputError(input, path, `a file whose ${at}.query is a data API query (it ${why})`);
    return { name, source: 'file' as const, query: item.query as CubeQuery };
  });
}
