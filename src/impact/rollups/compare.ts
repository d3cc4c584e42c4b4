/**
 * The rollup impact of key queries, from the plans Cube's `POST /v1/sql` gives on production and on the
 * preview (a plan only: the query is not run): which pre-aggregation serves each query on each side, the
 * rollups whose tables the merge rebuilds, and the queries whose date range reaches outside the build range
 * of the partitioned rollup serving them. Pure: the requests are in src/operations/rollup-plans.ts.
 */

/** One entry of `/v1/sql`'s `preAggregations`, the fields that say which rollup it is and what its tables hold. */
export interface PlannedRollup {
  id: string;
  type?: string;
  tableName?: string;
  /** `loadSql` and `indexesSql` as JSON text: the inputs of Cube's structure version. */
  loadSql?: string;
  indexesSql?: string;
  partitionGranularity?: string;
  /** The build range's two queries, as Cube gives them (SQL, not dates). */
  rangeSql?: [string, string];
  /** The query's date range as the matcher read it. */
  matchedRange?: [string, string];
}

/** One side's plan of one query: the entries, or why there is none. */
export type PlanSide = { entries: PlannedRollup[] } | { error: string };

/** One key query (for one persona, or under the run's own security context) planned on both sides. */
export interface QueryPlan {
  query: string;
  persona?: string;
  /** Absent when the query runs on the preview only (a member production does not have). */
  production?: PlanSide;
  preview: PlanSide;
}

export type RollupChangeKind = 'lost' | 'gained' | 'moved';

/** A query whose serving rollup differs between the sides (unchanged ones are not listed). */
export interface RollupChange {
  query: string;
  persona?: string;
  production: string | null;
  preview: string | null;
  change: RollupChangeKind;
  /** Set when the sides run other Cube versions (or planners): the row may come from them, not from the pull request. */
  versions?: string;
}

/** A rollup whose tables the merge builds anew (`partitions` only where the platform says: it does not yet). */
export interface RebuiltRollup {
  rollup: string;
  reason: string;
  partitionGranularity?: string;
  partitions?: number;
  /** Set when the sides run other Cube versions (or planners): the rebuild may come from them. */
  versions?: string;
}

/** A key query served by a partitioned rollup whose build range does not cover the query's date range. */
export interface RollupTruncation {
  query: string;
  persona?: string;
  rollup: string;
  queryRange: [string, string];
  /** The build range, read from literal SQL (`SELECT '2024-01-01'`); null when it is not known (never guessed). */
  buildRange: [string, string] | null;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const json = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : JSON.stringify(v));
const pair = (v: unknown): [string, string] | undefined =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' ? [v[0], v[1]] : undefined;

/** The build range's two queries: Cube gives each as `[sql, params]`. */
function rangeSqlOf(v: unknown): [string, string] | undefined {
  if (!Array.isArray(v) || v.length !== 2) return undefined;
  const [a, b] = v.map((q: unknown) => (Array.isArray(q) && !(q[1] as unknown[] | undefined)?.length ? text(q[0]) : undefined));
  return a !== undefined && b !== undefined ? [a, b] : undefined;
}

/** The entries of one plan (`{ sql: { preAggregations } }`), or undefined when the answer holds none. */
function entriesOf(body: unknown): PlannedRollup[] | undefined {
  const sql = (body as { sql?: { preAggregations?: unknown } } | undefined)?.sql;
  if (!sql || typeof sql !== 'object') return undefined;
  const list = Array.isArray(sql.preAggregations) ? (sql.preAggregations as Record<string, unknown>[]) : [];
  const entries: PlannedRollup[] = [];
  for (const e of list) {
    const id = text(e?.preAggregationId);
    if (!id) continue;
    const rangeSql = rangeSqlOf(e.preAggregationStartEndQueries);
    const matchedRange = pair(e.matchedTimeDimensionDateRange);
    const fields = {
      type: text(e.type),
      tableName: text(e.tableName),
      loadSql: json(e.loadSql),
      indexesSql: json(e.indexesSql),
      partitionGranularity: text(e.partitionGranularity),
    };
    const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    entries.push({ id, ...defined, ...(rangeSql ? { rangeSql } : {}), ...(matchedRange ? { matchedRange } : {}) });
  }
  return entries;
}

