/**
 * SQL for a normalised query from the compiler's own Postgres query class, built as Cube's server
 * builds it (inside `withQuery`, the JavaScript planner: the native one needs the native module), and
 * the bodies of `/v1/sql` and `/v1/dry-run`. Pre-aggregations are matched by the compiler's own
 * `PreAggregations` as Cube Cloud's server asks it (Cube Store for rollups, one schema for every
 * environment); the emulator's Cube Store holds no rows, so a query a rollup serves runs on the source tables.
 */
import { asApiError } from './errors.js';
import type { NormalizedQuery, QueryType } from './query.js';
import { internals, loadCompiler, type CubeCompilers } from './vendor.js';

/** The parts of the compiler's query object the engine reads. */
interface QueryObject {
  aliasNameToMember: Record<string, string>;
  order: { id: string; desc: boolean }[];
  timeDimensions: { dimension: string; unescapedAliasName(): string }[];
  dataSource: string;
  buildSqlAndParams(): [string, unknown[]];
  buildLambdaQuery(): unknown;
  externalPreAggregationQuery(): boolean;
  cacheKeyQueries(): unknown;
  collectAllMemberNames(): string[];
  preAggregations: { preAggregationsDescription(): PlannedPreAggregation[]; canUseTransformedQuery(): TransformedQuery };
}

