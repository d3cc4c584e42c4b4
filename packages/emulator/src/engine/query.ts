/**
 * A REST query as Cube's gateway takes it: read from the request, checked against the query format
 * (the first problem, in the gateway's words: `Invalid query format: "limit" must be a number`), then
 * normalised for the SQL builder: `order` as `[{ id, desc }]`, `rowLimit`, filters on `member` with
 * string values, date ranges resolved, `cube.time.granularity` dimensions moved to `timeDimensions`.
 */
import { canonicalTimeZone, resolveDateRange, resolveFilterDates } from './dates.js';
import { formatError, internalError, userError } from './errors.js';

/** The row limit when a query names none, and the most a query may ask for (Cube's defaults). */
export const DEFAULT_LIMIT = 10_000;
export const MAX_LIMIT = 50_000;

export interface TimeDimension {
  dimension: string;
  granularity?: string;
  dateRange?: [string, string];
  compareDateRange?: unknown;
}

export interface Filter {
  member?: string;
  operator?: string;
  values?: (string | null)[];
  or?: Filter[];
  and?: Filter[];
}

/** A normalised query: what the SQL builder, the annotation and the answers read. */
export interface NormalizedQuery {
  measures?: string[];
  dimensions: string[];
  segments?: string[];
  timeDimensions: TimeDimension[];
  filters: Filter[];
  order?: { id: string; desc: boolean }[];
  limit: number;
  rowLimit: number;
  offset?: number;
  timezone: string;
  cacheMode: string;
  total?: boolean;
  ungrouped?: boolean;
  responseFormat?: string;
  [key: string]: unknown;
}

const ID = /^[a-zA-Z0-9_]+\.[a-zA-Z0-9_]+$/;
const ID_OR_TIME = /^[a-zA-Z0-9_]+\.[a-zA-Z0-9_]+(\.[a-zA-Z0-9_]+)?$/;
const ORDER_KEY = /^[a-zA-Z0-9_]+\.[a-zA-Z0-9_]+$|^[a-zA-Z0-9_]+$|^[a-zA-Z0-9_]+\.[a-zA-Z0-9_]+\.[a-zA-Z0-9_]+$/;
export const OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'notStartsWith',
  'endsWith',
  'notEndsWith',
  'in',
  'notIn',
  'gt',
  'gte',
  'lt',
  'lte',
  'set',
  'notSet',
  'inDateRange',
  'notInDateRange',
  'onTheDate',
  'beforeDate',
  'beforeOrOnDate',
  'afterDate',
  'afterOrOnDate',
  'measureFilter',
];
const CACHE_MODES = ['stale-if-slow', 'stale-while-revalidate', 'must-revalidate', 'no-cache'];
const RESPONSE_FORMATS = ['default', 'compact', 'columnar'];
const KNOWN_KEYS = [
  'measures',
  'dimensions',
  'filters',
  'timeDimensions',
  'order',
  'segments',
  'timezone',
  'limit',
  'offset',
  'total',
  'cacheMode',
  'cache',
  'ungrouped',
  'responseFormat',
  'subqueryJoins',
  'joinHints',
  'maskedMembers',
  // Set by the gateway itself on queries it normalised; a client may echo them back.
  'rowLimit',
  'queryType',
  'renewQuery',
];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The `query` parameter: a JSON text (GET) or a value (POST body). */
export function parseQueryParam(raw: unknown): unknown {
  if (raw === undefined || raw === null || raw === '' || raw === 'undefined') throw userError('Query param is required');
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw userError(`Unable to decode query param as JSON, error: ${(e as Error).message}`);
  }
}

/** What kind of request a `/load` carries, as the gateway names it (`compareDateRangeQuery`: one query per compared range). */
export type QueryType = 'regularQuery' | 'compareDateRangeQuery' | 'blendingQuery';

/**
 * The gateway's queries of a request: a query with `compareDateRange` on a time dimension becomes one
 * query per range (that range as its `dateRange`); a list of queries is a blending query (not run here).
 * `cache` (the request's own parameter) sets every query's cache mode, as the gateway does.
 */
export function requestQueries(raw: unknown, cache?: unknown): { queryType: QueryType; queries: unknown[] } {
  const query = parseQueryParam(raw);
  if (Array.isArray(query)) return { queryType: 'blendingQuery', queries: query };
  const withCache = (q: unknown) => (cache !== undefined && isObject(q) ? { ...q, cacheMode: cache } : q);
  const tds = isObject(query) && Array.isArray(query.timeDimensions) ? (query.timeDimensions as unknown[]) : [];
  const compared = tds.flatMap((td, i) => (isObject(td) && td.compareDateRange != null ? [i] : []));
  if (!compared.length) return { queryType: 'regularQuery', queries: [withCache(query)] };
  if (compared.length > 1) throw userError('compareDateRange can only exist for one timeDimension');
  const at = compared[0] as number;
  const ranges: unknown = (tds[at] as Json).compareDateRange;
  if (!Array.isArray(ranges)) throw formatError(`"timeDimensions[${at}].compareDateRange" must be an array`);
  const queries = (ranges as unknown[]).map((dateRange) => {
    const { compareDateRange: _compared, ...td } = tds[at] as Json;
    return withCache({ ...(query as Json), timeDimensions: tds.map((t, i) => (i === at ? { ...td, dateRange } : t)) });
  });
  return { queryType: 'compareDateRangeQuery', queries };
}

