/**
 * A deployment's Cube Store, shared by production and every branch's environment (Cube Cloud's staging
 * and development environments use production's, cube-js/cube #11889): which pre-aggregation tables are
 * built, and which `/load` built each. Production's refresh worker keeps production's scheduled
 * pre-aggregations built; any other table is built by the first `/load` (any queryType) whose plan uses
 * it, as Cube builds a missing pre-aggregation when a query needs it, and that build is counted per table
 * and per environment. Tables are keyed as Cube tells them apart: name, structure version, partitions.
 * No rows live here: queries still read the source tables (provider.ts).
 */
import { createHash } from 'node:crypto';
import type { DeploymentRec } from '../deployments/models.js';
import type { PlannedPreAggregation } from '../engine/sql.js';

/** A table built, and by whom: production's refresh worker, or a `/load` of one environment. */
export interface BuiltTable {
  preAggregationId: string;
  /** `refresh worker` (production's scheduled pre-aggregations), or the branch whose `/load` built it. */
  builtBy: string;
  at: string;
}

/** Builds that `/load`s triggered: one table, one environment. */
export interface RollupBuild {
  /** The table's key: `<tableName>_<structure version>`. */
  table: string;
  preAggregationId: string;
  branch: string;
  production: boolean;
  count: number;
}

export interface CubeStoreRec {
  tables: Record<string, BuiltTable>;
  builds: RollupBuild[];
}

/** The emulator's structure version: a hash of what Cube's `getStructureVersion` hashes (not Cube's own text), with the partition granularity. */
export function structureVersion(p: PlannedPreAggregation): string {
  const inputs = [p.structureVersionLoadSql ?? p.loadSql, p.indexesSql, p.streamOffset, p.outputColumnTypes, p.partitionGranularity];
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 8);
}

/** How the store names a planned pre-aggregation's tables. */
export const tableKey = (p: PlannedPreAggregation): string => `${p.tableName}_${structureVersion(p)}`;

export function cubeStoreOf(d: DeploymentRec): CubeStoreRec {
  d.cubeStore ??= { tables: {}, builds: [] };
  return d.cubeStore;
}

/** Production's scheduled pre-aggregations, built by its refresh worker (never counted as a `/load`'s build). */
export function refreshed(d: DeploymentRec, scheduled: PlannedPreAggregation[], at: string): void {
  const store = cubeStoreOf(d);
  for (const p of scheduled) store.tables[tableKey(p)] ??= { preAggregationId: p.preAggregationId, builtBy: 'refresh worker', at };
}

/** The planned tables not built yet. */
export function missingTables(d: DeploymentRec, planned: PlannedPreAggregation[]): PlannedPreAggregation[] {
  const tables = d.cubeStore?.tables ?? {};
  const seen = new Set<string>();
  return planned.filter((p) => {
    const key = tableKey(p);
    if (tables[key] || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Build the missing tables for one environment's `/load`, counting each. */
export function build(d: DeploymentRec, missing: PlannedPreAggregation[], env: { branch: string; production: boolean }, at: string): void {
  const store = cubeStoreOf(d);
  for (const p of missing) {
    const table = tableKey(p);
    store.tables[table] = { preAggregationId: p.preAggregationId, builtBy: env.branch, at };
    const counted = store.builds.find((b) => b.table === table && b.branch === env.branch);
    if (counted) counted.count += 1;
    else store.builds.push({ table, preAggregationId: p.preAggregationId, branch: env.branch, production: env.production, count: 1 });
  }
}

/** What rollup-only mode answers a `/load` whose pre-aggregation is not built (the marker Cube's message starts with, our words after). */
export function notBuiltMessage(missing: PlannedPreAggregation[]): string {
  return `No pre-aggregation partitions were built yet for the pre-aggregation serving this query, and this API instance does not build pre-aggregations (rollup-only mode): ${missing.map(tableKey).join(', ')}`;
}