interface TransformedQuery {
  timeDimensions?: [string, string][];
  granularityHierarchies?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What Cube reports a pre-aggregation it planned with: its id, kind and table, and the usages its matcher gave it (and more). */
export interface PlannedPreAggregation {
  preAggregationId: string;
  type: string;
  tableName: string;
  usageMapping?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What the server builds for a query (its `getSql`), before the gateway shapes it. */
export interface BuiltSql {
  external: boolean;
  sql: [string, unknown[]];
  lambdaQueries: unknown;
  timeDimensionAlias: string | undefined;
  timeDimensionField: string | undefined;
  order: { id: string; desc: boolean }[];
  cacheKeyQueries: unknown;
  preAggregations: PlannedPreAggregation[];
  dataSource: string;
  aliasNameToMember: Record<string, string>;
  canUseTransformedQuery: TransformedQuery;
  memberNames: string[];
}

/**
 * The schema of every environment's pre-aggregation tables: Cube Cloud's staging and development
 * environments share production's (cube-js/cube #11889), named as Cube names production's.
 */
export const PRE_AGGREGATIONS_SCHEMA = 'prod_pre_aggregations';

type QueryClass = new (compilers: CubeCompilers, options: Record<string, unknown>) => unknown;

/** The pre-aggregation matcher's methods that the source-tables query answers with "none". */
interface Matcher {
  findPreAggregationForQuery(): unknown;
  findPreAggregationToUseForCube(cube: string): unknown;
}

/** The methods of the compiler's query and matcher the source-tables query replaces or calls (1.7.43 internals). */
export const MATCHER_METHODS = { query: ['newPreAggregations'], matcher: ['findPreAggregationForQuery', 'findPreAggregationToUseForCube'] } as const;

/** The names in `methods` that `prototype` lacks. */
const lacking = (prototype: object, methods: readonly string[]) => methods.filter((m) => typeof (prototype as Record<string, unknown>)[m] !== 'function');

let sourceTablesQuery: QueryClass | undefined;

/**
 * Cube's Postgres query with its matcher finding no pre-aggregation (nor original SQL table): the SQL
 * of the source tables, which is what the emulator runs for a query a pre-aggregation serves.
 */
function sourceTablesQueryClass(): QueryClass {
  if (sourceTablesQuery) return sourceTablesQuery;
  const { PostgresQuery, PreAggregations } = loadCompiler();
  const missing = [...lacking(PostgresQuery.prototype, MATCHER_METHODS.query), ...lacking(PreAggregations.prototype, MATCHER_METHODS.matcher)];
  // Fail clearly on another version: these are the compiler's internals, pinned to 1.7.43.
  if (missing.length) throw new Error(`the emulator's pre-aggregation plans need @cubejs-backend/schema-compiler 1.7.43: it has no ${missing.join(', ')}`);
  const Base = PostgresQuery as unknown as new (...args: unknown[]) => { newPreAggregations(): Matcher };
  class SourceTablesQuery extends Base {
    // Sub-queries are built from `this.constructor`: they read the source tables too.
    override newPreAggregations(): Matcher {
      const matcher = super.newPreAggregations();
      matcher.findPreAggregationForQuery = () => undefined;
      matcher.findPreAggregationToUseForCube = () => null;
      return matcher;
    }
  }
  sourceTablesQuery = SourceTablesQuery;
  return sourceTablesQuery;
}

/**
 * Build the SQL of `query`; the compiler's errors (an unknown member: its `UserError`) become the gateway's
 * answers. `sourceTables`: the SQL the emulator runs (no pre-aggregation table), not the SQL Cube plans.
 */
export function buildSql(compilers: CubeCompilers, query: NormalizedQuery, securityContext: Record<string, unknown> = {}, sourceTables = false): BuiltSql {
  const { PostgresQuery, CubeStoreQuery } = loadCompiler();
  const QueryClass = sourceTables ? sourceTablesQueryClass() : (PostgresQuery as unknown as QueryClass);
  try {
    const q = new QueryClass(compilers, {
      ...query,
      timeDimensions: query.timeDimensions ?? [],
      contextSymbols: { securityContext },
      useNativeSqlPlanner: false,
      // As Cube Cloud's server creates its queries: rollups live in Cube Store, under one schema.
      externalQueryClass: CubeStoreQuery,
      preAggregationsSchema: PRE_AGGREGATIONS_SCHEMA,
    }) as QueryObject;
    return internals(compilers).withQuery(q, () => ({
      external: q.externalPreAggregationQuery(),
      sql: q.buildSqlAndParams(),
      lambdaQueries: q.buildLambdaQuery(),
      timeDimensionAlias: q.timeDimensions[0]?.unescapedAliasName(),
      timeDimensionField: q.timeDimensions[0]?.dimension,
      order: q.order,
      cacheKeyQueries: q.cacheKeyQueries(),
      preAggregations: q.preAggregations.preAggregationsDescription(),
      dataSource: q.dataSource,
      aliasNameToMember: q.aliasNameToMember,
      canUseTransformedQuery: q.preAggregations.canUseTransformedQuery(),
      memberNames: q.collectAllMemberNames(),
    }));
  } catch (e) {
    throw asApiError(e);
  }
}

/** `{ member: 'asc' | 'desc' }` from `[{ id, desc }]`. */
export function orderMap(order: { id: string; desc: boolean }[] | undefined): Record<string, 'asc' | 'desc'> {
  return Object.fromEntries((order ?? []).map(({ id, desc }) => [id, desc ? 'desc' : 'asc']));
}

/** The body of `/v1/sql`: the built SQL with `order` as a map. */
export function sqlBody(built: BuiltSql) {
  return { sql: { ...built, order: orderMap(built.order) }, dataSource: built.dataSource };
}

/**
 * The body of `/v1/dry-run`: the normalised queries (the first with `queryType`, as the gateway's pivot
 * query is that same object, a compared range its first dimension), their order, what a
 * pre-aggregation match would see, and the pivot query.
 */
export function dryRunBody(queryType: QueryType, queries: NormalizedQuery[], built: BuiltSql[]) {
  const first = queries[0] as NormalizedQuery;
  const pivot = {
    ...first,
    ...(queryType === 'compareDateRangeQuery' ? { dimensions: ['compareDateRange', ...first.dimensions] } : {}),
    queryType,
  };
  return {
    queryType,
    normalizedQueries: [pivot, ...queries.slice(1)],
    queryOrder: built.map((b) => orderMap(b.order)),
    transformedQueries: built.map((b) => b.canUseTransformedQuery),
    pivotQuery: pivot,
  };
}

/** The SQL of a query's `total` (rows without limit): the compiler's own count query. */
export function buildTotalSql(compilers: CubeCompilers, query: NormalizedQuery, securityContext: Record<string, unknown>, sourceTables = false): BuiltSql {
  const { order: _order, ...rest } = query;
  const total = { ...rest, totalQuery: true, limit: null, rowLimit: null, offset: null } as unknown as NormalizedQuery;
  return buildSql(compilers, total, securityContext, sourceTables);
}

/**
 * `usedPreAggregations` of a `/load` result, as Cube's gateway reports it to a data-API client: per table
 * (a usage's suffix added), the pre-aggregation's id, when its table was built and its type; absent when
 * none was used. `builtAt`: the emulator's tables hold no rows, so it is the time the data was read.
 */
export function usedPreAggregations(
  built: BuiltSql,
  builtAt: number,
): Record<string, { preAggregationId: string; lastUpdatedAt: number; type: string }> | undefined {
  const planned = built.preAggregations;
  if (!planned.length) return undefined;
  const used = planned.flatMap((p) => Object.keys(p.usageMapping ?? { '': null }).map((suffix) => [`${p.tableName}${suffix}`, p] as const));
  return Object.fromEntries(used.map(([table, p]) => [table, { preAggregationId: p.preAggregationId, lastUpdatedAt: builtAt, type: p.type }]));
}
