/**
 * Pre-aggregations in the emulator's data API, planned by Cube's own matcher (the compiler's
 * `PreAggregations`, JS planner), over real HTTPS sockets: `/v1/sql` gives each query's
 * `preAggregations` as Cube's gateway does, `/load` its `usedPreAggregations` (rows read from the source
 * tables), and what the matcher does with the edits a pull request makes: a member rename, a dropped
 * measure, a second rollup, a persona's row filter, a rollup renamed or reordered, `sql_alias`.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MATCHER_METHODS } from '../packages/emulator/src/engine/sql.js';
import { loadCompiler } from '../packages/emulator/src/engine/vendor.js';
import { personaSecurityContext } from '../src/impact/access/types.js';
import { emulatorFixture, rawRequest, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { ROLLUP_MODEL, ROLLUP_VARIANTS, ROLLUP_WITH_ROW_FILTER, SHORT_RANGE } from './support/rollup-model.js';

/** The orchestrator's own structure version of a pre-aggregation (the suffix of its tables' names). */
const orchestrator = createRequire(import.meta.url)('@cubejs-backend/query-orchestrator') as {
  getStructureVersion(this: void, preAggregation: unknown): string;
};
const { getStructureVersion } = orchestrator;

let fx: EmulatorFixture;
let token: string;
let environmentId: string;
const SLOW = 90_000;
const TREES: Record<string, Record<string, string>> = { rollups: ROLLUP_MODEL, 'row-filter': ROLLUP_WITH_ROW_FILTER, ...ROLLUP_VARIANTS };

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  const envs = await fx.admin.deployments.environments({ deploymentId: 1 });
  environmentId = String(envs.items.find((e) => e.type === 'production')!.id);
  token = await mint({});
  for (const [branch, tree] of Object.entries(TREES)) {
    await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
    await uploadTree(fx.admin, 1, branch, tree);
    await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
  }
}, 60_000);

afterAll(async () => {
  await fx.close();
});

async function mint(securityContext: Record<string, unknown>): Promise<string> {
  return (await fx.admin.deployments.createEnvironmentToken({ deploymentId: 1, environmentId, body: { security_context: securityContext } })).data.token;
}

/** One data-API call on a branch's environment: GET with the query in the URL, or POST with it in the body. */
async function call(branch: string, op: 'load' | 'sql', query: unknown, method: 'GET' | 'POST' = 'POST', as = token): Promise<any> {
  const base = `/d/1/dev-mode/${encodeURIComponent(branch)}/cubejs-api/v1/${op}`;
  const text = method === 'POST' ? JSON.stringify({ query }) : undefined;
  const res = await rawRequest(fx.em, {
    method,
    path: method === 'GET' ? `${base}?query=${encodeURIComponent(JSON.stringify(query))}` : base,
    headers: { authorization: as, ...(text ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {}) },
    body: text,
  });
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text);
}

/** The pre-aggregations Cube plans a query on, by id, in order. */
async function planned(branch: string, query: unknown, as = token): Promise<string[]> {
  return ((await call(branch, 'sql', query, 'POST', as)).sql.preAggregations as { preAggregationId: string }[]).map((p) => p.preAggregationId);
}

/** The one pre-aggregation entry of `/v1/sql` for a query. */
async function entry(branch: string, query: unknown): Promise<Record<string, any>> {
  const list = (await call(branch, 'sql', query)).sql.preAggregations as Record<string, any>[];
  expect(list).toHaveLength(1);
  return list[0]!;
}

const BY_STATUS_MONTHLY = {
  measures: ['orders.count'],
  dimensions: ['orders.status'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: ['2025-01-01', '2025-03-31'] }],
};
const BY_STATUS = { measures: ['orders.count'], dimensions: ['orders.status'] };
const MONTHLY = { measures: ['orders.count'], timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }] };
const MONTHLY_BY_COUNTRY = { ...MONTHLY, dimensions: ['customers.country'] };
/** By the hour: finer than any rollup's granularity. */
const HOURLY = {
  measures: ['orders.count'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'hour', dateRange: ['2025-01-01', '2025-01-07'] }],
};
const STATUS_TABLE = 'prod_pre_aggregations.orders_orders_by_status';

async function expectedRows(sql: string): Promise<Record<string, string>[]> {
  return (await (await fx.em.engine.database(1)).query(sql, [])).rows as Record<string, string>[];
}

