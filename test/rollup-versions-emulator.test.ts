/**
 * Rollup verdicts when production and the preview plan with other Cube versions (issue 39, item 3), against
 * the emulator under `production-release-channel`: production on its release channel's 1.6.33 (the JS
 * planner), staging on 1.7.20 (Tesseract, which serves a rolling-window measure from no rollup directly,
 * cube-js/cube #11419). A pull request that changes nothing of the rolling rollup sees its key query "lost":
 * the row is labelled as one that may come from the versions, kept out of `fail-on-rollup-loss` and of
 * "rebuilt". Without the profile the same plans agree (Cube's own matcher on both sides).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { HttpClient } from '../src/client/http.js';
import { planQuery } from '../src/operations/rollup-plans.js';
import { json, startTestServer } from './support/https-server.js';
import type { DataDiffPlan } from '../src/impact/data/plan.js';
import type { KeyQuery } from '../src/impact/data/types.js';
import type { OpContext } from '../src/operations/context.js';
import { readCubeVersions } from '../src/operations/cube-versions.js';
import { analyseImpact } from '../src/operations/impact.js';
import { rollupPlansStep } from '../src/operations/rollup-plans.js';
import { presentRollups } from '../src/pr/present-rollups.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { cliIo, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { ROLLUP_MODEL } from './support/rollup-model.js';

const ORDERS = 'model/cubes/orders.yml';
/** The rollup model with a trailing week's amount and a rollup holding it by day. */
const ROLLING_MODEL: Record<string, string> = {
  ...ROLLUP_MODEL,
  [ORDERS]: ROLLUP_MODEL[ORDERS]!.replace(
    '    dimensions:\n',
    `      - name: week_amount
        type: sum
        sql: amount
        rolling_window:
          trailing: 7 day
    dimensions:
`,
  ).replace(
    '    pre_aggregations:\n',
    `    pre_aggregations:
      - name: week_amount_by_day
        measures: [week_amount]
        time_dimension: created_at
        granularity: day
`,
  ),
};
/** The pull request: a description added to a dimension no rollup holds (nothing a plan reads). */
const UNRELATED_EDIT = {
  ...ROLLING_MODEL,
  'model/cubes/customers.yml': `${ROLLING_MODEL['model/cubes/customers.yml']}`.replace(
    '  - name: customers\n',
    '  - name: customers\n    description: Our customers\n',
  ),
};
const KEYS: KeyQuery[] = [
  {
    name: 'trailing week',
    source: 'file',
    query: {
      measures: ['orders.week_amount'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day', dateRange: ['2025-01-01', '2025-01-31'] }],
    },
  },
  { name: 'by status', source: 'file', query: { measures: ['orders.count'], dimensions: ['orders.status'] } },
];
const limits = { maxQueries: 20, maxRows: 1000, concurrency: 2, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0 };
const plan: DataDiffPlan = {
  settings: { mode: 'off', allowPublic: false, securityContext: {}, limits, failOnChange: false },
  fileQueries: KEYS,
  refusal: 'the data diff is off',
};

/** A deployment whose production runs the rolling model and a branch `pr` with the unrelated edit, staging on. */
async function setUp(profiles: string[]): Promise<EmulatorFixture> {
  const fx = await emulatorFixture({ continueWaitPolls: 0, profiles: profiles as never });
  await uploadTree(fx.admin, 1, 'main', ROLLING_MODEL);
  await fx.admin.branches.create({ deploymentId: 1, body: { name: 'pr', from: 'main' } });
  await uploadTree(fx.admin, 1, 'pr', UNRELATED_EDIT);
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: 'pr' } });
  return fx;
}

async function rollupsOn(fx: EmulatorFixture) {
  const ctx: OpContext = { client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca };
  const impact = await analyseImpact(ctx, { branch: 'pr', deployBranch: 'main', headFiles: new Map(Object.entries(UNRELATED_EDIT)), personas: [] });
  const versions = await readCubeVersions(ctx);
  return { versions, r: await rollupPlansStep(ctx, plan, impact, versions) };
}

let skewed: EmulatorFixture;
let same: EmulatorFixture;
beforeAll(async () => {
  [skewed, same] = await Promise.all([setUp(['production-release-channel']), setUp([])]);
}, 120_000);
afterAll(async () => {
  await Promise.all([skewed?.close(), same?.close()]);
});

