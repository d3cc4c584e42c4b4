/**
 * The data REST API of the emulator through the vendor's own client, `@cubejs-client/core` 1.7.43, as a
 * user would drive it (LocalStack's tests drive it through the vendor's SDK): production and staging
 * URLs, meta, load (GET and POST), sql, dry run, Continue wait, and the refusals. Expected figures are
 * read from the deployment's database with hand-written SQL, not from the engine's own SQL.
 */
import cube, { type CubeApi, type Query } from '@cubejs-client/core';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformClient } from '../src/client/index.js';
import { control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let c: PlatformClient;
let token: string;
let production: string;
let previous: Dispatcher;
const SLOW = 90_000;

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  c = fx.admin;
  // The client uses the global fetch: trust the emulator's CA there, as NODE_EXTRA_CA_CERTS would.
  previous = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ connect: { ca: fx.em.ca } }));
  token = (await c.deployments.token({ deploymentId: 1, body: { expiresIn: 3600 } })).cubeApiToken;
  production = `${fx.em.deployments[0]!.deploymentUrl}/cubejs-api/v1`;
});

afterAll(async () => {
  setGlobalDispatcher(previous);
  await fx.close();
});

const api = (url = production, t = token, options: { method?: 'GET' | 'POST'; castNumerics?: boolean } = {}): CubeApi => cube(t, { apiUrl: url, ...options });

/** Rows of hand-written SQL on deployment 1's database. */
async function expected(sql: string): Promise<Record<string, string>[]> {
  const db = await fx.em.engine.database(1);
  return (await db.query(sql, [])).rows as Record<string, string>[];
}

/** What a call threw: the client's RequestError carries the status and the body. */
async function refusal(p: Promise<unknown>): Promise<{ message: string; status: number; response: unknown }> {
  const e = (await p.then(
    () => undefined,
    (x: unknown) => x,
  )) as { message: string; status: number; response: unknown } | undefined;
  if (!e) throw new Error('expected a refusal, got an answer');
  return e;
}

const QUARTERS: Query = {
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.status'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'quarter', dateRange: ['2024-01-01', '2024-12-31'] }],
  filters: [{ member: 'orders.status', operator: 'equals', values: ['completed'] }],
  order: { 'orders.created_at': 'asc' },
};

describe('meta()', () => {
  it('lists the cubes and views of production as the compiler describes them, hidden members left out', async () => {
    const meta = await api().meta();
    expect(meta.cubes.map((x) => x.name)).toEqual(['customers', 'orders', 'orders_view']);
    const orders = meta.cubes.find((x) => x.name === 'orders')!;
    expect(orders.measures.map((m) => m.name)).toEqual(['orders.count', 'orders.total_amount']);
    // Primary keys are not public unless the model says so.
    expect(orders.dimensions.map((d) => d.name)).toEqual(['orders.status', 'orders.created_at']);
    expect(meta.resolveMember('orders.total_amount', 'measures')).toMatchObject({ title: 'Orders Total Amount', shortTitle: 'Total Amount', type: 'number' });
    expect(meta.resolveMember('orders_view.customers_country', 'dimensions')).toMatchObject({ type: 'string' });
    expect(meta.membersForQuery(null, 'measures').length).toBe(5);
  });
});