describe('a query a rollup serves, and one no rollup serves', () => {
  it(
    '/v1/sql (POST and GET) plans the partitioned rollup as Cube describes it; /load reports it in usedPreAggregations and answers the source rows',
    async () => {
      const sql = (await call('rollups', 'sql', BY_STATUS_MONTHLY)).sql;
      expect(sql.external).toBe(true);
      // Cube Store's SQL on the rollup's table: what Cube would run.
      expect(sql.sql[0]).toContain(`FROM ${STATUS_TABLE}`);
      const [rollup] = sql.preAggregations;
      expect(rollup).toMatchObject({
        preAggregationId: 'orders.orders_by_status',
        tableName: STATUS_TABLE,
        type: 'rollup',
        external: true,
        granularity: 'day',
        partitionGranularity: 'month',
        preAggregationsSchema: 'prod_pre_aggregations',
        preAggregationStartEndQueries: [
          ["SELECT '2024-01-01'::timestamp", []],
          ["SELECT '2025-12-31'::timestamp", []],
        ],
        matchedTimeDimensionDateRange: ['2025-01-01T00:00:00.000', '2025-03-31T23:59:59.999'],
      });
      expect(rollup.loadSql[0]).toMatch(/^CREATE TABLE prod_pre_aggregations\.orders_orders_by_status AS SELECT/);
      expect((await call('rollups', 'sql', BY_STATUS_MONTHLY, 'GET')).sql.preAggregations).toEqual(sql.preAggregations);

      const load = await call('rollups', 'load', BY_STATUS_MONTHLY);
      expect(Object.keys(load.usedPreAggregations)).toEqual([STATUS_TABLE]);
      expect(load.usedPreAggregations[STATUS_TABLE]).toEqual({
        preAggregationId: 'orders.orders_by_status',
        lastUpdatedAt: Date.parse(load.lastRefreshTime),
        type: 'rollup',
      });
      expect(load.external).toBe(true);
      const cancelled = (load.data as Record<string, string>[]).filter((r) => r['orders.status'] === 'cancelled').map((r) => r['orders.count']);
      const expected = await expectedRows(
        "SELECT count(*) AS n, date_trunc('month', created_at) AS m FROM orders WHERE status = 'cancelled' AND created_at >= '2025-01-01' AND created_at < '2025-04-01' GROUP BY 2 ORDER BY 2",
      );
      expect(cancelled).toEqual(expected.map((r) => String(r.n)));
    },
    SLOW,
  );

  it("a query through the demo view is planned on the cube's rollup", async () => {
    const viaView = {
      ...BY_STATUS_MONTHLY,
      measures: ['orders_view.count'],
      dimensions: ['orders_view.status'],
      timeDimensions: [{ ...BY_STATUS_MONTHLY.timeDimensions[0], dimension: 'orders_view.created_at' }],
    };
    expect(await planned('rollups', viaView)).toEqual(['orders.orders_by_status']);
  });

  it('a query finer than any rollup: nothing planned, no usedPreAggregations; an original_sql table is planned for its cube', async () => {
    expect(await planned('rollups', HOURLY)).toEqual([]);
    const load = await call('rollups', 'load', HOURLY);
    expect('usedPreAggregations' in load).toBe(false);
    expect(load.external).toBe(false);
    expect(load.data.length).toBeGreaterThan(0);

    const customers = { measures: ['customers.count'], dimensions: ['customers.country'] };
    const original = await entry('rollups', customers);
    expect(original).toMatchObject({ preAggregationId: 'customers.customers_source', type: 'originalSql', external: false });
    const used = (await call('rollups', 'load', customers)).usedPreAggregations;
    expect(used['prod_pre_aggregations.customers_customers_source']).toMatchObject({ preAggregationId: 'customers.customers_source', type: 'originalSql' });
  });
});

