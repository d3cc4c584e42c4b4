/**
 * What the emulator's data API plays of Cube's gateway beyond one regular query, driven through the
 * vendor's own client (`@cubejs-client/core`, which sends every load with `queryType=multi`): a
 * `compareDateRange` query as one result per range, each with its `lastRefreshTime`; the refusal of one
 * sent without `queryType`; and the two tenant profiles of the data API: `unknown-member-500` (an
 * unknown member answered as Cube's internal error) and `stale-production-cache` (production answers
 * from a cache older than the warehouse unless the request asks for fresh data). Expected figures come
 * from hand-written SQL on the deployment's database.
 */
import cube, { type CubeApi, type Query } from '@cubejs-client/core';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, emulatorFixture, rawRequest, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let token: string;
let production: string;
let staging: string;
let previous: Dispatcher;
const BRANCH = 'data-api-vendor';

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  previous = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ connect: { ca: fx.em.ca } }));
  token = (await fx.admin.deployments.token({ deploymentId: 1, body: { expiresIn: 3600 } })).cubeApiToken;
  production = `${fx.em.deployments[0]!.deploymentUrl}/cubejs-api/v1`;
  staging = `${fx.em.deployments[0]!.deploymentUrl}/dev-mode/${BRANCH}/cubejs-api/v1`;
  await fx.admin.branches.create({ deploymentId: 1, body: { name: BRANCH, from: 'main' } });
  const main = fx.em.state.deployments[0]!.branches.main!.head;
  await uploadTree(fx.admin, 1, BRANCH, Object.fromEntries(Object.entries(main).map(([p, b]) => [p, Buffer.from(b, 'base64').toString()])));
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: BRANCH } });
}, 60_000);

afterAll(async () => {
  setGlobalDispatcher(previous);
  await fx.close();
});

const api = (url = production): CubeApi => cube(token, { apiUrl: url });

async function expected(sql: string): Promise<Record<string, string>[]> {
  return (await (await fx.em.engine.database(1)).query(sql, [])).rows as Record<string, string>[];
}

async function refusal(p: Promise<unknown>): Promise<{ message: string; status: number }> {
  const e = (await p.then(
    () => undefined,
    (x: unknown) => x,
  )) as { message: string; status: number } | undefined;
  if (!e) throw new Error('expected a refusal, got an answer');
  return e;
}

const COMPARED: Query = {
  measures: ['orders.count'],
  timeDimensions: [
    {
      dimension: 'orders.created_at',
      granularity: 'month',
      compareDateRange: [
        ['2024-01-01', '2024-03-31'],
        ['2025-01-01', '2025-03-31'],
      ],
    },
  ],
};

const monthly = (year: number) =>
  expected(
    `SELECT to_char(date_trunc('month', created_at), 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS m, count(*) AS n FROM orders WHERE created_at >= '${year}-01-01' AND created_at < '${year}-04-01' GROUP BY 1 ORDER BY 1`,
  );

describe('compareDateRange', () => {
  it('answers one result per range, each tagged with its range and its lastRefreshTime; the client pivots them side by side', async () => {
    const rs = await api().load(COMPARED);
    const raw = rs.serialize().loadResponse as unknown as {
      queryType: string;
      pivotQuery: { dimensions: string[]; queryType: string };
      results: { data: Record<string, string>[]; lastRefreshTime: string; query: { timeDimensions: { dateRange: string[] }[] } }[];
    };
    expect(raw.queryType).toBe('compareDateRangeQuery');
    expect(raw.pivotQuery).toMatchObject({ dimensions: ['compareDateRange'], queryType: 'compareDateRangeQuery' });
    expect(raw.results.map((r) => r.query.timeDimensions[0]!.dateRange)).toEqual([
      ['2024-01-01T00:00:00.000', '2024-03-31T23:59:59.999'],
      ['2025-01-01T00:00:00.000', '2025-03-31T23:59:59.999'],
    ]);
    for (const r of raw.results) expect(r.lastRefreshTime).toBe(new Date(fx.em.clock.now()).toISOString());
    for (const [i, year] of [2024, 2025].entries()) {
      const want = await monthly(year);
      expect(want).toHaveLength(3);
      expect(rs.decompose()[i]!.rawData()).toEqual(
        want.map((w) => ({
          'orders.created_at.month': w.m,
          'orders.created_at': w.m,
          'orders.count': w.n,
          compareDateRange: `${year}-01-01T00:00:00.000 - ${year}-03-31T23:59:59.999`,
        })),
      );
    }
    // The chart a period-over-period report draws: one series per range, three months each.
    expect(rs.seriesNames().map((s) => s.key)).toEqual([
      '2024-01-01T00:00:00.000 - 2024-03-31T23:59:59.999,orders.count',
      '2025-01-01T00:00:00.000 - 2025-03-31T23:59:59.999,orders.count',
    ]);
    expect(rs.chartPivot()).toHaveLength(3);
  });

  it("is refused without queryType, in the gateway's words; /sql answers one SQL per range and /dry-run both queries", async () => {
    const res = await rawRequest(fx.em, {
      method: 'POST',
      path: new URL(`${production}/load`).pathname,
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ query: COMPARED }),
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: "'compareDateRangeQuery' query type is not supported by the client.Please update the client." });
    const sqls = (await api().sql(COMPARED)) as unknown as { rawQuery(): { sql: [string, unknown[]] } }[];
    expect(sqls.map((q) => q.rawQuery().sql[1].slice(0, 1))).toEqual([['2024-01-01T00:00:00.000Z'], ['2025-01-01T00:00:00.000Z']]);
    const dry = (await api().dryRun(COMPARED)) as unknown as { queryType: string; normalizedQueries: unknown[] };
    expect(dry.queryType).toBe('compareDateRangeQuery');
    expect(dry.normalizedQueries).toHaveLength(2);
  });
});

