/**
 * Which of this run's loads on the preview would build a pre-aggregation: Cube builds a missing one on the
 * first `/load` that needs it, and branch environments share production's Cube Store (cube-js/cube #11889),
 * so a load served by a rollup the pull request changes builds its partitions from the warehouse there. Read
 * from the rollup plans (`/v1/sql`, run first): a preview plan naming a table production's plans never name
 * (Cube tells tables apart by name and structure: build SQL, indexes, partitions), or a rollup the merge
 * rebuilds. Pure: the plans are made in src/operations/rollup-plans.ts, the loads skipped by their callers.
 */
import type { BuildReason, RollupBuild } from '../base/types.js';
import type { PlanSide, PlannedRollup, QueryPlan, RebuiltRollup } from './compare.js';

export type { RollupBuild } from '../base/types.js';

/** What production's plans say it has built: its tables (name and structure), and the rollups' ids and table names. */
export interface ProductionTables {
  tables: Set<string>;
  names: Set<string>;
}

export interface BuildGuard {
  /** `data-diff-build-rollups`: the loads run (and build) all the same. */
  allow: boolean;
  production: ProductionTables;
  /** Rollups the merge rebuilds (by id). */
  rebuilt: Set<string>;
  /** Each key query's preview plan, under the run's own security context. */
  preview: Map<string, PlanSide>;
  /** Set when a load whose preview plan is not known would be skipped: the cubes whose pre-aggregations may change. */
  unplanned?: string;
}

/** A table as Cube keys it: its name, then the inputs of its structure version and its partitions. */
export const tableKey = (e: PlannedRollup): string =>
  JSON.stringify([e.tableName ?? e.id, e.loadSql ?? null, e.indexesSql ?? null, e.partitionGranularity ?? null]);

/** The tables and rollups named by production's side of the plans. */
export function productionTables(sides: readonly (PlanSide | undefined)[]): ProductionTables {
  const out: ProductionTables = { tables: new Set(), names: new Set() };
  for (const side of sides) {
    if (!side || 'error' in side) continue;
    for (const e of side.entries) {
      out.tables.add(tableKey(e));
      out.names.add(e.id);
      if (e.tableName) out.names.add(e.tableName);
    }
  }
  return out;
}

export function buildGuard(plans: readonly QueryPlan[], rebuilt: readonly RebuiltRollup[], allow: boolean, unplanned: string | undefined): BuildGuard {
  const preview = new Map<string, PlanSide>();
  for (const p of plans) if (!p.persona) preview.set(p.query, p.preview);
  return {
    allow,
    production: productionTables(plans.map((p) => p.production)),
    rebuilt: new Set(rebuilt.map((r) => r.rollup)),
    preview,
    ...(unplanned ? { unplanned } : {}),
  };
}

/**
 * The rollups a preview load planned as `side` would build (each once), nothing when production has every
 * table the plan names; `also`: production's side of the same query, planned beside it (a probe's).
 */
export function buildsOf(g: BuildGuard, side: PlanSide | undefined, also?: PlanSide): RollupBuild[] {
  if (!side || 'error' in side) return g.unplanned ? [{ rollup: g.unplanned, reason: 'unplanned' }] : [];
  const known = also ? productionTables([also]) : undefined;
  const out: RollupBuild[] = [];
  for (const e of side.entries) {
    if (out.some((b) => b.rollup === e.id)) continue;
    const key = tableKey(e);
    const has = (p: ProductionTables) => p.tables.has(key);
    const named = (p: ProductionTables) => p.names.has(e.id) || (!!e.tableName && p.names.has(e.tableName));
    if (g.rebuilt.has(e.id)) out.push({ rollup: e.id, reason: 'changed' });
    else if (has(g.production) || (known && has(known))) continue;
    else out.push({ rollup: e.id, reason: named(g.production) || (!!known && named(known)) ? 'changed' : 'unseen' });
  }
  return out;
}

/** The key query's preview load would build these (nothing: it may run). */
export const keyQueryBuilds = (g: BuildGuard, name: string): RollupBuild[] => buildsOf(g, g.preview.get(name));

/** What the run's loads came to: the key queries and probes skipped (or, allowed, run) that would build, and the rollups. */
export interface BuildSkips {
  allowed: boolean;
  rollups: RollupBuild[];
  keyQueries: string[];
  probes: number;
}

/** Each rollup once (the first reason given). */
export function distinctBuilds(lists: readonly RollupBuild[][]): RollupBuild[] {
  const out: RollupBuild[] = [];
  for (const b of lists.flat()) if (!out.some((x) => x.rollup === b.rollup)) out.push(b);
  return out;
}

export const REASON_WORDS: Record<BuildReason, string> = {
  changed: 'changed',
  unseen: "not in production's plans",
  unplanned: 'plan not known',
};

/** How the sentence writes outside names and text (the comment escapes them, the terminal does not). */
export interface SentenceFormat {
  name(s: string): string;
  text(s: string): string;
}
const PLAIN: SentenceFormat = { name: (s) => s, text: (s) => s };
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The one line a run says of it, either way: `3 key queries (a, b, c) not run on the preview: they would
 * build orders.orders_by_status (changed) in the shared Cube Store; set data-diff-build-rollups: true to run
 * them`, or `… ran on the preview, building …`. Nothing when no load would build.
 */
export function buildSentence(s: BuildSkips, f: SentenceFormat = PLAIN, shown = 5): string | undefined {
  if (!s.keyQueries.length && !s.probes) return undefined;
  const names = s.keyQueries
    .slice(0, shown)
    .map((n) => f.name(n))
    .join(', ');
  const more = s.keyQueries.length > shown ? ` and ${s.keyQueries.length - shown} more` : '';
  const queries = s.keyQueries.length ? `${count(s.keyQueries.length, 'key query', 'key queries')} (${names}${more})` : '';
  const probes = s.probes ? count(s.probes, 'persona probe', 'persona probes') : '';
  const what = [queries, probes].filter(Boolean).join(' and ');
  const rollups = s.rollups
    .map((b) =>
      b.reason === 'unplanned'
        ? f.text(`a pre-aggregation of ${b.rollup} (${REASON_WORDS[b.reason]})`)
        : `${f.name(b.rollup)} ${f.text(`(${REASON_WORDS[b.reason]})`)}`,
    )
    .join(', ');
  return s.allowed
    ? `${what} ran on the preview, building ${rollups} in the shared Cube Store (data-diff-build-rollups: true)`
    : `${what} not run on the preview: they would build ${rollups} in the shared Cube Store; set data-diff-build-rollups: true to run them`;
}
