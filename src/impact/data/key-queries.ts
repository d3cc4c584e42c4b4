/**
 * The key queries of a data diff, in the order they are worth running: the team's own (the committed
 * file), then the queries of the reports and dashboards that use a member whose numbers change (a SQL
 * API report by the members its SQL names), then generated probes for each measure changed or added:
 * its total, by month over the last 12 months its main time dimension has, and by the first string
 * dimension of its cube (the first 20 values). Capped at `maxQueries`; every query capped at `maxRows`.
 */
import type { ContentItem } from '../base/affected.js';
import { queryUses } from '../base/references.js';
import type { MetaDocument, MetaMember } from '../base/meta.js';
import type { CubeQuery, KeyQuery } from './types.js';

export interface KeyQueryInput {
  /** The committed file's queries, already read and checked. */
  file: KeyQuery[];
  /** Reports and dashboards, with their queries. */
  content: ContentItem[];
  /** Members whose numbers change (the pull request's names), and why. */
  values: ReadonlyMap<string, string>;
  /** Measures changed themselves (not only through another member), and measures added. */
  changedMeasures: string[];
  addedMeasures: string[];
  /** The pull request's `/meta`: member kinds, time and string dimensions, visibility. */
  head: MetaDocument;
  maxQueries: number;
  maxRows: number;
}

export interface KeyQueries {
  run: KeyQuery[];
  /** Found beyond the cap. */
  notRun: number;
}

const cubeOf = (m: string) => m.split('.')[0] as string;

/** A member of the pull request's `/meta` by full name. */
function metaMembers(head: MetaDocument): Map<string, MetaMember> {
  return new Map(head.cubes.flatMap((c) => c.members.filter((m) => m.visible).map((m) => [m.name, m] as const)));
}

/** A public name for a measure: itself, else a view member that stands for it. */
function queryable(measure: string, members: Map<string, MetaMember>): string | undefined {
  if (members.get(measure)?.kind === 'measure') return measure;
  return [...members.values()].find((m) => m.kind === 'measure' && m.alias === measure)?.name;
}

/** Total, by month (the last 12 months with data), by the first string dimension (the first 20 values). */
function probes(measure: string, members: Map<string, MetaMember>, label: string, headOnly: boolean): KeyQuery[] {
  const siblings = [...members.values()].filter((m) => m.kind === 'dimension' && cubeOf(m.name) === cubeOf(measure));
  const time = siblings.find((m) => m.type === 'time')?.name;
  const text = siblings.find((m) => m.type === 'string')?.name;
  const base = { source: 'probe' as const, why: label, ...(headOnly ? { headOnly } : {}) };
  const out: KeyQuery[] = [{ ...base, name: `${measure}: total`, query: { measures: [measure] } }];
  if (time) {
    out.push({
      ...base,
      name: `${measure} by month (last 12 months of ${time})`,
      query: { measures: [measure], timeDimensions: [{ dimension: time, granularity: 'month' }], order: { [time]: 'desc' }, limit: 12 },
    });
  }
  if (text)
    out.push({ ...base, name: `${measure} by ${text} (first 20)`, query: { measures: [measure], dimensions: [text], order: { [text]: 'asc' }, limit: 20 } });
  return out;
}

/** A SQL API report as a query over the members its SQL names (measures and dimensions the pull request has). */
function sqlReportQuery(sqlMembers: string[], members: Map<string, MetaMember>): CubeQuery | undefined {
  const named = sqlMembers.map((m) => members.get(m)).filter((m): m is MetaMember => !!m);
  const measures = named.filter((m) => m.kind === 'measure').map((m) => m.name);
  const dimensions = named.filter((m) => m.kind === 'dimension' && m.type !== 'time').map((m) => m.name);
  return measures.length ? { measures, ...(dimensions.length ? { dimensions } : {}) } : undefined;
}

/** A key query with its row cap: its own limit when lower, else `maxRows` (then said to be capped). */
function withCap(k: KeyQuery, maxRows: number): KeyQuery {
  const own = typeof k.query.limit === 'number' && k.query.limit > 0 ? k.query.limit : undefined;
  // Production's version of it (the base's file) is capped too: the two answers stay comparable.
  const fits = (q: CubeQuery) => typeof q.limit === 'number' && q.limit > 0 && q.limit <= maxRows;
  const base = k.baseQuery ? { baseQuery: fits(k.baseQuery) ? k.baseQuery : { ...k.baseQuery, limit: maxRows } } : {};
  if (own !== undefined && own <= maxRows) return { ...k, ...base };
  return { ...k, query: { ...k.query, limit: maxRows }, ...base, capped: true };
}

/** Every key query worth running, deduplicated, the first `maxQueries` to run. */
export function keyQueries(input: KeyQueryInput): KeyQueries {
  const members = metaMembers(input.head);
  // Gone from the pull request's file: said, never run, so never counted against the cap.
  const gone = input.file.filter((k) => k.baseOnly);
  const all: KeyQuery[] = input.file.filter((k) => !k.baseOnly);
  const uses = (q: unknown) => queryUses(q).find((u) => input.values.has(u.member))?.member;
  for (const item of input.content.filter((c) => c.kind === 'report' || c.kind === 'dashboard')) {
    for (const { place, query } of item.queries ?? []) {
      const hit = uses(query);
      const what = item.kind === 'report' ? `Report “${item.name}”` : `Dashboard “${item.name}”, ${place}`;
      if (hit) all.push({ name: what, source: item.kind === 'report' ? 'report' : 'dashboard', query: query, why: `uses ${hit}` });
    }
    const fromSql = item.sqlMembers ? sqlReportQuery(item.sqlMembers, members) : undefined;
    const hit = fromSql && [...(fromSql.measures ?? []), ...(fromSql.dimensions ?? [])].find((m) => input.values.has(m));
    if (fromSql && hit) all.push({ name: `Report “${item.name}” (the members its SQL names)`, source: 'report', query: fromSql, why: `uses ${hit}` });
  }
  for (const m of input.changedMeasures) {
    const name = queryable(m, members);
    if (name) all.push(...probes(name, members, name === m ? `${m} changed` : `${m} changed (queried as ${name})`, false));
  }
  for (const m of input.addedMeasures) if (members.get(m)?.kind === 'measure') all.push(...probes(m, members, `${m} added`, true));
  const seen = new Set<string>();
  const unique = all.filter((k) => {
    const id = JSON.stringify([k.query, !!k.headOnly, k.baseQuery ?? null]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const run = unique.slice(0, input.maxQueries).map((k) => withCap(k, input.maxRows));
  return { run: [...run, ...gone], notRun: unique.length - run.length };
}