/**
 * The pre-aggregations of one `/v1/sql` answer: `{ sql: { preAggregations } }`, or for a query Cube splits
 * (a `compareDateRange`'s ranges, a blending query's parts) a list of such plans, whose entries together
 * serve it; an answer without a plan is an error, never "no rollup".
 */
export function plannedRollups(body: unknown): PlanSide {
  const parts = Array.isArray(body) && body.length ? body.map(entriesOf) : [entriesOf(body)];
  if (parts.some((p) => !p)) {
    const keys = Array.isArray(body) ? `a list of ${body.length}` : `keys ${Object.keys(body ?? {}).join(', ') || 'none'}`;
    return { error: `an answer without a plan (${keys})` };
  }
  return { entries: parts.flatMap((p) => p ?? []) };
}

const isRollup = (e: PlannedRollup) => e.type !== 'originalSql' && e.type !== 'original_sql';

/** The rollup serving a query: the first entry that is not an `original_sql` copy of a cube's source. */
export function servingRollup(side: PlanSide | undefined): PlannedRollup | null {
  if (!side || 'error' in side) return null;
  return side.entries.find(isRollup) ?? null;
}

/** Two entries are one rollup when they name the same tables (a `sql_alias` keeps them), else the same id. */
const sameRollup = (a: PlannedRollup, b: PlannedRollup) => (a.tableName && b.tableName ? a.tableName === b.tableName : a.id === b.id);

/** Every rollup serving a query, each once: Tesseract may serve one query (its sub-queries, its ranges) by several. */
export function servingRollups(side: PlanSide | undefined): PlannedRollup[] {
  if (!side || 'error' in side) return [];
  const out: PlannedRollup[] = [];
  for (const e of side.entries) if (isRollup(e) && !out.some((o) => sameRollup(o, e))) out.push(e);
  return out;
}

const sameSet = (a: PlannedRollup[], b: PlannedRollup[]) => a.length === b.length && a.every((x) => b.some((y) => sameRollup(x, y)));
const names = (s: PlannedRollup[]) => (s.length ? s.map((e) => e.id).join(' + ') : null);

/**
 * Queries that lose, gain or move their rollups (the set serving each, compared whole); a side that failed
 * to plan is not compared. `versions`: the sides run other Cube versions (or planners), so each row may come
 * from them rather than from the pull request (the label every row then carries).
 */
export function rollupChanges(plans: readonly QueryPlan[], versions?: string): RollupChange[] {
  const out: RollupChange[] = [];
  for (const p of plans) {
    if (!p.production || 'error' in p.production || 'error' in p.preview) continue;
    const base = servingRollups(p.production);
    const head = servingRollups(p.preview);
    if (sameSet(base, head)) continue;
    const change: RollupChangeKind = base.length && head.length ? 'moved' : base.length ? 'lost' : 'gained';
    const persona = p.persona ? { persona: p.persona } : {};
    out.push({ query: p.query, ...persona, production: names(base), preview: names(head), change, ...(versions ? { versions } : {}) });
  }
  return out;
}

/** A rollup's build SQL with its own table name taken out: equal for a rename that changes nothing else. */
const withoutTable = (e: PlannedRollup) => (e.tableName ? (e.loadSql ?? '').split(e.tableName).join('<table>') : (e.loadSql ?? ''));

/** What differs between two entries of one rollup that makes Cube build new tables, or nothing. */
function structureChange(base: PlannedRollup, head: PlannedRollup): string | undefined {
  const reasons: string[] = [];
  if (base.tableName !== head.tableName) reasons.push(`its tables are renamed (${base.tableName ?? '?'} → ${head.tableName ?? '?'})`);
  if (withoutTable(base) !== withoutTable(head)) reasons.push('its build SQL changed');
  if (base.indexesSql !== head.indexesSql) reasons.push('its indexes changed');
  if (base.partitionGranularity !== head.partitionGranularity)
    reasons.push(`its partitions changed (${base.partitionGranularity ?? 'none'} → ${head.partitionGranularity ?? 'none'})`);
  return reasons.length ? reasons.join('; ') : undefined;
}