describe('rollup plans from two Cube versions', () => {
  it('production 1.6.33 (JS planner), staging 1.7.20 (Tesseract): the rolling query reads lost, labelled, and fails nothing', async () => {
    const { versions, r } = await rollupsOn(skewed);
    expect(versions).toMatchObject({ production: '1.6.33', staging: '1.7.20' });
    const label = 'may come from the Cube versions (production 1.6.33, staging 1.7.20) and their planners (JS planner, Tesseract)';
    expect(r.versions).toBe(label);
    expect(r.changes).toEqual([{ query: 'trailing week', production: 'orders.week_amount_by_day', preview: null, change: 'lost', versions: label }]);
    const shown = presentRollups(r, 'pr', true, true);
    expect(shown.failure).toBeUndefined();
    expect(shown.outputs['rollups-lost-count']).toBe('0');
  }, 60_000);

  it('the same model and Cube on both sides: the plans agree, nothing is labelled', async () => {
    const { versions, r } = await rollupsOn(same);
    expect(versions.production).toBe(versions.staging);
    expect(r.versions).toBeUndefined();
    expect(r.changes).toEqual([]);
  }, 60_000);

  it("a compareDateRange key query is planned (sent as multi, Cube's list of plans read whole), not refused", async () => {
    const ctx: OpContext = { client: same.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: same.em.ca };
    const impact = await analyseImpact(ctx, { branch: 'pr', deployBranch: 'main', headFiles: new Map(Object.entries(UNRELATED_EDIT)), personas: [] });
    const compared: KeyQuery = {
      name: 'status, this month against last',
      source: 'file',
      query: {
        measures: ['orders.count'],
        dimensions: ['orders.status'],
        timeDimensions: [
          {
            dimension: 'orders.created_at',
            granularity: 'day',
            compareDateRange: [
              ['2025-02-01', '2025-02-28'],
              ['2025-01-01', '2025-01-31'],
            ],
          },
        ],
      },
    };
    const r = await rollupPlansStep(ctx, { ...plan, fileQueries: [compared] }, impact);
    expect(r.notices).toEqual([]);
    const p = r.plans?.find((x) => x.query === compared.name);
    expect(p?.production).toEqual({
      entries: [expect.objectContaining({ id: 'orders.orders_by_status' }), expect.objectContaining({ id: 'orders.orders_by_status' })],
    });
    expect(r.changes).toEqual([]);
    // On the wire: the query goes with queryType multi, as the data diff sends it; a plain query without.
    const server = await startTestServer((_q, res) => json(res, 200, [{ sql: { preAggregations: [] } }, { sql: { preAggregations: [] } }]));
    const client = new HttpClient({ baseUrl: server.baseUrl, apiKey: 't', authScheme: 'raw', ca: server.ca });
    try {
      expect(await planQuery(client, '/cubejs-api/v1/sql', compared, 10_000)).toEqual({ entries: [] });
      await planQuery(client, '/cubejs-api/v1/sql', KEYS[1]!, 10_000);
      expect(server.requests.map((q) => q.json)).toEqual([{ query: compared.query, queryType: 'multi' }, { query: KEYS[1]!.query }]);
    } finally {
      await client.close();
      await server.close();
    }
  }, 60_000);

  it('datamodel-ci diff --fail-on-rollup-loss passes a pull request with no change in its rollups, and says why the row differs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-rollup-versions-'));
    for (const [path, content] of Object.entries(UNRELATED_EDIT)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    const queries = join(dir, 'key-queries.json');
    writeFileSync(queries, JSON.stringify({ queries: KEYS.map((k) => ({ name: k.name, query: k.query })) }));
    const t = cliIo(skewed.em);
    const code = await runCli(
      ['diff', '--deployment-id', '1', '--branch', 'pr', '--model-dir', dir, '--data-diff-queries', queries, '--fail-on-rollup-loss'],
      t,
    );
    const said = [...t.stdout, ...t.stderr].join('\n');
    expect(code, said).toBe(0);
    expect(said).toContain(
      'rollups: trailing week: lost: orders.week_amount_by_day → none (may come from the Cube versions (production 1.6.33, staging 1.7.20)',
    );
  }, 90_000);
});
