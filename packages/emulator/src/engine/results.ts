/**
 * The answer of `/v1/load`, shaped as Cube's result transform shapes it: rows keyed by member name in
 * column order, every number a string (as Postgres prints it), times as `YYYY-MM-DDTHH:mm:ss.SSS`,
 * a bare `cube.time` key next to `cube.time.granularity`, the `annotation` of every member, and the
 * query echoed with a fixed set of keys.
 */
import { ApiError } from './errors.js';
import { findMember, type MetaCube, type MetaMember } from './meta.js';
import type { NormalizedQuery, QueryType } from './query.js';
import type { QueryResult } from './database.js';

type Item = Record<string, unknown>;

export interface Annotation {
  measures: Record<string, Item>;
  dimensions: Record<string, Item>;
  segments: Record<string, Item>;
  timeDimensions: Record<string, Item>;
}

const PREDEFINED = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];
/** Finer granularities first: when one time dimension has several, the bare key takes the finest. */
const FINENESS: Record<string, number> = Object.fromEntries(PREDEFINED.map((g, i) => [g, i]));

const defined = (o: Item): Item => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function item(m: MetaMember, kind: 'measures' | 'dimensions' | 'segments'): Item {
  return defined({
    title: m.title,
    shortTitle: m.shortTitle,
    description: m.description,
    type: m.type,
    format: m.format,
    currency: m.currency,
    meta: m.meta,
    ...(kind === 'measures' ? { drillMembers: m.drillMembers, drillMembersGrouped: m.drillMembersGrouped } : {}),
  });
}

/** The annotation of a query's members, from the visible cubes (a hidden member has none). */
export function annotate(cubes: MetaCube[], q: NormalizedQuery): Annotation {
  const pairs = (names: string[] | undefined, kind: 'measures' | 'dimensions' | 'segments') =>
    Object.fromEntries(
      (names ?? []).flatMap((n) => {
        const m = findMember(cubes, kind, n);
        return m ? [[n, item(m, kind)]] : [];
      }),
    );
  const timeDimensions: Record<string, Item> = {};
  for (const td of q.timeDimensions.filter((t) => t.granularity)) {
    const m = findMember(cubes, 'dimensions', td.dimension);
    if (!m) continue;
    const g = td.granularity as string;
    const granularity = PREDEFINED.includes(g) ? { name: g, title: g, interval: `1 ${g}` } : m.granularities?.find((x) => x.name === g);
    timeDimensions[`${td.dimension}.${g}`] = defined({ ...item(m, 'dimensions'), granularity });
    // Older clients read the time dimension without its granularity too.
    if (!q.dimensions.includes(td.dimension)) timeDimensions[td.dimension] = item(m, 'dimensions');
  }
  return { measures: pairs(q.measures, 'measures'), dimensions: pairs(q.dimensions, 'dimensions'), segments: pairs(q.segments, 'segments'), timeDimensions };
}

/** A time as the result transform prints it: local time with milliseconds, no zone (UTC when Postgres gives one). */
export function formatTime(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}:\d{2})(\.\d+)?)?([+-]\d{2}(?::?\d{2})?|Z)?$/.exec(value);
  if (!m) return value;
  const [, date, time = '00:00:00', frac = '', zone] = m;
  const local = `${date}T${time}${`${frac || '.'}000`.slice(0, 4)}`;
  if (!zone || zone === 'Z' || /^[+-]00(:?00)?$/.test(zone)) return local;
  return new Date(`${date}T${time}${frac}${zone.length === 3 ? `${zone}:00` : zone}`).toISOString().slice(0, 23);
}

function hiddenMember(member: string): ApiError {
  return new ApiError(500, {
    error: `Error: You requested hidden member: '${member}'. Please make it visible using \`public: true\`. Please note primaryKey fields are \`public: false\` by default: https://docs.cube.dev/reference/data-modeling/joins#setting-a-primary-key.`,
  });
}

