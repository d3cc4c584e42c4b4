/**
 * What a preview load would build, pure: from the rollup plans, a table production's plans name (same name,
 * build SQL, indexes, partitions) builds nothing; the same rollup with other tables, or one the merge
 * rebuilds, is `changed`; one production's plans never name is `unseen`; a plan not known is skipped only
 * when the pull request may change a rollup. The one line either way, in the terminal's words and escaped
 * in the Cost section, the Numbers row of a skipped query, what the ledger keeps.
 */
import { describe, expect, it } from 'vitest';
import { plannedRollups, type PlanSide, type QueryPlan } from '../src/impact/rollups/compare.js';
import { buildGuard, buildSentence, buildsOf, keyQueryBuilds, type BuildSkips } from '../src/impact/rollups/builds.js';
import type { RollupOutcome } from '../src/impact/rollups/outcome.js';
import type { ImpactResult } from '../src/operations/impact.js';
import { buildSkipsOf, rollupsMayChange } from '../src/operations/rollup-builds.js';
import { renderCost } from '../src/pr/comment/render-cost.js';
import { numbersView, renderNumbers } from '../src/pr/comment/render-numbers.js';
import { viewRollups, rollupsView } from '../src/pr/comment/render-rollups.js';
import { presentRollups } from '../src/pr/present-rollups.js';

const TABLE = 'prod_pre_aggregations.orders_orders_by_status';
const entry = (over: Record<string, unknown> = {}) => ({
  preAggregationId: 'orders.orders_by_status',
  type: 'rollup',
  tableName: TABLE,
  partitionGranularity: 'month',
  loadSql: [`CREATE TABLE ${TABLE} AS SELECT status, count(*) FROM orders GROUP BY 1`, []],
  indexesSql: [],
  ...over,
});
const CHANGED_SQL = { loadSql: [`CREATE TABLE ${TABLE} AS SELECT status, date_trunc('hour', created_at), count(*) FROM orders GROUP BY 1, 2`, []] };
const ORIGINAL = { preAggregationId: 'customers.customers_source', type: 'originalSql', tableName: 'prod_pre_aggregations.customers_customers_source' };
const side = (...entries: Record<string, unknown>[]): PlanSide => plannedRollups({ sql: { sql: ['SELECT 1', []], preAggregations: entries } });
const plan = (query: string, production: PlanSide | undefined, preview: PlanSide, persona?: string): QueryPlan => ({
  query,
  ...(persona ? { persona } : {}),
  ...(production ? { production } : {}),
  preview,
});

