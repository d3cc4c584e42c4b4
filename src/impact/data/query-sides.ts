/**
 * Key queries per side: when the pull request changes the key-queries file, production runs the base's
 * version of each query and the preview the head's, matched by name. A query only the head's file has is
 * new (the preview only), one only the base's has is gone (run on neither side). Production's rows are
 * read under the head's member names (by position in the query), so a renamed member compares with its
 * old self.
 */
import type { Row } from './compare.js';
import type { CubeQuery, KeyQuery } from './types.js';

/** The members of a query whose columns name its rows, by position: measures, dimensions, time dimensions. */
function shape(q: CubeQuery): { measures: string[]; dimensions: string[]; times: string[] } {
  return {
    measures: q.measures ?? [],
    dimensions: q.dimensions ?? [],
    times: (q.timeDimensions ?? []).map((t) => `${t.dimension}|${t.granularity ?? ''}|${t.compareDateRange === undefined ? '' : 'compare'}`),
  };
}

/** Whether the two versions ask the same question but for names: as many members of each kind, the same grains. */
function sameShape(base: CubeQuery, head: CubeQuery): boolean {
  const a = shape(base);
  const b = shape(head);
  const grains = (xs: string[]) => xs.map((x) => x.split('|').slice(1).join('|')).join(',');
  return a.measures.length === b.measures.length && a.dimensions.length === b.dimensions.length && grains(a.times) === grains(b.times);
}

/** The base's member name → the head's, for members that differ between the two versions (by position). */
export function renamedMembers(base: CubeQuery, head: CubeQuery): Map<string, string> {
  const out = new Map<string, string>();
  const a = shape(base);
  const b = shape(head);
  const pairs = (xs: string[], ys: string[]) => xs.forEach((x, i) => ys[i] !== undefined && x !== ys[i] && out.set(x, ys[i]));
  pairs(a.measures, b.measures);
  pairs(a.dimensions, b.dimensions);
  pairs(
    a.times.map((t) => t.split('|')[0] as string),
    b.times.map((t) => t.split('|')[0] as string),
  );
  return out;
}

/** Production's rows under the head's names: `orders.status` → `orders.state`, `orders.created.month` → `orders.placed.month`. */
export function rowsAsHead(rows: Row[], base: CubeQuery, head: CubeQuery): Row[] {
  const names = renamedMembers(base, head);
  if (!names.size) return rows;
  const rename = (column: string): string => {
    for (const [from, to] of names) if (column === from || column.startsWith(`${from}.`)) return `${to}${column.slice(from.length)}`;
    return column;
  };
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [rename(k), v])));
}

/** The query one side runs: production the base's version when there is one. */
export function querySide(k: KeyQuery, side: 'production' | 'preview'): CubeQuery {
  return side === 'production' && k.baseQuery ? k.baseQuery : k.query;
}

/** The result of pairing the two files: the queries to run (head's order, then the gone ones), and what was said about them. */
export interface PairedQueries {
  queries: KeyQuery[];
  notes: string[];
}

/**
 * The head's queries with the base's matched by name. Same query: as before. Another query of the same
 * shape: production runs the base's. Another shape: a new question, on the preview only. Only in the
 * head: new. Only in the base: gone.
 */
export function pairKeyQueries(head: readonly KeyQuery[], base: readonly KeyQuery[]): PairedQueries {
  const bases = new Map(base.map((k) => [k.name, k] as const));
  const notes: string[] = [];
  const queries: KeyQuery[] = head.map((k) => {
    const b = bases.get(k.name);
    if (!b) {
      notes.push(`key query "${k.name}" is new in the pull request's key-queries file: it runs on the preview only`);
      return { ...k, headOnly: true, why: k.why ?? 'new in the key-queries file' };
    }
    if (JSON.stringify(b.query) === JSON.stringify(k.query)) return k;
    if (!sameShape(b.query, k.query)) {
      notes.push(`key query "${k.name}" asks another question in the pull request's key-queries file (other members or grains): it runs on the preview only`);
      return { ...k, headOnly: true, why: k.why ?? 'asks another question than the base’s key-queries file' };
    }
    return { ...k, baseQuery: b.query };
  });
  const heads = new Set(head.map((k) => k.name));
  for (const b of base.filter((k) => !heads.has(k.name))) {
    notes.push(`key query "${b.name}" is gone from the pull request's key-queries file: not run`);
    queries.push({ ...b, baseOnly: true, why: b.why ?? 'gone from the key-queries file' });
  }
  return { queries, notes };
}
