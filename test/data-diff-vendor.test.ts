/**
 * The data diff against the emulator's data API as Cube's gateway answers it (issue 30): a report with
 * `compareDateRange` (the period-over-period chart) sent with `queryType: 'multi'` and compared range by
 * range; a key query naming a member only the pull request has, answered with Cube's own 500 (profile
 * `unknown-member-500`), reported at once after one request; production answering from a cache older
 * than the warehouse (profile `stale-production-cache`) asked for fresh data, both read times shown,
 * and the requests of the run counted in the job summary.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import type { DataDiffResult, DataDiffSettings, KeyQuery } from '../src/impact/data/types.js';
import { walkModel } from '../src/model/local-model.js';
import { localModelFiles } from '../src/model/model-files.js';
import type { OpContext } from '../src/operations/context.js';
import { dataDiffFor } from '../src/operations/data-diff.js';
import { enableStaging } from '../src/operations/enable-staging.js';
import { analyseImpact, type ImpactResult } from '../src/operations/impact.js';
import { ensureSharedBranch } from '../src/operations/start-dev-branch.js';
import { uploadModel } from '../src/operations/upload-model.js';
import { numbersView, renderNumbers } from '../src/pr/comment/render-numbers.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { control, emulatorFixture, localOf, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let dir: string;
let impact: ImpactResult;
const BRANCH = 'preview-pr-61';
/** The pull request: cancelled orders no longer count as revenue, and a new measure. */
const ORDERS = DEMO_MODEL['model/cubes/orders.yml']!.replace(
  '        sql: amount\n',
  `        sql: "CASE WHEN status = 'cancelled' THEN 0 ELSE amount END"\n`,
).replace('    dimensions:\n', '      - name: average_amount\n        type: avg\n        sql: amount\n    dimensions:\n');
const REPORT = 'Revenue, Q1 against the year before';

const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 1 });
  dir = mkdtempSync(join(tmpdir(), 'dmci-data-vendor-'));
  for (const [path, content] of Object.entries({ ...DEMO_MODEL, 'model/cubes/orders.yml': ORDERS })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  await ensureSharedBranch(ctx(), BRANCH, 'main');
  await uploadModel(ctx(), { branch: BRANCH, modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: BRANCH });
  await enableStaging(ctx(), { branch: BRANCH, smokeTest: false });
  // The period-over-period chart of a team: revenue by month, this year's first quarter against last year's.
  const jsonQuery = {
    measures: ['orders_view.total_amount'],
    timeDimensions: [
      {
        dimension: 'orders_view.created_at',
        granularity: 'month',
        compareDateRange: [
          ['2025-01-01', '2025-03-31'],
          ['2024-01-01', '2024-03-31'],
        ],
      },
    ],
  };
  await fx.admin.workspace.createReport({ deploymentId: 1, body: { name: REPORT, jsonQuery: JSON.stringify(jsonQuery) } });
  impact = await analyseImpact(ctx(), { branch: BRANCH, deployBranch: 'main', headFiles: await localModelFiles(await walkModel(dir), dir) });
}, 90_000);
afterAll(() => fx.close());

const settings = (extra: Partial<DataDiffSettings['limits']> = {}): DataDiffSettings & { mode: 'values' } => ({
  mode: 'values',
  allowPublic: false,
  securityContext: {},
  limits: { maxQueries: 20, maxRows: 1000, concurrency: 4, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0, ...extra },
  failOnChange: false,
});
const file = (name: string, query: KeyQuery['query']): KeyQuery => ({ name, source: 'file', query });

describe('the data diff on a data API that answers as Cube does', () => {
  it('compares a compareDateRange report range by range (sent with queryType multi)', async () => {
    const d = (await dataDiffFor(ctx(), impact, settings(), [])) as DataDiffResult;
    const report = d.queries.find((q) => q.name === `Report “${REPORT}”`)!;
    expect(report).toMatchObject({ status: 'changed', why: 'uses orders_view.total_amount', comparison: { rows: { base: 6, head: 6 }, added: 0, removed: 0 } });
    // Each month of each range moved (cancelled orders left out), keyed by its range and month.
    expect(report.comparison!.changed).toBe(6);
    expect(report.comparison!.largest[0]!.key).toMatch(/^compareDateRange = 202[45]-01-01 – 202[45]-03-31, created_at\.month = 202[45]-0[1-3]$/);
    expect(report.comparison!.largest[0]!.rel).toBeLessThan(0);
  }, 60_000);

  it("takes Cube's 500 for a member production lacks as its answer: one request, the query reported failed there at once", async () => {
    await control(fx.em, 'profiles', { profiles: ['unknown-member-500'] });
    try {
      const before = fx.em.counts['data-api'] ?? 0;
      const query = file('Average order', { measures: ['orders.average_amount'] });
      const d = (await dataDiffFor(ctx(), impact, settings({ maxQueries: 1, queryTimeoutMs: 5_000 }), [query])) as DataDiffResult;
      expect(d.queries).toHaveLength(1);
      expect(d.queries[0]).toMatchObject({
        status: 'failed',
        failed: { side: 'production', message: expect.stringContaining("-> 500: Error: 'average_amount' not found for path 'orders.average_amount'") },
      });
      // One request to production; the preview's answer came after one "Continue wait".
      expect((fx.em.counts['data-api'] ?? 0) - before).toBe(3);
      expect(d.requests).toEqual({ production: 1, preview: 2 });
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 60_000);

  it("asks for fresh answers, so production's stale cache is no difference; both read times are shown, and the summary counts the requests", async () => {
    await control(fx.em, 'profiles', { profiles: ['stale-production-cache'] });
    try {
      // orders.count is not changed by the pull request: its numbers must not move.
      const months = file('Orders by month, last quarter of 2025', {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: ['2025-10-01', '2025-12-31'] }],
      });
      const d = (await dataDiffFor(ctx(), impact, settings({ maxQueries: 1 }), [months])) as DataDiffResult;
      const now = new Date(fx.em.clock.now()).toISOString();
      expect(d.queries[0]).toMatchObject({ status: 'unchanged', comparison: { rows: { base: 3, head: 3 } }, refreshed: { base: now, head: now } });
      expect(d.refreshed).toEqual({ production: now, preview: now });
      const view = numbersView(d);
      const stamp = `${now.slice(0, 10)} ${now.slice(11, 19)} UTC`;
      const line = `Data as read (each side's oldest answer): production ${stamp}, preview ${stamp}.`;
      expect(renderNumbers(view, { target: 'comment' })).toContain(line);
      const summary = renderNumbers(view, { target: 'summary' });
      expect(summary).toContain(line);
      expect(summary.join('\n')).toContain('Data-API requests of this run: 4 (2 to production, 2 to the preview; every poll and repeat counted)');
      expect(renderNumbers(view, { target: 'comment' }).join('\n')).not.toContain('Data-API requests');
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 60_000);
});