function memberList(q: Json, key: string, pattern: RegExp): void {
  const list = q[key];
  if (list === undefined) return;
  if (!Array.isArray(list)) throw formatError(`"${key}" must be an array`);
  list.forEach((m, i) => {
    if (typeof m !== 'string') throw formatError(`"${key}[${i}]" does not match any of the allowed types`);
    if (!pattern.test(m)) throw formatError(`"${key}[${i}]" with value "${m}" fails to match the required pattern: ${pattern}`);
  });
}

function isFilter(f: unknown): boolean {
  if (!isObject(f)) return false;
  if ('or' in f || 'and' in f) {
    const list = f.or ?? f.and;
    return 'or' in f !== 'and' in f && Object.keys(f).length === 1 && Array.isArray(list) && list.every(isFilter);
  }
  const keys = Object.keys(f);
  if (keys.some((k) => !['dimension', 'member', 'operator', 'values'].includes(k))) return false;
  const target = f.member ?? f.dimension;
  if ('member' in f === 'dimension' in f || typeof target !== 'string' || !ID.test(target)) return false;
  if (typeof f.operator !== 'string' || !OPERATORS.includes(f.operator)) return false;
  const values = f.values;
  return values === undefined || (Array.isArray(values) && values.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v)));
}

function timeDimensions(q: Json): void {
  const list = q.timeDimensions;
  if (list === undefined) return;
  if (!Array.isArray(list)) throw formatError('"timeDimensions" must be an array');
  list.forEach((td, i) => {
    const at = `"timeDimensions[${i}]`;
    if (!isObject(td)) throw formatError(`${at}" must be of type object`);
    for (const k of Object.keys(td))
      if (!['dimension', 'granularity', 'dateRange', 'compareDateRange'].includes(k)) throw formatError(`${at}.${k}" is not allowed`);
    if (td.dimension === undefined) throw formatError(`${at}.dimension" is required`);
    if (typeof td.dimension !== 'string') throw formatError(`${at}.dimension" must be a string`);
    if (!ID.test(td.dimension)) throw formatError(`${at}.dimension" with value "${td.dimension}" fails to match the required pattern: ${ID}`);
    if (td.granularity !== undefined && typeof td.granularity !== 'string') throw formatError(`${at}.granularity" must be a string`);
    const range = td.dateRange;
    if (range !== undefined && typeof range !== 'string') {
      if (!Array.isArray(range)) throw formatError(`${at}.dateRange" does not match any of the allowed types`);
      if (range.length < 1) throw formatError(`${at}.dateRange" must contain at least 1 items`);
      if (range.length > 2) throw formatError(`${at}.dateRange" must contain less than or equal to 2 items`);
      range.forEach((d, j) => {
        if (typeof d !== 'string') throw formatError(`${at}.dateRange[${j}]" must be a string`);
      });
    }
    if (range !== undefined && td.compareDateRange !== undefined)
      throw formatError(`${at}" contains a conflict between optional exclusive peers [dateRange, compareDateRange]`);
  });
}

function order(q: Json): void {
  const o = q.order;
  if (o === undefined) return;
  if (isObject(o)) {
    for (const [k, dir] of Object.entries(o)) {
      if (!ORDER_KEY.test(k)) throw formatError(`"order.${k}" is not allowed`);
      if (dir !== 'asc' && dir !== 'desc') throw formatError(`"order.${k}" must be one of [asc, desc]`);
    }
    return;
  }
  if (!Array.isArray(o)) throw formatError('"order" does not match any of the allowed types');
  o.forEach((item, i) => {
    if (!Array.isArray(item) || item.length < 2) throw formatError(`"order[${i}]" does not match any of the allowed types`);
    if (typeof item[0] !== 'string' || !ORDER_KEY.test(item[0]))
      throw formatError(`"order[${i}][0]" with value "${show(item[0])}" fails to match the required pattern: ${ORDER_KEY}`);
    if (item[1] !== 'asc' && item[1] !== 'desc') throw formatError(`"order[${i}][1]" must be one of [asc, desc]`);
  });
}

function counting(q: Json, key: string): void {
  const v = q[key];
  if (v === undefined) return;
  if (typeof v !== 'number' || Number.isNaN(v)) throw formatError(`"${key}" must be a number`);
  if (!Number.isInteger(v)) throw formatError(`"${key}" must be an integer`);
  if (v < 0) throw formatError(`"${key}" must be greater than or equal to 0`);
}

function oneOf(q: Json, key: string, allowed: string[]): void {
  if (q[key] !== undefined && !allowed.includes(q[key] as string)) throw formatError(`"${key}" must be one of [${allowed.join(', ')}]`);
}

