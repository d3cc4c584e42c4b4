/**
 * The Cube Store every environment of a deployment shares, in the emulator (real HTTPS sockets, Cube's own
 * matcher): production's refresh worker has built production's scheduled pre-aggregations; a `/load` (any
 * queryType) planned on a table the store lacks builds it, counted per table and environment and shown by
 * `GET /_emulator/rollup-builds`; `/v1/sql` builds nothing; under the `rollup-only` profile such a `/load`
 * is refused instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorFixture, control, rawRequest, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { ROLLUP_MODEL, ROLLUP_VARIANTS } from './support/rollup-model.js';

let fx: EmulatorFixture;
let token: string;
const ORDERS = 'model/cubes/orders.yml';
/** The partitioned rollup by the hour: its build SQL changes, so its tables are new. */
const HOURLY = { ...ROLLUP_MODEL, [ORDERS]: ROLLUP_MODEL[ORDERS]!.replace('        granularity: day\n', '        granularity: hour\n') };
/** The country rollup left out of the refresh worker's schedule: built by the first query that needs it. */
const UNSCHEDULED = {
  ...ROLLUP_MODEL,
  [ORDERS]: ROLLUP_MODEL[ORDERS]!.replace('        sql_alias: by_country\n', '        sql_alias: by_country\n        scheduled_refresh: false\n'),
};
const BRANCHES: Record<string, Record<string, string>> = { reordered: ROLLUP_VARIANTS.reordered, hourly: HOURLY, renamed: ROLLUP_VARIANTS.renamed };
const BY_STATUS = { measures: ['orders.count'], dimensions: ['orders.status'] };
const BY_COUNTRY = {
  measures: ['orders.count'],
  dimensions: ['customers.country'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
};

interface Builds {
  tables: Record<string, { preAggregationId: string; builtBy: string }>;
  builds: { table: string; preAggregationId: string; branch: string; production: boolean; count: number }[];
}
const builds = (): Promise<Builds> => control(fx.em, 'rollup-builds?deploymentId=1');

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  await uploadTree(fx.admin, 1, 'main', UNSCHEDULED);
  const envs = await fx.admin.deployments.environments({ deploymentId: 1 });
  const environmentId = String(envs.items.find((e) => e.type === 'production')!.id);
  token = (await fx.admin.deployments.createEnvironmentToken({ deploymentId: 1, environmentId, body: { security_context: {} } })).data.token;
  for (const [branch, tree] of Object.entries(BRANCHES)) {
    await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
    await uploadTree(fx.admin, 1, branch, tree);
    await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
  }
}, 90_000);
afterAll(() => fx.close());

/** One POST to a branch's data API (production's with `branch` undefined); the status and the JSON answer. */
async function call(branch: string | undefined, op: 'load' | 'sql', body: unknown): Promise<{ status: number; body: any }> {
  const path = `/d/1${branch ? `/dev-mode/${encodeURIComponent(branch)}` : ''}/cubejs-api/v1/${op}`;
  const text = JSON.stringify(body);
  const res = await rawRequest(fx.em, {
    method: 'POST',
    path,
    headers: { authorization: token, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
    body: text,
  });
  return { status: res.status, body: JSON.parse(res.text) };
}

const byBranch = (b: Builds, branch: string) => b.builds.filter((x) => x.branch === branch);

describe("the shared Cube Store: production's rollups built, a branch's changed one built by its first /load", () => {
  it("a branch's /load of a rollup production has (same structure) builds nothing; production's scheduled ones are the refresh worker's", async () => {
    const r = await call('reordered', 'load', { query: BY_STATUS });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Object.keys(r.body.usedPreAggregations ?? {})).toEqual(['prod_pre_aggregations.orders_orders_by_status']);
    const b = await builds();
    expect(b.builds).toEqual([]);
    const refreshed = Object.values(b.tables)
      .filter((t) => t.builtBy === 'refresh worker')
      .map((t) => t.preAggregationId);
    // The unscheduled country rollup is not among them.
    expect(refreshed.sort()).toEqual(['customers.customers_source', 'orders.orders_by_status']);
  }, 60_000);

  it('/v1/sql plans without building; the first /load of a changed rollup builds it once, for its branch; the state holds the count', async () => {
    expect((await call('hourly', 'sql', { query: BY_STATUS })).status).toBe(200);
    expect(byBranch(await builds(), 'hourly')).toEqual([]);
    expect((await call('hourly', 'load', { query: BY_STATUS })).status).toBe(200);
    expect((await call('hourly', 'load', { query: BY_STATUS })).status).toBe(200);
    const b = await builds();
    expect(byBranch(b, 'hourly')).toEqual([
      {
        table: expect.stringMatching(/^prod_pre_aggregations\.orders_orders_by_status_[0-9a-f]{8}$/),
        preAggregationId: 'orders.orders_by_status',
        branch: 'hourly',
        production: false,
        count: 1,
      },
    ]);
    // The same rollup name as production's, another table (its structure version).
    const production = Object.entries(b.tables).find(([, t]) => t.builtBy === 'refresh worker' && t.preAggregationId === 'orders.orders_by_status')![0];
    expect(byBranch(b, 'hourly')[0]!.table).not.toBe(production);
    expect(fx.em.state.deployments[0]!.cubeStore?.builds).toEqual(b.builds);
  }, 60_000);

  it('any queryType builds: a compareDateRange query sent as multi builds a renamed rollup', async () => {
    const query = {
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      timeDimensions: [
        {
          dimension: 'orders.created_at',
          granularity: 'day',
          compareDateRange: [
            ['2025-01-01', '2025-01-31'],
            ['2025-02-01', '2025-02-28'],
          ],
        },
      ],
    };
    const r = await call('renamed', 'load', { query, queryType: 'multi' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(byBranch(await builds(), 'renamed').map((x) => x.preAggregationId)).toEqual(['orders.orders_daily']);
  }, 60_000);

  it("a rollup production does not schedule is built by production's own first /load, counted for production", async () => {
    expect((await call(undefined, 'load', { query: BY_COUNTRY })).status).toBe(200);
    expect((await builds()).builds.filter((x) => x.production)).toEqual([
      {
        table: expect.stringMatching(/^prod_pre_aggregations\.orders_by_country_/),
        preAggregationId: 'orders.orders_by_customer_country',
        branch: 'main',
        production: true,
        count: 1,
      },
    ]);
    // Built once in the shared store: a branch's /load of the same table builds nothing more.
    expect((await call('reordered', 'load', { query: BY_COUNTRY })).status).toBe(200);
    expect(byBranch(await builds(), 'reordered')).toEqual([]);
  }, 60_000);
});

describe('profile rollup-only: an API instance that builds nothing refuses instead', () => {
  it("a /load of a table not built is Cube's 400; one production has built answers", async () => {
    await control(fx.em, 'profiles', { profiles: ['rollup-only'] });
    try {
      const before = (await builds()).builds.length;
      // Another time zone: another build SQL, so a table nobody has built yet.
      const refused = await call('renamed', 'load', { query: { ...BY_STATUS, timezone: 'Europe/Paris' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/^No pre-aggregation partitions were built yet/);
      expect((await builds()).builds).toHaveLength(before);
      expect((await call('reordered', 'load', { query: BY_STATUS })).status).toBe(200);
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 60_000);

  it('the control route names the deployment it needs', async () => {
    await expect(control(fx.em, 'rollup-builds?deploymentId=999')).rejects.toThrow(/deploymentId: got 999/);
  });
});