describe("what Cube's matcher does with a pull request's edits", () => {
  it('a rollup dimension renamed with the old one kept as a copy loses the query; kept as a dimension computed from the new one, it stays', async () => {
    expect(await planned('rollups', BY_STATUS_MONTHLY)).toEqual(['orders.orders_by_status']);
    expect(await planned('dimensionRenamed', BY_STATUS_MONTHLY)).toEqual([]);
    expect(await planned('dimensionRenamed', { ...BY_STATUS_MONTHLY, dimensions: ['orders.state'] })).toEqual(['orders.orders_by_status']);
    expect(await planned('dimensionDerived', BY_STATUS_MONTHLY)).toEqual(['orders.orders_by_status']);
  });

  it('a measure dropped from the rollup loses the queries of that measure only', async () => {
    expect(await planned('countDropped', BY_STATUS_MONTHLY)).toEqual([]);
    expect(await planned('countDropped', { ...BY_STATUS_MONTHLY, measures: ['orders.total_amount'] })).toEqual(['orders.orders_by_status']);
  });

  it('a second rollup listed first moves the queries both can serve to it, not the others', async () => {
    expect(await planned('rollups', BY_STATUS)).toEqual(['orders.orders_by_status']);
    expect(await planned('twoRollups', BY_STATUS)).toEqual(['orders.counts_by_status']);
    expect(await planned('twoRollups', BY_STATUS_MONTHLY)).toEqual(['orders.orders_by_status']);
    expect((await call('twoRollups', 'load', BY_STATUS)).usedPreAggregations).toHaveProperty(['prod_pre_aggregations.orders_counts_by_status']);
  });

  it(
    "a persona's row filter on a member outside the rollup moves its queries off it (Cube applies the filter before planning); another persona keeps it",
    async () => {
      const sales = await mint(personaSecurityContext({ name: 'sales', groups: ['sales'], securityContext: { country: 'Germany' } }));
      const analyst = await mint(personaSecurityContext({ name: 'analyst', groups: ['analysts'], securityContext: {} }));
      expect(await planned('row-filter', BY_STATUS_MONTHLY, analyst)).toEqual(['orders.orders_by_status']);
      // The filter joins customers: no rollup holds it, so the query reads the customers' original SQL table.
      expect(await planned('row-filter', BY_STATUS_MONTHLY, sales)).toEqual(['customers.customers_source']);
      expect(await planned('row-filter', MONTHLY, analyst)).toEqual(['orders.orders_by_status']);
      expect(await planned('row-filter', MONTHLY, sales)).toEqual(['orders.orders_by_customer_country']);
      const load = await call('row-filter', 'load', MONTHLY, 'POST', sales);
      expect(Object.keys(load.usedPreAggregations)).toEqual(['prod_pre_aggregations.orders_by_country']);
      const german = await expectedRows("SELECT count(*) AS n FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.country = 'Germany'");
      const total = (load.data as Record<string, string>[]).reduce((n, r) => n + Number(r['orders.count']), 0);
      expect(total).toBe(Number(german[0]!.n));
    },
    SLOW,
  );
});

describe("each rollup's structure as Cube names it", () => {
  it('a renamed rollup gets new tables (a new name and structure version); reordered measures keep both; sql_alias keeps the tables of a renamed rollup', async () => {
    const base = await entry('rollups', BY_STATUS_MONTHLY);
    const renamed = await entry('renamed', BY_STATUS_MONTHLY);
    expect(renamed.tableName).toBe('prod_pre_aggregations.orders_orders_daily');
    expect(getStructureVersion(renamed)).not.toBe(getStructureVersion(base));
    expect(renamed.sql).toEqual(base.sql);

    const reordered = await entry('reordered', BY_STATUS_MONTHLY);
    expect(reordered.tableName).toBe(base.tableName);
    expect(reordered.loadSql).toEqual(base.loadSql);
    expect(getStructureVersion(reordered)).toBe(getStructureVersion(base));

    const aliased = await entry('rollups', MONTHLY_BY_COUNTRY);
    const aliasedRenamed = await entry('aliasedRenamed', MONTHLY_BY_COUNTRY);
    expect(aliased.tableName).toBe('prod_pre_aggregations.orders_by_country');
    expect(aliasedRenamed).toMatchObject({ preAggregationId: 'orders.orders_per_country', tableName: aliased.tableName });
    expect(getStructureVersion(aliasedRenamed)).toBe(getStructureVersion(aliased));
  });

  it('a changed build range keeps the structure and changes the range queries; a query outside it still matches the rollup', async () => {
    const base = await entry('rollups', BY_STATUS_MONTHLY);
    const short = await entry('shortRange', {
      ...BY_STATUS_MONTHLY,
      timeDimensions: [{ ...BY_STATUS_MONTHLY.timeDimensions[0], dateRange: ['2024-01-01', '2024-03-31'] }],
    });
    expect(getStructureVersion(short)).toBe(getStructureVersion(base));
    expect(short.preAggregationStartEndQueries[0]).toEqual([`SELECT '${SHORT_RANGE.start}'::timestamp`, []]);
    expect(short.matchedTimeDimensionDateRange).toEqual(['2024-01-01T00:00:00.000', '2024-03-31T23:59:59.999']);
  });
});

it('finds the matcher internals the source-tables query replaces (a guard for upgrades of the pinned compiler)', () => {
  const { PostgresQuery, PreAggregations } = loadCompiler();
  for (const m of MATCHER_METHODS.query) expect(typeof (PostgresQuery.prototype as unknown as Record<string, unknown>)[m], m).toBe('function');
  for (const m of MATCHER_METHODS.matcher) expect(typeof (PreAggregations.prototype as unknown as Record<string, unknown>)[m], m).toBe('function');
});