/** Each rollup as one side's plans describe it (the first description of each id). */
function described(sides: readonly (PlanSide | undefined)[]): Map<string, PlannedRollup> {
  const out = new Map<string, PlannedRollup>();
  for (const s of sides) if (s && !('error' in s)) for (const e of s.entries) if (isRollup(e) && !out.has(e.id)) out.set(e.id, e);
  return out;
}

/**
 * Rollups whose tables the merge builds anew: every rollup both sides' plans describe under one id (a key
 * query's plan, or the rollup's own query planned on each side: `own`) whose structure differs, and per key
 * query a rename with the same build SQL. `versions`: the label of rows that may come from the Cube versions.
 */
export function rebuiltRollups(plans: readonly QueryPlan[], own: readonly QueryPlan[] = [], versions?: string): RebuiltRollup[] {
  const found = new Map<string, RebuiltRollup>();
  const add = (head: PlannedRollup, reason: string) =>
    found.set(head.id, {
      rollup: head.id,
      reason,
      ...(head.partitionGranularity ? { partitionGranularity: head.partitionGranularity } : {}),
      ...(versions ? { versions } : {}),
    });
  const all = [...plans, ...own];
  const base = described(all.map((p) => p.production));
  const head = described(all.map((p) => p.preview));
  for (const [id, h] of head) {
    const b = base.get(id);
    const why = b && structureChange(b, h);
    if (why) add(h, why);
  }
  for (const p of plans) {
    const b = servingRollup(p.production);
    const h = servingRollup(p.preview);
    if (!b || !h || b.id === h.id || found.has(h.id) || base.has(h.id)) continue;
    // A rename: one rollup serving the query on each side, the same build SQL under another id.
    if (!sameRollup(b, h) && withoutTable(b) === withoutTable(h) && structureChange(b, h))
      add(h, `renamed from ${b.id}: Cube names its tables after the rollup`);
  }
  return [...found.values()];
}

const DAY = String.raw`'(\d{4}-\d{2}-\d{2})(?:[ T][\d:.]+)?'`;
const TYPE = '(?:timestamptz|timestamp|datetime|date)';
/** The literal shapes a build range is written in: `'…'::date`, `DATE('…')`, `DATE '…'`, `CAST('…' AS DATE)`. */
const LITERALS = [
  new RegExp(String.raw`^${DAY}(?:\s*::\s*${TYPE})?$`, 'i'),
  new RegExp(String.raw`^${TYPE}\s*\(\s*${DAY}\s*\)$`, 'i'),
  new RegExp(String.raw`^${TYPE}\s+${DAY}$`, 'i'),
  new RegExp(String.raw`^cast\s*\(\s*${DAY}\s+as\s+${TYPE}\s*\)$`, 'i'),
];

/** A build-range query that is a literal date (`SELECT '2024-01-01'::timestamp`, `SELECT DATE('2019-07-01')`), as its date; else nothing. */
export function literalDate(sql: string): string | undefined {
  const m = /^\s*select\s+(.*?)\s*;?\s*$/is.exec(sql);
  const value = m?.[1]?.trim();
  if (!value) return undefined;
  for (const re of LITERALS) {
    const d = re.exec(value)?.[1];
    if (d) return d;
  }
  return undefined;
}

/** Queries the preview serves from a partitioned rollup whose build range leaves part of their date range out (or is not known). */
export function truncations(plans: readonly QueryPlan[]): RollupTruncation[] {
  const out: RollupTruncation[] = [];
  for (const p of plans) {
    const head = servingRollup(p.preview);
    if (!head?.partitionGranularity || !head.rangeSql || !head.matchedRange) continue;
    const queryRange: [string, string] = head.matchedRange;
    const [start, end] = head.rangeSql.map(literalDate);
    const persona = p.persona ? { persona: p.persona } : {};
    if (!start || !end) {
      out.push({ query: p.query, ...persona, rollup: head.id, queryRange, buildRange: null });
      continue;
    }
    if (queryRange[0].slice(0, 10) < start || queryRange[1].slice(0, 10) > end)
      out.push({ query: p.query, ...persona, rollup: head.id, queryRange, buildRange: [start, end] });
  }
  return out;
}