/** The rows of a result: members in column order, numbers as strings, times re-formatted, bare time keys added. */
export function transformRows(result: QueryResult, aliasToMember: Record<string, string>, annotation: Annotation, q: NormalizedQuery): Rows {
  const known: Record<string, Item> = { ...annotation.measures, ...annotation.dimensions, ...annotation.timeDimensions };
  const columns = result.fields.map((f) => {
    const member = aliasToMember[f.name];
    if (!member) throw new ApiError(500, { error: `Error: Missing member name for alias: ${f.name}` });
    if (!known[member]) throw hiddenMember(member);
    return { alias: f.name, member, time: known[member]?.type === 'time' };
  });
  if (!columns.length) for (const m of [...(q.measures ?? []), ...q.dimensions]) if (!known[m]) throw hiddenMember(m);
  const bare = new Map<string, string>();
  for (const c of columns) {
    const [cube, field, granularity] = c.member.split('.');
    if (granularity === undefined) continue;
    const base = `${cube}.${field}`;
    if (q.dimensions.includes(base)) continue;
    const current = bare.get(base);
    if (!current || (FINENESS[granularity] ?? 99) <= (FINENESS[current.split('.')[2] as string] ?? 99)) bare.set(base, c.member);
  }
  const rows = result.rows.map((row) => {
    const out: Item = {};
    for (const c of columns) out[c.member] = c.time ? formatTime(row[c.alias]) : row[c.alias];
    for (const [base, member] of bare) out[base] = out[member];
    return out;
  });
  return { members: [...columns.map((c) => c.member), ...bare.keys()], rows };
}

/** Rows of a result, and their keys in order. */
export interface Rows {
  members: string[];
  rows: Item[];
}

/** The `compact` response format: member names once, then the rows as arrays. */
export function compact({ members, rows }: Rows): { members: string[]; dataset: unknown[][] } {
  return { members, dataset: rows.map((r) => members.map((m) => r[m])) };
}

/** The query as a result echoes it: fixed keys in a fixed order; unknown keys and `cacheMode` left out. */
export function echoQuery(q: NormalizedQuery, queryType?: string): Item {
  return defined({
    measures: q.measures,
    dimensions: q.dimensions,
    timeDimensions: q.timeDimensions.map((td) => ({
      dimension: td.dimension,
      dateRange: td.dateRange ?? null,
      compareDateRange: td.compareDateRange ?? null,
      granularity: td.granularity ?? null,
    })),
    segments: q.segments,
    limit: q.limit,
    offset: q.offset,
    total: q.total,
    totalQuery: q.totalQuery,
    timezone: q.timezone,
    renewQuery: q.renewQuery,
    ungrouped: q.ungrouped,
    responseFormat: q.responseFormat,
    filters: q.filters,
    rowLimit: q.rowLimit,
    order: q.order,
    queryType,
  });
}

/** The pre-aggregations Cube planned a query on (`usedPreAggregations`), and whether it reads Cube Store. */
export interface PlannedOn {
  used?: Record<string, unknown>;
  external: boolean;
}

/** One result of a load: the query, when its data was read, the pre-aggregations it used, the annotation, where it ran, the rows. */
export function loadResult(q: NormalizedQuery, annotation: Annotation, rows: Rows, lastRefreshTime: string, total?: number, planned?: PlannedOn): Item {
  return defined({
    query: echoQuery(q),
    lastRefreshTime,
    usedPreAggregations: planned?.used,
    annotation,
    dataSource: 'default',
    dbType: 'postgres',
    extDbType: 'cubestore',
    external: planned?.external ?? false,
    slowQuery: false,
    total: q.total ? total : undefined,
    data: q.responseFormat === 'compact' ? compact(rows) : rows.rows,
  });
}

/** The field a compareDateRange result's rows carry: the range they answer, its two ends joined as the gateway joins them. */
export const COMPARE_FIELD = 'compareDateRange';

/** Tag each row of one compared range with that range (`2025-01-01T00:00:00.000 - 2025-01-31T23:59:59.999`). */
export function tagRange(rows: Rows, q: NormalizedQuery): Rows {
  const range = q.timeDimensions.find((td) => td.dateRange)?.dateRange?.join(' - ') ?? null;
  return { members: [...rows.members, COMPARE_FIELD], rows: rows.rows.map((r) => ({ ...r, [COMPARE_FIELD]: range })) };
}

/**
 * `queryType=multi` (what the vendor's client sends): the results, and the query a pivot reads (a
 * compareDateRange query's has the range as its first dimension).
 */
export function multiBody(queryType: QueryType, queries: NormalizedQuery[], results: Item[]): Item {
  const first = queries[0] as NormalizedQuery;
  const pivotQuery = echoQuery(first, queryType);
  if (queryType === 'compareDateRangeQuery') pivotQuery.dimensions = [COMPARE_FIELD, ...first.dimensions];
  return { queryType, results, pivotQuery, slowQuery: false };
}