describe('load()', () => {
  it(
    'a time dimension with granularity and date range, a filter and an order: the rows of the database, numbers as strings',
    async () => {
      const rs = await api().load(QUARTERS);
      const want = await expected(
        "SELECT date_trunc('quarter', created_at) AS q, count(*) AS n, sum(amount) AS total FROM orders WHERE status = 'completed' AND created_at >= '2024-01-01' AND created_at < '2025-01-01' GROUP BY 1 ORDER BY 1",
      );
      expect(want).toHaveLength(4);
      expect(rs.rawData()).toEqual(
        want.map((w) => {
          const quarter = `${w.q!.replace(' ', 'T')}.000`;
          return {
            'orders.status': 'completed',
            'orders.created_at.quarter': quarter,
            'orders.count': w.n,
            'orders.total_amount': w.total,
            'orders.created_at': quarter,
          };
        }),
      );
      expect(typeof rs.rawData()[0]!['orders.count']).toBe('string');
      expect(rs.tablePivot()).toHaveLength(4);
      expect(rs.tablePivot()[0]).toMatchObject({
        'orders.status': 'completed',
        'orders.created_at.quarter': '2024-01-01T00:00:00.000',
        'orders.count': want[0]!.n,
      });
      const chart = rs.chartPivot();
      expect(chart.map((p) => p.x)).toEqual(['2024-01-01T00:00:00.000', '2024-04-01T00:00:00.000', '2024-07-01T00:00:00.000', '2024-10-01T00:00:00.000']);
      expect(chart[0]!['completed,orders.count']).toBe(Number(want[0]!.n));
      expect(rs.seriesNames().map((s) => s.key)).toEqual(['completed,orders.count', 'completed,orders.total_amount']);
      expect(rs.tableColumns().map((col) => col.key)).toEqual(['orders.created_at.quarter', 'orders.status', 'orders.count', 'orders.total_amount']);
      expect(rs.annotation().timeDimensions['orders.created_at.quarter']).toMatchObject({
        type: 'time',
        granularity: { name: 'quarter', interval: '1 quarter' },
      });
      expect(rs.query()).toMatchObject({ rowLimit: 10_000, order: [{ id: 'orders.created_at', desc: false }], timezone: 'UTC' });
      expect(rs.pivotQuery().queryType).toBe('regularQuery');
      const raw = rs.serialize() as { loadResponse: { results: { lastRefreshTime: string }[] } };
      expect(raw.loadResponse.results[0]!.lastRefreshTime).toBe(new Date(fx.em.clock.now()).toISOString());
    },
    SLOW,
  );

  it('chartPivot() fills the months a date range covers; castNumerics turns the strings into numbers', async () => {
    const query: Query = {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: ['2025-01-01', '2025-06-30'] }],
      filters: [{ member: 'orders.total_amount', operator: 'gt', values: ['990'] }],
    };
    const rs = await api().load(query);
    expect(rs.chartPivot().map((p) => p.x.slice(0, 7))).toEqual(['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06']);
    const cast = await api(production, token, { castNumerics: true }).load({ measures: ['orders.count'] });
    expect(cast.rawData()).toEqual([{ 'orders.count': 5000 }]);
  });

  it('measures across a join, dimensions, limit and a descending order; a view answers the same', async () => {
    const rs = await api().load({ measures: ['orders.count'], dimensions: ['customers.country'], order: [['orders.count', 'desc']], limit: 3 });
    const want = await expected('SELECT c.country, count(*) AS n FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY 1 ORDER BY 2 DESC LIMIT 3');
    expect(rs.rawData()).toEqual(want.map((w) => ({ 'customers.country': w.country, 'orders.count': w.n })));
    const view = await api().load({
      measures: ['orders_view.count'],
      dimensions: ['orders_view.customers_country'],
      order: [['orders_view.count', 'desc']],
      limit: 3,
    });
    expect(view.rawData().map((r) => r['orders_view.count'])).toEqual(want.map((w) => w.n));
  });

  it('filters: or-groups, set, contains; a relative date range on the emulator clock', async () => {
    const rs = await api().load({
      measures: ['orders.count'],
      filters: [
        {
          or: [
            { member: 'orders.status', operator: 'equals', values: ['new'] },
            { member: 'orders.status', operator: 'equals', values: ['shipped'] },
          ],
        },
        { member: 'customers.country', operator: 'set' },
        { member: 'customers.name', operator: 'contains', values: ['a'] },
      ],
    });
    const [want] = await expected(
      "SELECT count(*) AS n FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status IN ('new', 'shipped') AND c.country IS NOT NULL AND c.name ILIKE '%a%'",
    );
    expect(rs.rawData()).toEqual([{ 'orders.count': want!.n }]);
    const relative = await api().load({ measures: ['orders.count'], timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'last 7 days' }] });
    expect(relative.query().timeDimensions?.[0]?.dateRange).toHaveLength(2);
  });

  it('POST load: the same answer as GET', async () => {
    const get = await api().load(QUARTERS);
    const post = await api(production, token, { method: 'POST' }).load(QUARTERS);
    expect(post.rawData()).toEqual(get.rawData());
  });
});

