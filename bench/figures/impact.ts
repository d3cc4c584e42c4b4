/**
 * Figure 10 of the bench: the impact step (src/operations/impact.ts) on a deployment with 1,000 reports
 * and 200 dashboards at 50 ms per request: its time and requests, and how both grow with the content
 * (250, 500 and 1,000 reports, one dashboard per five reports), measured side by side in one run.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { DEMO_MODEL, startEmulator, type Emulator } from '../../packages/emulator/src/index.js';
import type { ReportRec, WorkbookRec } from '../../packages/emulator/src/content/models.js';
import { allocId, putRecord } from '../../packages/emulator/src/state.js';
import { PlatformClient } from '../../src/client/index.js';
import { enableStaging } from '../../src/operations/enable-staging.js';
import { analyseImpact } from '../../src/operations/impact.js';
import { ensureSharedBranch } from '../../src/operations/start-dev-branch.js';
import { uploadModel } from '../../src/operations/upload-model.js';
import { LATENCY_MS, delta, localModel, median, opContext, part, record, round, tempDir, writeTree } from '../lib.js';

const SIZES = [250, 500, 1000];
const RUNS = 3;

/** Queries of the generated reports: one in ten uses the member the branch removes. */
const QUERIES = [
  { measures: ['orders.count'], dimensions: ['orders.status'] },
  { measures: ['orders_view.total_amount'], timeDimensions: [{ dimension: 'orders_view.created_at', granularity: 'month' }] },
  { measures: ['customers.count'], dimensions: ['customers.name'], filters: [{ or: [{ member: 'customers.name', operator: 'set' }] }] },
];
const BREAKING = { measures: ['orders_view.total_amount'], dimensions: ['orders_view.customers_country'] };

/** Add reports and workbooks (a published and a draft dashboard of four widgets each) straight into the emulator's state. */
function addContent(em: Emulator, reports: number, dashboards: number): void {
  const now = new Date().toISOString();
  for (let i = 0; i < reports; i++) {
    const id = allocId(em.state, 'reports', 'report');
    const query = i % 10 === 0 ? BREAKING : QUERIES[i % QUERIES.length];
    putRecord(em.state, 'reports', id, {
      id,
      deploymentId: 1,
      name: `Bench report ${id}`,
      publicId: `B${String(id).padStart(11, '0')}`,
      workbookId: null,
      folderId: null,
      sqlQuery: null,
      jsonQuery: JSON.stringify(query),
      meta: null,
      source: 'PLAYGROUND',
      placements: [],
      createdAt: now,
      updatedAt: now,
      createdBy: 1,
      refreshedAt: null,
    } satisfies ReportRec);
  }
  for (let i = 0; i < dashboards; i++) {
    const id = allocId(em.state, 'workbooks', 'workbook');
    const at = { x: 0, y: 0, w: 6, h: 4 };
    const widgets = [
      { id: 'chart', type: 'CHART', position: at, config: { title: 'Orders', query: QUERIES[i % QUERIES.length] } },
      {
        id: 'filter',
        type: 'FILTER',
        position: at,
        config: { title: i % 5 === 0 ? 'Country' : 'Status', member: i % 5 === 0 ? 'orders_view.customers_country' : 'orders_view.status' },
      },
      { id: 'grain', type: 'TIME_GRAIN', position: at, config: { member: 'orders_view.created_at', grain: 'week' } },
      { id: 'switch', type: 'FIELD', position: at, config: { member: 'orders_view.status', options: ['status', 'customers_name'] } },
    ];
    putRecord(em.state, 'workbooks', id, {
      id,
      deploymentId: 1,
      name: `Bench board ${id}`,
      createdAt: now,
      dashboardDraft: { widgets },
      dashboard: {
        id,
        publicId: `bench-${id}`,
        allowEmbed: false,
        title: null,
        description: null,
        config: { widgets },
        publishedAt: now,
        aiWidgetThreads: {},
        reportSnapshots: [],
      },
    } satisfies WorkbookRec);
  }
}

