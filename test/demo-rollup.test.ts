/**
 * The demo's rollup pull request, checked against Cube's own matcher in the emulator (`/v1/sql`): production's
 * rollup serves the reports that count orders by status and by week; once `orders.count` is a distinct count
 * they leave it (it cannot be added up across the rollup's days), while a query of exactly the rollup's
 * members and day keeps it. The demo's comment says so only when the rollup impact is on; this holds without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ROLLUP_MODEL, distinctCount } from '../scripts/demo-rollup.js';
import { findEnvironments } from '../src/operations/impact.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { emulatorFixture, rawRequest, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let token: string;
/** The data API's path on production and on the pull request's staging environment. */
const paths: Record<'production' | 'preview', string> = { production: '', preview: '' };
const BRANCH = 'distinct-orders';
const ORDERS = 'model/cubes/orders.yml';

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  await uploadTree(fx.admin, 1, 'main', DEMO_ROLLUP_MODEL);
  await fx.admin.branches.create({ deploymentId: 1, body: { name: BRANCH, from: 'main' } });
  await uploadTree(fx.admin, 1, BRANCH, { ...DEMO_ROLLUP_MODEL, [ORDERS]: distinctCount(DEMO_ROLLUP_MODEL[ORDERS]!) });
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: BRANCH } });
  const envs = await findEnvironments({ client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false }, BRANCH);
  paths.production = new URL(envs.production!.restUrl).pathname;
  paths.preview = new URL(envs.staging!.restUrl).pathname;
  const environmentId = envs.production!.id;
  token = (await fx.admin.deployments.createEnvironmentToken({ deploymentId: 1, environmentId, body: { security_context: {} } })).data.token;
}, 60_000);

afterAll(() => fx.close());

/** The pre-aggregations Cube plans a query on, on production or the pull request's preview. */
async function planned(side: keyof typeof paths, query: unknown): Promise<string[]> {
  const text = JSON.stringify({ query });
  const res = await rawRequest(fx.em, {
    method: 'POST',
    path: `${paths[side]}/sql`,
    headers: { authorization: token, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
    body: text,
  });
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text).sql.preAggregations as { preAggregationId: string }[]).map((p) => p.preAggregationId);
}

/** The seeded reports' queries the pull request moves: "Orders by status" and the draft's "Orders per week". */
const BY_STATUS = { measures: ['orders.count'], dimensions: ['orders.status'], order: { 'orders.count': 'desc' } };
const PER_WEEK = { measures: ['orders_view.count'], timeDimensions: [{ dimension: 'orders_view.created_at', granularity: 'week' }] };
/** Exactly the rollup's members and granularity: a distinct count needs no adding up. */
const BY_STATUS_AND_DAY = {
  measures: ['orders.count'],
  dimensions: ['orders.status'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day', dateRange: ['2025-01-01', '2025-01-31'] }],
};

describe("the demo's distinct count", () => {
  it('counts distinct ids, and refuses a cube without a plain count', () => {
    expect(distinctCount(DEMO_ROLLUP_MODEL[ORDERS]!)).toContain('type: count_distinct\n        sql: id\n');
    expect(() => distinctCount('cubes: []\n')).toThrow(/no plain count/);
  });

  it("moves the reports counting orders by status and by week off production's rollup; an exact match keeps it", async () => {
    for (const query of [BY_STATUS, PER_WEEK]) {
      expect(await planned('production', query)).toEqual(['orders.orders_by_status']);
      expect(await planned('preview', query)).toEqual([]);
    }
    expect(await planned('production', BY_STATUS_AND_DAY)).toEqual(['orders.orders_by_status']);
    expect(await planned('preview', BY_STATUS_AND_DAY)).toEqual(['orders.orders_by_status']);
  }, 60_000);
});