describe('sql() and dryRun()', () => {
  it("sql(): the compiler's Postgres SQL and its parameters", async () => {
    const q = await api().sql(QUARTERS);
    expect(q.sql()).toContain(`date_trunc('quarter', ("orders".created_at::timestamptz AT TIME ZONE 'UTC'))`);
    expect(q.sql()).toMatch(/ORDER BY \d+ ASC LIMIT 10000$/);
    const raw = q.rawQuery() as unknown as { sql: [string, unknown[]]; aliasNameToMember: Record<string, string>; order: Record<string, string> };
    expect(raw.sql[1]).toEqual(['2024-01-01T00:00:00.000Z', '2024-12-31T23:59:59.999Z', 'completed']);
    expect(raw.aliasNameToMember).toMatchObject({ orders__count: 'orders.count', orders__created_at_quarter: 'orders.created_at.quarter' });
    expect(raw.order).toEqual({ 'orders.created_at': 'asc' });
  });

  it('dryRun(): the normalised query, its order and the pivot query', async () => {
    const r = (await api().dryRun(QUARTERS)) as unknown as {
      queryType: string;
      normalizedQueries: Record<string, unknown>[];
      queryOrder: unknown[];
      pivotQuery: Record<string, unknown>;
    };
    expect(r.queryType).toBe('regularQuery');
    expect(r.normalizedQueries[0]).toMatchObject({ limit: 10_000, rowLimit: 10_000, timezone: 'UTC', cacheMode: 'stale-if-slow', queryType: 'regularQuery' });
    expect(r.normalizedQueries[0]!.timeDimensions).toEqual([
      { dimension: 'orders.created_at', granularity: 'quarter', dateRange: ['2024-01-01T00:00:00.000', '2024-12-31T23:59:59.999'] },
    ]);
    expect(r.queryOrder).toEqual([{ 'orders.created_at': 'asc' }]);
    expect(r.pivotQuery).toEqual(r.normalizedQueries[0]);
  });
});

describe('Continue wait', () => {
  it('answers "Continue wait" to the first polls of a query (the client polls again at once), as many as set; 0 none', async () => {
    await control(fx.em, 'tenant', { continueWaitPolls: 3 });
    const waits: unknown[] = [];
    const rs = await api().load({ measures: ['customers.count'] }, { progressCallback: (p) => waits.push(p) });
    expect(waits).toHaveLength(3);
    expect(rs.rawData()).toEqual([{ 'customers.count': '300' }]);
    await control(fx.em, 'tenant', { continueWaitPolls: 0 });
    const none: unknown[] = [];
    await api().load({ measures: ['customers.count'] }, { progressCallback: (p) => none.push(p) });
    expect(none).toEqual([]);
  });
});

describe('staging', () => {
  it(
    "a staging environment serves its branch's model; the same branch is refused while its staging is off",
    async () => {
      const branch = 'data-api-staging';
      await c.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
      const payments =
        'cubes:\n  - name: payments\n    sql_table: public.payments\n    measures:\n      - name: total\n        type: sum\n        sql: amount\n    dimensions:\n      - name: method\n        sql: method\n        type: string\n';
      await uploadTree(c, 1, branch, {
        ...Object.fromEntries(Object.entries(fx.em.state.deployments[0]!.branches.main!.head).map(([p, b]) => [p, Buffer.from(b, 'base64').toString()])),
        'model/cubes/payments.yml': payments,
      });
      const staging = `${fx.em.deployments[0]!.deploymentUrl}/dev-mode/${encodeURIComponent(branch)}/cubejs-api/v1`;
      const off = await refusal(api(staging).meta());
      expect(off.status).toBe(403);
      expect(off.message).toContain('staging environment');
      await c.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
      expect((await api(staging).meta()).cubes.map((x) => x.name)).toContain('payments');
      expect((await api().meta()).cubes.map((x) => x.name)).not.toContain('payments');
      const rs = await api(staging).load({ measures: ['payments.total'], dimensions: ['payments.method'], order: { 'payments.method': 'asc' } });
      const want = await expected('SELECT method, sum(amount) AS total FROM payments GROUP BY 1 ORDER BY 1');
      expect(rs.rawData()).toEqual(want.map((w) => ({ 'payments.method': w.method, 'payments.total': w.total })));
      const prod = await refusal(api().load({ measures: ['payments.total'] }));
      expect(prod).toMatchObject({ status: 400, message: "Cube 'payments' not found for path 'payments.total'" });
    },
    SLOW,
  );
});