/** Register figure 10. */
export function impactFigure(): void {
  describe('impact', () => {
    it.runIf(part(10))('10: the impact step with 1,000 reports and 200 dashboards at 50 ms: time, requests, growth', async () => {
      const em = await startEmulator({ seed: 'demo', latencyMs: LATENCY_MS, buildMs: 0, warmupMs: 0 });
      const client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
      try {
        const ctx = opContext(client, 1, em.ca);
        const dir = join(tempDir('dmci-bench-impact-'), 'model');
        writeTree(dir, {
          ...DEMO_MODEL,
          'model/cubes/customers.yml': DEMO_MODEL['model/cubes/customers.yml']!.replace(
            '      - name: country\n        sql: country\n        type: string\n',
            '',
          ),
          'model/views/orders_view.yml': DEMO_MODEL['model/views/orders_view.yml']!.replace('          - country\n', ''),
        });
        const branch = 'preview-pr-bench';
        await ensureSharedBranch(ctx, branch, 'main');
        await uploadModel(ctx, { branch, modelDir: dir, local: await localModel(dir), concurrency: 4, commitMessage: 'bench' });
        await enableStaging(ctx, { branch, smokeTest: false });
        // Compile both models once (Cube's compiler, cached by content) so the runs measure the step.
        await analyseImpact(ctx, { branch, deployBranch: 'main' });
        const rows: { reports: number; dashboards: number; ms: number; requests: number; affected: number; byEndpoint: Record<string, number> }[] = [];
        // The demo seed has 4 reports and 3 dashboards; each size tops them up.
        const have = { reports: 4, dashboards: 3 };
        for (const size of SIZES) {
          addContent(em, size - have.reports, size / 5 - have.dashboards);
          Object.assign(have, { reports: size, dashboards: size / 5 });
          const times: number[] = [];
          let last: (typeof rows)[number] | undefined;
          for (let run = 0; run < RUNS; run++) {
            const before = { ...em.counts };
            const t0 = performance.now();
            const r = await analyseImpact(ctx, { branch, deployBranch: 'main' });
            times.push(performance.now() - t0);
            const byEndpoint = delta(em.counts, before);
            const requests = Object.values(byEndpoint).reduce((a, b) => a + b, 0);
            if (r.unavailable) throw new Error(`impact not compared: ${r.unavailable}`);
            last = { reports: r.scanned.report, dashboards: r.scanned.dashboard, ms: 0, requests, affected: r.affected.length, byEndpoint };
          }
          rows.push({ ...last!, ms: round(median(times), 0) });
        }
        const big = rows.at(-1)!;
        const small = rows[0]!;
        const growth = big.ms / small.ms;
        record({
          id: 'impact-time',
          name: `10. impact step, ${big.reports} reports and ${big.dashboards} dashboards, ${LATENCY_MS} ms per request: median time`,
          value: round(big.ms / 1000, 2),
          unit: 's',
          target: '<= 1.5',
          met: big.ms <= 1500,
          detail: { rows, runs: RUNS },
        });
        record({
          id: 'impact-requests',
          name: `10. impact step, ${big.reports} reports and ${big.dashboards} dashboards: requests (pages of ${100})`,
          value: big.requests,
          unit: 'requests',
          target: '<= 20',
          met: big.requests <= 20,
          detail: { byEndpoint: big.byEndpoint },
        });
        record({
          id: 'impact-growth',
          name: `10. impact step: time at ${big.reports} reports / time at ${small.reports} (content ×${big.reports / small.reports})`,
          value: round(growth, 2),
          unit: '×',
          target: `<= ${big.reports / small.reports}`,
          met: growth <= big.reports / small.reports,
          detail: { rows: rows.map((r) => ({ reports: r.reports, dashboards: r.dashboards, ms: r.ms, requests: r.requests, affected: r.affected })) },
        });
      } finally {
        await client.close();
        await em.close();
      }
    });
  });
}
