/**
 * SQL for a normalised query from the compiler's own Postgres query class, built as Cube's server
 * builds it (inside `withQuery`, the JavaScript planner: the native one needs the native module), and
 * the bodies of `/v1/sql` and `/v1/dry-run`.
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
  preAggregations: { preAggregationsDescription(): unknown; canUseTransformedQuery(): TransformedQuery };
}

interface TransformedQuery {
  timeDimensions?: [string, string][];
  granularityHierarchies?: Record<string, unknown>;
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
  preAggregations: unknown;
  dataSource: string;
  aliasNameToMember: Record<string, string>;
  canUseTransformedQuery: TransformedQuery;
  memberNames: string[];
}

/** Build the SQL of `query`; the compiler's errors (an unknown member: its `UserError`) become the gateway's answers. */
export function buildSql(compilers: CubeCompilers, query: NormalizedQuery, securityContext: Record<string, unknown> = {}): BuiltSql {
  const { PostgresQuery } = loadCompiler();
  try {
    const q = new PostgresQuery(compilers, {
      ...query,
      timeDimensions: query.timeDimensions ?? [],
      contextSymbols: { securityContext },
      useNativeSqlPlanner: false,
    }) as unknown as QueryObject;
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
export function buildTotalSql(compilers: CubeCompilers, query: NormalizedQuery, securityContext: Record<string, unknown>): BuiltSql {
  const { order: _order, ...rest } = query;
  return buildSql(compilers, { ...rest, totalQuery: true, limit: null, rowLimit: null, offset: null } as unknown as NormalizedQuery, securityContext);
}