describe("refusals, in Cube's words", () => {
  it('a bad token, a token of another deployment, an expired one: 403 Invalid token', async () => {
    for (const t of ['not-a-jwt', (await c.deployments.token({ deploymentId: 2, body: { expiresIn: 600 } })).cubeApiToken]) {
      expect(await refusal(api(production, t).meta())).toMatchObject({ status: 403, message: 'Invalid token' });
    }
    const short = (await c.deployments.token({ deploymentId: 1, body: { expiresIn: 60 } })).cubeApiToken;
    expect((await api(production, short).meta()).cubes.length).toBe(3);
    fx.em.clock.advance(61_000);
    expect(await refusal(api(production, short).load({ measures: ['orders.count'] }))).toMatchObject({ status: 403, message: 'Invalid token' });
  });

  it('a metadata-only token reads /meta; data and SQL need their scopes', async () => {
    const envs = await c.deployments.environments({ deploymentId: 1 });
    const prod = envs.items.find((e) => e.type === 'production')!;
    const metaOnly = (await c.deployments.createMetaSyncToken({ deploymentId: 1, environmentId: String(prod.id), body: { security_context: {} } })).data.token;
    expect((await api(production, metaOnly).meta()).cubes.length).toBe(3);
    expect(await refusal(api(production, metaOnly).load({ measures: ['orders.count'] }))).toMatchObject({ status: 403, message: 'API scope is missing: data' });
    expect(await refusal(api(production, metaOnly).sql({ measures: ['orders.count'] }))).toMatchObject({ status: 403, message: 'API scope is missing: sql' });
  });

  it('unknown and hidden members, bad query formats', async () => {
    expect(await refusal(api().load({ measures: ['orders.cnt'] }))).toMatchObject({
      status: 400,
      message: "'cnt' not found for path 'orders.cnt'",
      response: { type: 'UserError' },
    });
    expect(await refusal(api().load({ measures: ['ordrs.count'] }))).toMatchObject({ status: 400, message: "Cube 'ordrs' not found for path 'ordrs.count'" });
    const hidden = await refusal(api().load({ dimensions: ['orders.id'] }));
    expect(hidden.status).toBe(500);
    expect(hidden.message).toMatch(/^Error: You requested hidden member: 'orders\.id'\. Please make it visible using `public: true`/);
    expect(await refusal(api().load({ measures: ['count'] }))).toMatchObject({
      status: 400,
      message: 'Invalid query format: "measures[0]" with value "count" fails to match the required pattern: /^[a-zA-Z0-9_]+\\.[a-zA-Z0-9_]+$/',
    });
    expect(await refusal(api().load({ measures: ['orders.count'], timezone: 'Mars/Base' }))).toMatchObject({
      message: 'Invalid query format: "timezone" must be a valid IANA time zone, got "Mars/Base"',
    });
    expect(await refusal(api().load({ filters: [] }))).toMatchObject({
      status: 400,
      message: 'Query should contain either measures, dimensions or timeDimensions with granularities in order to be valid',
    });
    expect(await refusal(api().load({ measures: ['orders.count'], limit: 50_001 }))).toMatchObject({
      status: 500,
      message: 'Error: The query limit has been exceeded.',
    });
  });
});
