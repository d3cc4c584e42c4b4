/**
 * The rollup comparison and its rendering, pure: `/v1/sql` answers read into plans, a query's serving rollup
 * (never an `original_sql` copy), lost / gained / moved, rebuilt rollups (build SQL, indexes, partitions, a
 * rename with the same SQL, not a `sql_alias` rename), build-range truncation from literal SQL only, and the
 * Cost section's rollup part with outside text escaped and the outputs and `fail-on-rollup-loss`.
 */
import { describe, expect, it } from 'vitest';
import {
  literalDate,
  plannedRollups,
  rebuiltRollups,
  rollupChanges,
  servingRollup,
  truncations,
  type PlanSide,
  type QueryPlan,
} from '../src/impact/rollups/compare.js';
import { modelHasRollups, rollupLines, rollupWarning, type RollupOutcome } from '../src/impact/rollups/outcome.js';
import { renderCost } from '../src/pr/comment/render-cost.js';
import { renderPreview } from '../src/pr/comment/render-preview.js';
import { nextView } from '../src/pr/comment/view.js';
import { presentRollups } from '../src/pr/present-rollups.js';
import { modelDefinition } from '../src/impact/definition/source.js';

const TABLE = 'prod_pre_aggregations.orders_orders_by_status';
/** One `/v1/sql` entry as Cube describes a rollup. */
const entry = (over: Record<string, unknown> = {}) => ({
  preAggregationId: 'orders.orders_by_status',
  type: 'rollup',
  tableName: TABLE,
  external: true,
  partitionGranularity: 'month',
  loadSql: [`CREATE TABLE ${TABLE} AS SELECT status, count(*) FROM orders GROUP BY 1`, []],
  indexesSql: [],
  preAggregationStartEndQueries: [
    ["SELECT '2024-01-01'::timestamp", []],
    ["SELECT '2025-12-31'::timestamp", []],
  ],
  matchedTimeDimensionDateRange: ['2025-01-01T00:00:00.000', '2025-03-31T23:59:59.999'],
  ...over,
});
const side = (...entries: Record<string, unknown>[]): PlanSide => plannedRollups({ sql: { sql: ['SELECT 1', []], preAggregations: entries } });
const ORIGINAL = { preAggregationId: 'customers.customers_source', type: 'originalSql', tableName: 'prod_pre_aggregations.customers_customers_source' };
const plan = (production: PlanSide | undefined, preview: PlanSide, query = 'by status', persona?: string): QueryPlan => ({
  query,
  ...(persona ? { persona } : {}),
  ...(production ? { production } : {}),
  preview,
});

describe('plans', () => {
  it('reads the entries of a /v1/sql answer; an answer without a plan is an error, not "no rollup"', () => {
    const s = side(entry());
    expect(s).toEqual({
      entries: [
        {
          id: 'orders.orders_by_status',
          type: 'rollup',
          tableName: TABLE,
          partitionGranularity: 'month',
          loadSql: JSON.stringify(entry().loadSql),
          indexesSql: '[]',
          rangeSql: ["SELECT '2024-01-01'::timestamp", "SELECT '2025-12-31'::timestamp"],
          matchedRange: ['2025-01-01T00:00:00.000', '2025-03-31T23:59:59.999'],
        },
      ],
    });
    expect(plannedRollups({ error: 'x' })).toHaveProperty('error');
    expect(plannedRollups(null)).toHaveProperty('error');
  });

  it('an original_sql copy never serves a query; the first rollup does', () => {
    expect(servingRollup(side(ORIGINAL))).toBeNull();
    expect(servingRollup(side(ORIGINAL, entry()))?.id).toBe('orders.orders_by_status');
    expect(servingRollup({ error: 'refused' })).toBeNull();
  });
});

