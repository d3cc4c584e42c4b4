/** The data diff's shapes: key queries, how each ran on the two environments, and what moved. */
import type { CubeQuery, RollupBuild } from '../base/types.js';

export type { CubeQuery } from '../base/types.js';

export type KeySource = 'file' | 'report' | 'dashboard' | 'probe';

export interface KeyQuery {
  name: string;
  source: KeySource;
  query: CubeQuery;
  /** Why it was picked (`uses orders_view.total_amount`, `total of orders.total_amount`). */
  why?: string;
  /** Runs on the preview only (a measure production does not have yet). */
  headOnly?: boolean;
  /** What production runs instead of `query`: the base's key-queries file asks this query by the same name otherwise. */
  baseQuery?: CubeQuery;
  /** The base's key-queries file has it, the pull request's does not: run on neither side, said "gone". */
  baseOnly?: boolean;
  /** Its limit is the row cap (`maxRows`), not its own: a full answer may have left rows out. */
  capped?: boolean;
}

/** `values`: numbers shown; `relative`: only relative changes and row counts, never a value or a key. */
export type DataDiffMode = 'values' | 'relative';

export interface DataDiffLimits {
  maxQueries: number;
  maxRows: number;
  /** Queries in flight on each environment. */
  concurrency: number;
  /** How long one query may take on one environment (its "Continue wait" polls included), ms. */
  queryTimeoutMs: number;
  /** A value differs when it moves by more than both: absolute, and relative (a fraction of the larger). */
  absTolerance: number;
  relTolerance: number;
}

/** One measure's largest move in a query: absolute and relative, with the row it happened in (values mode). */
export interface LargestChange {
  measure: string;
  /** Preview minus production; absent in relative mode. */
  abs?: number;
  /** (preview − production) / |production|; absent when production is 0. */
  rel?: number;
  /** The row's key (`orders.status = completed`); absent in relative mode. */
  key?: string;
  base?: number | string | null;
  head?: number | string | null;
}

export interface ChangedRow {
  key: string;
  measure: string;
  base: number | string | null;
  head: number | string | null;
  abs?: number;
  rel?: number;
}

export interface QueryComparison {
  rows: { base: number; head: number };
  /** Rows whose key is on one side only. */
  added: number;
  removed: number;
  /** Rows present on both sides with a measure beyond the tolerance. */
  changed: number;
  /** The largest change of each measure that moved, largest relative first. */
  largest: LargestChange[];
  /** The rows that moved most (values mode; at most a few dozen), added and removed keys too. */
  top: ChangedRow[];
  addedKeys: string[];
  removedKeys: string[];
  /** A side returned as many rows as asked: rows past the limit were not compared. */
  truncated: boolean;
  /** Rows (keys) left out because their period ends after the older answer was read, and that read time. */
  afterRefresh?: number;
  refreshedAt?: string;
}

export interface QueryOutcome {
  name: string;
  source: KeySource;
  why?: string;
  query: CubeQuery;
  status: 'unchanged' | 'changed' | 'failed' | 'new' | 'gone' | 'skipped';
  comparison?: QueryComparison;
  /** Skipped: its load on the preview would build these pre-aggregations in the shared Cube Store (run on neither side). */
  wouldBuild?: RollupBuild[];
  /** A side that failed, and how (a failure is never counted as a difference). */
  failed?: { side: 'production' | 'preview' | 'both'; message: string };
  ms: { base?: number; head?: number };
  /** Each side's `lastRefreshTime`: when the data of its answer was read. */
  refreshed?: { base?: string; head?: string };
}

export interface DataDiffResult {
  mode: DataDiffMode;
  queries: QueryOutcome[];
  /** Key queries found beyond `maxQueries`, not run. */
  notRun: number;
  /** Queries whose results differ beyond the tolerance. */
  changed: number;
  notices: string[];
  elapsedMs: number;
  limits: DataDiffLimits;
  /** Requests sent to each environment's data API (every poll and repeat counted): the tiers' daily query quota counts them. */
  requests?: { production: number; preview: number };
  /** The oldest `lastRefreshTime` of each side's answers. */
  refreshed?: { production?: string; preview?: string };
  /** Whose numbers they are: the security context the key queries ran with (absent in results recorded before). */
  context?: ContextShown;
}

/** A security context as a reader may see it: its groups, and the names of its other keys (never their values). */
export interface ContextShown {
  groups: string[];
  keys: string[];
}

/** What `contextShown` tells of a context: the groups Cube Cloud reads (`groups`, else `cubeCloud.groups`), the other keys by name. */
export function contextShown(context: Record<string, unknown>): ContextShown {
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string') : undefined);
  const cloud = context.cubeCloud && typeof context.cubeCloud === 'object' ? (context.cubeCloud as Record<string, unknown>) : {};
  const groups = strings(context.groups) ?? strings(cloud.groups) ?? [];
  return { groups: [...new Set(groups)], keys: Object.keys(context).filter((k) => k !== 'groups' && k !== 'cubeCloud') };
}

/** The data diff's inputs, read and checked with the other inputs (src/settings.ts) before the first network call. */
export interface DataDiffSettings {
  mode: DataDiffMode | 'off';
  allowPublic: boolean;
  /** Let the preview's loads run when they would build a pre-aggregation production lacks (input `data-diff-build-rollups`; absent: false). */
  buildRollups?: boolean;
  /** Path of the key-queries file (read by the command before its first call). */
  queriesFile?: string;
  /** Path of the base's key-queries file (`--data-diff-base-queries`): production runs its queries, matched by name. */
  baseQueriesFile?: string;
  securityContext: Record<string, unknown>;
  limits: DataDiffLimits;
  failOnChange: boolean;
  /** Fail when a key query loses its rollup on the preview (input `fail-on-rollup-loss`; absent: false). */
  failOnRollupLoss?: boolean;
}