describe('which preview loads would build', () => {
  it("a table production's plans name builds nothing; other build SQL, indexes or partitions is changed; a rebuilt rollup is changed", () => {
    const plans = [plan('same', side(entry()), side(entry())), plan('by month', side(entry()), side(entry(CHANGED_SQL)))];
    const g = buildGuard(plans, [], false, undefined);
    expect(keyQueryBuilds(g, 'same')).toEqual([]);
    expect(keyQueryBuilds(g, 'by month')).toEqual([{ rollup: 'orders.orders_by_status', reason: 'changed' }]);
    for (const over of [{ indexesSql: [['CREATE INDEX i ON t (status)', []]] }, { partitionGranularity: 'day' }])
      expect(buildsOf(g, side(entry(over)))).toEqual([{ rollup: 'orders.orders_by_status', reason: 'changed' }]);
    // Listed as rebuilt on merge: changed even where some production plan named the same tables.
    const rebuilt = buildGuard(plans, [{ rollup: 'orders.orders_by_status', reason: 'its build SQL changed' }], false, undefined);
    expect(keyQueryBuilds(rebuilt, 'same')).toEqual([{ rollup: 'orders.orders_by_status', reason: 'changed' }]);
  });

  it("a rollup production's plans never name is unseen; every entry counts (an original_sql table too), each rollup once; a persona's production plan is production's too", () => {
    const fresh = entry({ preAggregationId: 'orders.orders_daily', tableName: 'prod_pre_aggregations.orders_orders_daily' });
    const plans = [plan('by status', side(entry()), side(fresh, ORIGINAL, fresh)), plan('by status', side(ORIGINAL), side(ORIGINAL), 'sales')];
    const g = buildGuard(plans, [], false, undefined);
    expect(keyQueryBuilds(g, 'by status')).toEqual([{ rollup: 'orders.orders_daily', reason: 'unseen' }]);
    // A probe's own production plan tells as much.
    expect(buildsOf(buildGuard([], [], false, undefined), side(entry()), side(entry()))).toEqual([]);
  });

  it('a plan not known: skipped only when the pull request may change a rollup; a plan with no pre-aggregation builds nothing', () => {
    const plans = [plan('failed', side(entry()), { error: 'API scope is missing: sql' })];
    expect(keyQueryBuilds(buildGuard(plans, [], false, undefined), 'failed')).toEqual([]);
    expect(keyQueryBuilds(buildGuard(plans, [], false, 'orders'), 'failed')).toEqual([{ rollup: 'orders', reason: 'unplanned' }]);
    expect(keyQueryBuilds(buildGuard(plans, [], false, 'orders'), 'never planned')).toEqual([{ rollup: 'orders', reason: 'unplanned' }]);
    expect(buildsOf(buildGuard(plans, [], false, 'orders'), side())).toEqual([]);
  });

  it('the cubes whose rollups may change: pre-aggregations edited, else any definition that moves SQL; none without rollups', () => {
    const impact = (changes: { cube: string; aspect: string }[] | undefined, rollupsInModel = true) =>
      ({ rollupsInModel, ...(changes ? { definition: { changes, values: [] } } : {}) }) as unknown as ImpactResult;
    expect(rollupsMayChange(impact([{ cube: 'orders', aspect: 'sql' }], false))).toBeUndefined();
    expect(rollupsMayChange(impact(undefined))).toBe('the model');
    expect(
      rollupsMayChange(
        impact([
          { cube: 'customers', aspect: 'sql' },
          { cube: 'orders', aspect: 'pre-aggregations' },
        ]),
      ),
    ).toBe('orders');
    expect(rollupsMayChange(impact([{ cube: 'orders', aspect: 'sql' }]))).toBe('orders');
    expect(
      rollupsMayChange(
        impact([
          { cube: 'orders', aspect: 'visibility' },
          { cube: 'orders', aspect: 'access policy' },
        ]),
      ),
    ).toBeUndefined();
  });

  it('what the loads came to: the skipped key queries and probes, or (allowed) those that ran and built', () => {
    const plans = [plan('a', side(entry()), side(entry(CHANGED_SQL))), plan('b', side(entry()), side(entry()))];
    const query = (name: string, status: string, extra = {}) => ({ name, source: 'file', query: {}, status, ms: {}, ...extra });
    const skippedA = query('a', 'skipped', { wouldBuild: [{ rollup: 'orders.orders_by_status', reason: 'changed' }] });
    const numbers = (queries: unknown[]) => ({ mode: 'values', result: { queries } }) as never;
    const access = { probes: [{ wouldBuild: [{ rollup: 'orders.orders_daily', reason: 'unseen' }] }, {}] } as never;
    expect(buildSkipsOf(buildGuard(plans, [], false, undefined), numbers([skippedA, query('b', 'unchanged')]), access)).toEqual({
      allowed: false,
      rollups: [
        { rollup: 'orders.orders_by_status', reason: 'changed' },
        { rollup: 'orders.orders_daily', reason: 'unseen' },
      ],
      keyQueries: ['a'],
      probes: 1,
    });
    const ran = buildSkipsOf(buildGuard(plans, [], true, undefined), numbers([query('a', 'unchanged'), query('b', 'unchanged')]), undefined);
    expect(ran).toEqual({ allowed: true, rollups: [{ rollup: 'orders.orders_by_status', reason: 'changed' }], keyQueries: ['a'], probes: 0 });
    expect(buildSkipsOf(buildGuard(plans, [], false, undefined), numbers([query('b', 'unchanged')]), undefined)).toBeUndefined();
  });
});

