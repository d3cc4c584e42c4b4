/**
 * What a deployment's refresh worker keeps built of production's model: its scheduled pre-aggregations,
 * each described as Cube's refresh scheduler asks the compiler (server-core's `RefreshScheduler`: a query of
 * the pre-aggregation's own members pinned to it with `preAggregationId`; an `original_sql` one through its
 * cube's first measure, else dimension), in the scheduler's default time zone, UTC. A pre-aggregation the
 * compiler cannot describe this way is left out (Cube's scheduler logs and skips it too).
 */
import { PRE_AGGREGATIONS_SCHEMA, type PlannedPreAggregation } from './sql.js';
import { internals, loadCompiler, type CubeCompilers } from './vendor.js';

/** One entry of the evaluator's `preAggregations()` (the fields read here). */
interface ScheduledEntry {
  id: string;
  cube: string;
  preAggregation: { type?: string; scheduledRefresh?: boolean };
  references: { measures?: string[]; dimensions?: string[]; timeDimensions?: unknown[]; [key: string]: unknown };
}

interface Evaluator {
  preAggregations(filter: { scheduled?: boolean }): ScheduledEntry[];
  cubeFromPath(path: string): { measures?: Record<string, unknown>; dimensions?: Record<string, unknown> };
}

interface DescribingQuery {
  preAggregations: { preAggregationsDescription(): PlannedPreAggregation[] };
}

/** The members of the query the scheduler builds a pre-aggregation through. */
function membersOf(e: ScheduledEntry, evaluator: Evaluator): Record<string, unknown> | undefined {
  if (e.preAggregation.type !== 'originalSql') return { ...e.references, timeDimensions: e.references.timeDimensions ?? [] };
  const cube = evaluator.cubeFromPath(e.cube);
  const measure = Object.keys(cube.measures ?? {})[0];
  const dimension = Object.keys(cube.dimensions ?? {})[0];
  if (measure) return { measures: [`${e.cube}.${measure}`], timeDimensions: [] };
  return dimension ? { dimensions: [`${e.cube}.${dimension}`], timeDimensions: [] } : undefined;
}

const kept = new WeakMap<CubeCompilers, PlannedPreAggregation[]>();

/** The descriptions of every scheduled pre-aggregation of a compiled model (kept per compile). */
export function scheduledPreAggregations(compilers: CubeCompilers): PlannedPreAggregation[] {
  const known = kept.get(compilers);
  if (known) return known;
  const { PostgresQuery, CubeStoreQuery } = loadCompiler();
  const QueryClass = PostgresQuery as unknown as new (c: CubeCompilers, options: Record<string, unknown>) => DescribingQuery;
  const evaluator = compilers.cubeEvaluator as unknown as Evaluator;
  const out: PlannedPreAggregation[] = [];
  for (const e of evaluator.preAggregations({ scheduled: true })) {
    const members = membersOf(e, evaluator);
    if (!members) continue;
    try {
      const q = new QueryClass(compilers, {
        ...members,
        preAggregationId: e.id,
        timezone: 'UTC',
        useNativeSqlPlanner: false,
        externalQueryClass: CubeStoreQuery,
        preAggregationsSchema: PRE_AGGREGATIONS_SCHEMA,
      });
      out.push(...internals(compilers).withQuery(q, () => q.preAggregations.preAggregationsDescription()));
    } catch {
      // Not describable as the scheduler asks: not refreshed (the scheduler logs the error and goes on).
    }
  }
  kept.set(compilers, out);
  return out;
}