/** Check a query against the format the gateway accepts; throws its first problem. */
export function checkQueryFormat(q: unknown): asserts q is Json {
  if (!isObject(q)) throw formatError('"value" must be of type object');
  memberList(q, 'measures', ID);
  memberList(q, 'dimensions', ID_OR_TIME);
  if (q.filters !== undefined) {
    if (!Array.isArray(q.filters)) throw formatError('"filters" must be an array');
    q.filters.forEach((f, i) => {
      if (!isFilter(f)) throw formatError(`"filters[${i}]" does not match any of the allowed types`);
    });
  }
  timeDimensions(q);
  order(q);
  memberList(q, 'segments', ID);
  if (q.timezone !== undefined) {
    if (typeof q.timezone !== 'string') throw formatError('"timezone" must be a string');
    if (!canonicalTimeZone(q.timezone)) throw formatError(`"timezone" must be a valid IANA time zone, got "${q.timezone}"`);
  }
  counting(q, 'limit');
  counting(q, 'offset');
  for (const key of ['total', 'ungrouped']) if (q[key] !== undefined && typeof q[key] !== 'boolean') throw formatError(`"${key}" must be a boolean`);
  oneOf(q, 'cacheMode', CACHE_MODES);
  oneOf(q, 'cache', CACHE_MODES);
  oneOf(q, 'responseFormat', RESPONSE_FORMATS);
  for (const key of Object.keys(q)) if (!KNOWN_KEYS.includes(key)) throw formatError(`"${key}" is not allowed`);
}

function normalizeFilters(filters: Json[], timeZone: string, now: number): Filter[] {
  return filters.map((f) => {
    if (Array.isArray(f.or)) return { or: normalizeFilters(f.or as Json[], timeZone, now) };
    if (Array.isArray(f.and)) return { and: normalizeFilters(f.and as Json[], timeZone, now) };
    const operator = f.operator as string;
    const raw = f.values as unknown[] | undefined;
    if ((!raw || raw.length === 0) && !['set', 'notSet', 'measureFilter'].includes(operator))
      throw userError(`Values required for filter: ${JSON.stringify(f)}`);
    const out: Filter = { member: (f.member ?? f.dimension) as string, operator };
    if (raw)
      out.values = resolveFilterDates(
        operator,
        raw.map((v) => (v === null || v === undefined ? null : String(v as string | number | boolean))),
        timeZone,
        now,
      );
    return out;
  });
}

/** The gateway's checks and normalisation of one query (`now`: the emulator's clock, for relative dates). */
export function normalizeQuery(input: unknown, now: number): NormalizedQuery {
  checkQueryFormat(input);
  const q: Json = { ...input };
  if (['measures', 'dimensions', 'segments'].some((k) => (q[k] as string[] | undefined)?.some((m) => m.startsWith('{')))) {
    throw internalError('Expressions are not allowed in this context');
  }
  if (q.maskedMembers !== undefined) throw userError('maskedMembers cannot be provided in the query');
  const cacheMode = (q.cacheMode ?? q.cache ?? 'stale-if-slow') as string;
  delete q.cache;
  const dimensions = (q.dimensions as string[] | undefined) ?? [];
  const tds = (q.timeDimensions as Json[] | undefined) ?? [];
  if (!(q.measures as string[] | undefined)?.length && !dimensions.length && !tds.some((td) => td.granularity)) {
    throw userError('Query should contain either measures, dimensions or timeDimensions with granularities in order to be valid');
  }
  if (typeof q.limit === 'number' && q.limit > MAX_LIMIT) throw internalError('The query limit has been exceeded.');
  const limit = typeof q.limit === 'number' ? q.limit : DEFAULT_LIMIT;
  const timezone = canonicalTimeZone((q.timezone as string | undefined) ?? 'UTC') ?? 'UTC';
  const orderIn = q.order as Record<string, string> | [string, string][] | undefined;
  const orderPairs = orderIn === undefined ? undefined : Array.isArray(orderIn) ? orderIn : Object.entries(orderIn);
  return {
    ...q,
    ...(orderPairs ? { order: orderPairs.map(([id, dir]) => ({ id, desc: dir === 'desc' })) } : {}),
    limit,
    rowLimit: limit,
    timezone,
    cacheMode,
    filters: normalizeFilters((q.filters as Json[] | undefined) ?? [], timezone, now),
    dimensions: dimensions.filter((d) => d.split('.').length !== 3),
    timeDimensions: [
      ...tds.map((td) => {
        const out: TimeDimension = { ...(td as unknown as TimeDimension) };
        if (td.dateRange !== undefined) out.dateRange = resolveDateRange(td.dateRange as string | string[], timezone, now);
        return out;
      }),
      ...dimensions
        .filter((d) => d.split('.').length === 3)
        .map((d) => ({ dimension: d.split('.').slice(0, 2).join('.'), granularity: d.split('.')[2] as string })),
    ],
  };
}