describe('lost, gained, moved', () => {
  it('lists each kind; unchanged, a sql_alias rename (same tables) and a side that failed are not listed', () => {
    const other = entry({ preAggregationId: 'orders.counts', tableName: 'prod_pre_aggregations.orders_counts' });
    const aliased = entry({ preAggregationId: 'orders.renamed_alias' });
    const plans = [
      plan(side(entry()), side(ORIGINAL), 'lost one'),
      plan(side(ORIGINAL), side(entry()), 'gained one', 'sales'),
      plan(side(entry()), side(other), 'moved one'),
      plan(side(entry()), side(entry()), 'same'),
      plan(side(entry()), side(aliased), 'alias'),
      plan({ error: 'timeout' }, side(), 'failed'),
      plan(undefined, side(entry()), 'head only'),
    ];
    expect(rollupChanges(plans)).toEqual([
      { query: 'lost one', production: 'orders.orders_by_status', preview: null, change: 'lost' },
      { query: 'gained one', persona: 'sales', production: null, preview: 'orders.orders_by_status', change: 'gained' },
      { query: 'moved one', production: 'orders.orders_by_status', preview: 'orders.counts', change: 'moved' },
    ]);
  });
});

describe('rebuilt on merge', () => {
  it('build SQL, indexes or partitions changed; a rename with the same SQL; not a sql_alias rename, not another rollup', () => {
    const renamedTable = 'prod_pre_aggregations.orders_orders_daily';
    const renamed = entry({
      preAggregationId: 'orders.orders_daily',
      tableName: renamedTable,
      loadSql: [`CREATE TABLE ${renamedTable} AS SELECT status, count(*) FROM orders GROUP BY 1`, []],
    });
    const plans = [
      plan(side(entry()), side(entry({ loadSql: ['CREATE TABLE t AS SELECT 2', []], partitionGranularity: 'day' })), 'a'),
      plan(
        side(entry({ preAggregationId: 'orders.x', tableName: 'x' })),
        side(entry({ preAggregationId: 'orders.x', tableName: 'x', indexesSql: [['CREATE INDEX i', []]] })),
        'b',
      ),
      plan(side(entry()), side(renamed), 'c'),
      plan(side(entry()), side(entry({ preAggregationId: 'orders.alias_renamed' })), 'd'),
      plan(side(entry()), side(entry({ preAggregationId: 'orders.other', tableName: 'y', loadSql: ['CREATE TABLE y AS SELECT 3', []] })), 'e'),
    ];
    expect(rebuiltRollups(plans)).toEqual([
      { rollup: 'orders.orders_by_status', reason: 'its build SQL changed; its partitions changed (month → day)', partitionGranularity: 'day' },
      { rollup: 'orders.x', reason: 'its indexes changed', partitionGranularity: 'month' },
      { rollup: 'orders.orders_daily', reason: 'renamed from orders.orders_by_status: Cube names its tables after the rollup', partitionGranularity: 'month' },
    ]);
  });
});