const SKIPS: BuildSkips = {
  allowed: false,
  rollups: [
    { rollup: 'orders.orders_by_status', reason: 'changed' },
    { rollup: 'orders', reason: 'unplanned' },
  ],
  keyQueries: ['by status', 'by month', 'total', 'a', 'b', 'c_*x*'],
  probes: 2,
};

describe('the one line, and where it is shown', () => {
  it('in the terminal: the queries named (the first five), the rollups and why, the input to set', () => {
    expect(buildSentence(SKIPS)).toBe(
      '6 key queries (by status, by month, total, a, b and 1 more) and 2 persona probes not run on the preview: they would build orders.orders_by_status (changed), a pre-aggregation of orders (plan not known) in the shared Cube Store; set data-diff-build-rollups: true to run them',
    );
    expect(buildSentence({ allowed: true, rollups: [SKIPS.rollups[0]!], keyQueries: ['by status'], probes: 0 })).toBe(
      '1 key query (by status) ran on the preview, building orders.orders_by_status (changed) in the shared Cube Store (data-diff-build-rollups: true)',
    );
    expect(buildSentence({ ...SKIPS, keyQueries: [], probes: 0 })).toBeUndefined();
  });

  it('in the Cost section: one line with names as code, also when the plans did not run; the ledger keeps the names it shows; --json carries it', () => {
    const r: RollupOutcome = {
      changes: [],
      rebuilt: [],
      truncated: [],
      notices: [],
      planned: 6,
      notRun: 0,
      builds: { ...SKIPS, keyQueries: [...SKIPS.keyQueries, '@someone'] },
    };
    const cost = renderCost({ rollups: rollupsView(r) }, { target: 'comment' }).join('\n');
    const line = cost.split('\n').filter((l) => l.includes('not run on the preview'));
    expect(line).toHaveLength(1);
    expect(line[0]).toContain('⏭️ 7 key queries (`by status`, `by month`, `total`, `a`, `b` and 2 more) and 2 persona probes not run on the preview');
    expect(line[0]).toContain('`orders.orders_by_status` \\(changed\\)');
    expect(line[0]).toContain('set data-diff-build-rollups: true to run them');
    expect(viewRollups(rollupsView(r)).builds?.keyQueries).toHaveLength(6);
    const skipped = renderCost({ rollups: rollupsView({ ...r, skipped: 'no key query' }) }, { target: 'summary' }).join('\n');
    expect(skipped).toContain('not run on the preview');
    expect(skipped).toContain('Rollups not planned');
    const presented = presentRollups({ ...r, skipped: 'no key query' }, 'pr-1', true, false);
    expect(presented.json).toEqual({ rollupBuilds: r.builds });
    expect(presentRollups(r, 'pr-1', false, false).part).toBeDefined();
  });

  it('in the Numbers section: a skipped query is neither unchanged nor failed; its row says what it would build', () => {
    const limits = { maxQueries: 5, maxRows: 10, concurrency: 1, queryTimeoutMs: 1000, absTolerance: 0, relTolerance: 0 };
    const v = numbersView({
      mode: 'values',
      queries: [
        { name: 'by status', source: 'file', query: {}, status: 'skipped', wouldBuild: [SKIPS.rollups[0]!], ms: {} },
        {
          name: 'total',
          source: 'file',
          query: {},
          status: 'unchanged',
          ms: {},
          comparison: { rows: { base: 1, head: 1 }, added: 0, removed: 0, changed: 0, largest: [], top: [], addedKeys: [], removedKeys: [], truncated: false },
        },
      ],
      notRun: 0,
      changed: 0,
      notices: [],
      elapsedMs: 10,
      limits,
    });
    const text = renderNumbers(v, { target: 'comment' }).join('\n');
    expect(text).toContain('0 changed, 1 unchanged, 1 not run (they would build a pre-aggregation)');
    expect(text).toContain(
      '| by status |  | not run: its load on the preview would build `orders.orders_by_status` (changed) in the shared Cube Store (see Cost) |',
    );
  });
});