describe('profile unknown-member-500', () => {
  it("answers an unknown member with Cube's internal error, 500 { error }, where the default answers 400 UserError", async () => {
    expect(await refusal(api().load({ measures: ['orders.cnt'] }))).toMatchObject({ status: 400, message: "'cnt' not found for path 'orders.cnt'" });
    await control(fx.em, 'profiles', { profiles: ['unknown-member-500'] });
    try {
      expect(await refusal(api().load({ measures: ['orders.cnt'] }))).toMatchObject({ status: 500, message: "Error: 'cnt' not found for path 'orders.cnt'" });
      expect(await refusal(api(staging).load({ measures: ['ordrs.count'] }))).toMatchObject({
        status: 500,
        message: "Error: Cube 'ordrs' not found for path 'ordrs.count'",
      });
      // A query Cube refuses for its format is still 400.
      expect(await refusal(api().load({ measures: ['count'] }))).toMatchObject({ status: 400 });
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  });
});

describe('profile stale-production-cache', () => {
  const DECEMBER: Query = {
    measures: ['orders.count'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: ['2025-11-01', '2025-12-31'] }],
  };
  const counts = (rows: Record<string, unknown>[]) => rows.map((r) => [String(r['orders.created_at.month']).slice(0, 7), r['orders.count']]);
  const refreshed = (rs: { serialize(): { loadResponse: unknown } }) =>
    (rs.serialize().loadResponse as { results: { lastRefreshTime: string }[] }).results[0]!.lastRefreshTime;

  it("production answers from a cache filled before the warehouse's last load unless fresh data is asked for; staging reads the warehouse", async () => {
    const want = await expected(
      "SELECT to_char(date_trunc('month', created_at), 'YYYY-MM') AS m, count(*) AS n FROM orders WHERE created_at >= '2025-11-01' GROUP BY 1 ORDER BY 1",
    );
    const fresh = want.map((w) => [w.m, w.n]);
    expect(fresh.map(([m]) => m)).toEqual(['2025-11', '2025-12']);
    const now = new Date(fx.em.clock.now()).toISOString();
    const hourAgo = new Date(fx.em.clock.now() - 3_600_000).toISOString();
    await control(fx.em, 'profiles', { profiles: ['stale-production-cache'] });
    try {
      // The default cache mode, and stale-while-revalidate: the cache's answer, without the late month.
      for (const options of [{}, { cache: 'stale-while-revalidate' as const }]) {
        const stale = await api().load(DECEMBER, options);
        expect(counts(stale.rawData())).toEqual([fresh[0]]);
        expect(refreshed(stale)).toBe(hourAgo);
      }
      for (const cache of ['no-cache', 'must-revalidate'] as const) {
        const rs = await api().load(DECEMBER, { cache });
        expect(counts(rs.rawData())).toEqual(fresh);
        expect(refreshed(rs)).toBe(now);
      }
      const preview = await api(staging).load(DECEMBER);
      expect(counts(preview.rawData())).toEqual(fresh);
      expect(refreshed(preview)).toBe(now);
      // A POST body's `cache` is read as the URL's is; the warehouse itself kept every row.
      const post = await cube(token, { apiUrl: production, method: 'POST' }).load(DECEMBER, { cache: 'no-cache' });
      expect(counts(post.rawData())).toEqual(fresh);
      expect(await expected("SELECT count(*) AS n FROM orders WHERE created_at >= '2025-12-01'")).toEqual([{ n: fresh[1]![1] }]);
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
    expect(counts((await api().load(DECEMBER)).rawData())).toEqual(fresh);
  });
});
