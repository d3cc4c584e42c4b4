/**
 * A pull request that changes only a measure's aggregation (`sum` → `avg`), end to end on the emulator
 * (Cube's compiler, its SQL on Postgres with the demo data): queries on the measure still run, so it is a
 * "values change", breaking nothing, and the data diff probes it like any values change and shows how its
 * numbers moved.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { dataDiffFor } from '../src/operations/data-diff.js';
import type { DataDiffResult, DataDiffSettings } from '../src/impact/data/types.js';
import { MemoryReporter } from '../src/report/reporter.js';
import type { OpContext } from '../src/operations/context.js';
import { enableStaging } from '../src/operations/enable-staging.js';
import { analyseImpact, impactSummaryLine } from '../src/operations/impact.js';
import { walkModel } from '../src/model/local-model.js';
import { localModelFiles } from '../src/model/model-files.js';
import { presentImpact } from '../src/pr/presenters.js';
import { ensureSharedBranch } from '../src/operations/start-dev-branch.js';
import { uploadModel } from '../src/operations/upload-model.js';
import { localOf, emulatorFixture, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let dir: string;
const BRANCH = 'preview-pr-62';
const ORDERS = 'model/cubes/orders.yml';
const AVG = {
  ...DEMO_MODEL,
  [ORDERS]: DEMO_MODEL[ORDERS]!.replace('      - name: total_amount\n        type: sum\n', '      - name: total_amount\n        type: avg\n'),
};

const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});

beforeAll(async () => {
  expect(AVG[ORDERS]).not.toBe(DEMO_MODEL[ORDERS]);
  fx = await emulatorFixture({ continueWaitPolls: 1 });
  dir = mkdtempSync(join(tmpdir(), 'dmci-agg-'));
  for (const [path, content] of Object.entries(AVG)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  await ensureSharedBranch(ctx(), BRANCH, 'main');
  await uploadModel(ctx(), { branch: BRANCH, modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: BRANCH });
  await enableStaging(ctx(), { branch: BRANCH, smokeTest: false });
}, 60_000);
afterAll(() => fx.close());

const SETTINGS: DataDiffSettings & { mode: 'values' } = {
  mode: 'values',
  allowPublic: false,
  securityContext: {},
  limits: { maxQueries: 20, maxRows: 1000, concurrency: 4, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0 },
  failOnChange: false,
};

describe("a pull request that changes only a measure's aggregation", () => {
  it('is a values change of the measure and its view member: breaking-count 0, the reports that use it not broken', async () => {
    const r = await analyseImpact(ctx(), { branch: BRANCH, deployBranch: 'main', headFiles: await localModelFiles(await walkModel(dir), dir) });
    expect(r.changes!.members.map((m) => [m.member, m.breaking, m.values, m.details])).toEqual([
      ['orders.total_amount', false, true, ['aggregation sum → avg']],
      ['orders_view.total_amount', false, true, ['aggregation sum → avg']],
    ]);
    expect(r.definition!.values).toEqual([
      { member: 'orders.total_amount', why: 'aggregation sum → avg' },
      { member: 'orders_view.total_amount', why: 'stands for orders.total_amount' },
    ]);
    // Nothing breaks; the content that uses the measure is named, its numbers moving.
    expect(r.affected.filter((a) => a.effect === 'breaks')).toEqual([]);
    expect(r.affected.map((a) => [a.kind, a.name, a.effect])).toEqual([
      ['report', 'Revenue by country', 'numbers-move'],
      ['report', 'Revenue by month', 'numbers-move'],
      ['dashboard', 'Revenue board 1 · Revenue overview', 'numbers-move'],
      ['notification', 'Notification 3 (At 09:00, Monday through Friday)', 'numbers-move'],
    ]);
    expect(impactSummaryLine(r)).toMatch(/^0 breaking, 2 values changes, 0 added, 0 changed; no content breaks; numbers move on 2 reports/);
    const presented = presentImpact(r, true);
    expect(presented.outputs).toMatchObject({ 'breaking-count': '0', 'values-changed-count': '2' });
    // fail-on-breaking: nothing breaks.
    expect(presented.failure).toBeUndefined();
  });

  it('the data diff probes it and the reports that use it, on both environments', async () => {
    const c = ctx();
    const r = await analyseImpact(c, { branch: BRANCH, deployBranch: 'main', headFiles: await localModelFiles(await walkModel(dir), dir) });
    const d = (await dataDiffFor(c, r, SETTINGS, [])) as DataDiffResult;
    expect(d.queries.map((q) => [q.name, q.status])).toEqual([
      ['Report “Revenue by country”', 'changed'],
      ['Report “Revenue by month”', 'changed'],
      ['orders.total_amount: total', 'changed'],
      ['orders.total_amount by month (last 12 months of orders.created_at)', 'changed'],
      ['orders.total_amount by orders.status (first 20)', 'changed'],
      ['orders_view.total_amount: total', 'changed'],
      ['orders_view.total_amount by month (last 12 months of orders_view.created_at)', 'changed'],
      ['orders_view.total_amount by orders_view.status (first 20)', 'changed'],
    ]);
    // An average of the same orders is far below their sum.
    expect(d.queries[2]!.comparison!.largest[0]!.rel).toBeLessThan(-0.9);
  }, 60_000);
});