describe('build-range truncation', () => {
  it('reads only literal dates; a range outside is said with both ranges, a range not literal as not known', () => {
    expect(literalDate("SELECT '2024-01-01'::timestamp")).toBe('2024-01-01');
    expect(literalDate("select '2024-01-01 00:00:00'")).toBe('2024-01-01');
    expect(literalDate('SELECT NOW()')).toBeUndefined();
    expect(literalDate("SELECT '2024-01-01'::timestamp - interval '1 day'")).toBeUndefined();
    // The shapes public models write (the vendor's own lambda-view example: `SELECT DATE('2019-07-01')`).
    expect(literalDate("SELECT DATE('2019-07-01')")).toBe('2019-07-01');
    expect(literalDate("SELECT TIMESTAMP '2019-07-01 00:00:00'")).toBe('2019-07-01');
    expect(literalDate("SELECT CAST('2019-07-01' AS date)")).toBe('2019-07-01');
    expect(literalDate('SELECT DATE(NOW())')).toBeUndefined();
    expect(literalDate('SELECT DATE_ADD(CURRENT_DATE(), INTERVAL -3 DAY)')).toBeUndefined();
    expect(literalDate("SELECT DATE('2019-07-01'), 1")).toBeUndefined();
    const early = { matchedTimeDimensionDateRange: ['2023-06-01T00:00:00.000', '2024-03-31T23:59:59.999'] };
    const computed = {
      preAggregationStartEndQueries: [
        ['SELECT MIN(created_at) FROM orders', []],
        ["SELECT '2025-12-31'", []],
      ],
    };
    const plans = [
      plan(side(), side(entry()), 'inside'),
      plan(side(), side(entry(early)), 'early'),
      plan(side(), side(entry({ ...early, ...computed })), 'unknown', 'sales'),
    ];
    expect(truncations(plans)).toEqual([
      {
        query: 'early',
        rollup: 'orders.orders_by_status',
        queryRange: ['2023-06-01T00:00:00.000', '2024-03-31T23:59:59.999'],
        buildRange: ['2024-01-01', '2025-12-31'],
      },
      {
        query: 'unknown',
        persona: 'sales',
        rollup: 'orders.orders_by_status',
        queryRange: ['2023-06-01T00:00:00.000', '2024-03-31T23:59:59.999'],
        buildRange: null,
      },
    ]);
  });
});

const OUTCOME: RollupOutcome = {
  changes: [
    { query: 'Revenue <script>@team', persona: 'sales|eu', production: 'orders.orders_by_status', preview: null, change: 'lost' },
    { query: 'by month', production: null, preview: 'orders.monthly', change: 'gained' },
  ],
  rebuilt: [
    { rollup: 'orders.orders_daily', reason: 'renamed from orders.orders_by_status: Cube names its tables after the rollup', partitionGranularity: 'month' },
  ],
  truncated: [
    { query: 'status in 2024', rollup: 'orders.orders_by_status', queryRange: ['2024-06-01T00:00:00.000', '2024-12-31T23:59:59.999'], buildRange: null },
  ],
  warning: 'this pull request changes the pre-aggregations of orders: …',
  notices: ['q was not planned on production: [boom](https://evil.example)'],
  planned: 6,
  notRun: 2,
};

describe('where it shows', () => {
  it('the Cost section: the table, rebuilt rollups, truncation, the warning; outside text inert', () => {
    const out = presentRollups(OUTCOME, 'pr-1', true, false);
    expect(out.outputs).toEqual({ 'rollups-lost-count': '1', 'rollups-rebuilt-count': '1' });
    const md = renderCost({ rollups: out.part! }, { target: 'comment' }).join('\n');
    expect(md).toContain('**Cost**');
    expect(md).toContain('Rollups (production → preview, 6 key query plans): 2 changed (1 lost), 1 rollup rebuilt on merge');
    expect(md).toContain('| `orders.orders_by_status` → — | ⚠️ lost: reaches the warehouse | 1 key query: `Revenue <script>@team` (`sales\\|eu`) |');
    expect(md).toContain('- `orders.orders_daily`: renamed from orders\\.orders\\_by\\_status');
    expect(md).toContain('build range not known');
    expect(md).toContain('⚠️ this pull request changes the pre\\-aggregations of orders');
    expect(md).toContain('2 more key queries found but not planned');
    expect(md).not.toContain('](https://evil');
    expect(out.json?.rollups).toHaveLength(2);
  });

  it('fail-on-rollup-loss fails on a lost rollup only; plans not run leave the outputs empty and say nothing without rollups', () => {
    expect(presentRollups(OUTCOME, 'pr-1', true, true).failure).toContain('fail-on-rollup-loss is true');
    expect(presentRollups({ ...OUTCOME, changes: [OUTCOME.changes[1]!] }, 'pr-1', true, true).failure).toBeUndefined();
    const skipped: RollupOutcome = { changes: [], rebuilt: [], truncated: [], notices: [], planned: 0, notRun: 0, skipped: 'off' };
    expect(presentRollups(skipped, 'pr-1', false, true)).toEqual({ outputs: { 'rollups-lost-count': '', 'rollups-rebuilt-count': '' } });
    const quiet: RollupOutcome = { changes: [], rebuilt: [], truncated: [], notices: [], planned: 3, notRun: 0 };
    expect(presentRollups(quiet, 'pr-1', false, true).part).toBeUndefined();
    expect(presentRollups(quiet, 'pr-1', false, true).outputs).toEqual({ 'rollups-lost-count': '0', 'rollups-rebuilt-count': '0' });
    expect(
      renderCost(presentRollups(skipped, 'pr-1', true, false).part ? { rollups: presentRollups(skipped, 'pr-1', true, false).part! } : {}, {
        target: 'comment',
      }).join('\n'),
    ).toContain('Rollups not planned: off');
  });

  it('terminal lines, the warning and whether a model has rollups', () => {
    expect(rollupLines(OUTCOME)[0]).toBe('rollups: Revenue <script>@team (sales|eu): lost: orders.orders_by_status → none');
    const change = { cube: 'orders', cubeType: 'cube' as const, aspect: 'pre-aggregations', class: 'non-breaking' as const, detail: 'x' };
    expect(rollupWarning({ definition: { changes: [change] } })).toContain('#11889');
    expect(rollupWarning({})).toBeUndefined();
    const withRollup = modelDefinition(
      new Map([['model/cubes/o.yml', 'cubes:\n  - name: o\n    sql_table: t\n    pre_aggregations:\n      - name: r\n        measures: [count]\n']]),
    );
    const without = modelDefinition(new Map([['model/cubes/o.yml', 'cubes:\n  - name: o\n    sql_table: t\n']]));
    expect(modelHasRollups({ head: withRollup })).toBe(true);
    expect(modelHasRollups({ base: without, head: without })).toBe(false);
  });
});

describe('the view and the job summary', () => {
  it('the view keeps the first 15 rows (one per rollup change); the comment says how many more, the job summary lists them all', () => {
    const many: RollupOutcome = {
      ...OUTCOME,
      changes: Array.from({ length: 20 }, (_, i) => ({ query: `q${i}`, production: `orders.r${i}`, preview: null, change: 'lost' as const })),
    };
    const full = { rollups: presentRollups(many, 'pr-1', true, false).part! };
    const view = nextView(undefined, { headSha: 'a'.repeat(40), runId: 1 }, { state: 'ready', cost: full });
    expect(view.cost?.rollups?.groups).toHaveLength(15);
    const comment = renderPreview(view, { target: 'comment' });
    expect(comment).toContain('20 changed (20 lost)');
    expect(comment).toContain('… 5 key queries more in the job summary');
    const summary = renderPreview(view, { target: 'summary', cost: full });
    expect(summary).toContain('`q19`');
  });

  it('the key queries that lose one rollup share its row; the comment names the first three, the job summary all', () => {
    const same: RollupOutcome = {
      ...OUTCOME,
      changes: Array.from({ length: 20 }, (_, i) => ({ query: `q${i}`, production: 'orders.r', preview: null, change: 'lost' as const })),
    };
    const full = { rollups: presentRollups(same, 'pr-1', true, false).part! };
    const view = nextView(undefined, { headSha: 'a'.repeat(40), runId: 1 }, { state: 'ready', cost: full });
    expect(view.cost?.rollups?.groups).toHaveLength(1);
    expect(view.cost?.rollups?.groups[0]?.total).toBe(20);
    const comment = renderPreview(view, { target: 'comment' });
    expect(comment).toContain('20 changed (20 lost)');
    expect(comment.match(/\| `orders\.r` →/g)).toHaveLength(1);
    expect(comment).toContain('20 key queries: `q0`, `q1`, `q2` and 17 more');
    expect(comment).not.toContain('more in the job summary');
    const summary = renderPreview(view, { target: 'summary', cost: full });
    expect(summary).toContain('`q19`');
  });
});
