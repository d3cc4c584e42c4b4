/**
 * Figure 14 of the bench: the rollup plans of 50 key queries on two environments at 50 ms per request
 * (`/v1/sql`, Cube's own matcher, no query run), 4 at a time on each: wall time against the bound of
 * their waves (one round of token mints, then ceil(50 / 4) waves of the slowest plan, each plan timed
 * alone) plus the CPU time the process spent meanwhile (the emulator's matcher runs on this process's
 * one thread, so its work for the 100 plans cannot overlap); the waves alone and one plan at a time in the detail.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { it } from 'vitest';
import { DEMO_MODEL, startEmulator } from '../../packages/emulator/src/index.js';
import { PlatformClient } from '../../src/client/index.js';
import { DEFAULTS } from '../../src/defaults.js';
import type { DataDiffSettings, KeyQuery } from '../../src/impact/data/types.js';
import { dataApiClient, mint } from '../../src/operations/data-api.js';
import { enableStaging } from '../../src/operations/enable-staging.js';
import { findEnvironments, type EnvironmentRef } from '../../src/operations/impact.js';
import { planGroups, planQuery } from '../../src/operations/rollup-plans.js';
import { ensureSharedBranch } from '../../src/operations/start-dev-branch.js';
import { uploadModel } from '../../src/operations/upload-model.js';
import { LATENCY_MS, localModel, median, opContext, part, record, round, tempDir, writeTree } from '../lib.js';

const QUERIES = 50;

/** The demo's orders with a partitioned rollup by status and day. */
const ORDERS_WITH_ROLLUP = `${DEMO_MODEL['model/cubes/orders.yml']}    pre_aggregations:
      - name: by_status
        measures: [count, total_amount]
        dimensions: [status]
        time_dimension: created_at
        granularity: day
        partition_granularity: month
`;

/** 50 distinct key queries: some the rollup serves (by status, by month), some it cannot (by customers' country). */
function keyQueries(): KeyQuery[] {
  const shapes = [
    (i: number) => ({ measures: ['orders.count'], dimensions: ['orders.status'], limit: 100 + i }),
    (i: number) => ({ measures: ['orders.total_amount'], timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }], limit: 100 + i }),
    (i: number) => ({ measures: ['orders.count'], dimensions: ['customers.country'], limit: 100 + i }),
  ];
  return Array.from({ length: QUERIES }, (_, i) => ({ name: `q${i}`, source: 'file' as const, query: shapes[i % shapes.length]!(i) }));
}

export function rollupPlansFigure(): void {
  it.runIf(part(14))('14: rollup plans, 50 key queries x 2 environments at 50 ms per request', async () => {
    const em = await startEmulator({ seed: 'demo', latencyMs: LATENCY_MS, buildMs: 0, warmupMs: 0 });
    const client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
    try {
      const ctx = opContext(client, 1, em.ca);
      const dir = join(tempDir('dmci-bench-rollups-'), 'model');
      writeTree(dir, { ...DEMO_MODEL, 'model/cubes/orders.yml': ORDERS_WITH_ROLLUP });
      const branch = 'preview-pr-bench-rollups';
      await ensureSharedBranch(ctx, branch, 'main');
      await uploadModel(ctx, { branch, modelDir: dir, local: await localModel(dir), concurrency: 4, commitMessage: 'bench' });
      await enableStaging(ctx, { branch, smokeTest: false });
      const envs = await findEnvironments(ctx, branch);
      const sides = { production: envs.production as EnvironmentRef, staging: envs.staging as EnvironmentRef };
      const c = DEFAULTS.dataDiffConcurrency;
      const limits = { maxQueries: QUERIES, maxRows: 1000, concurrency: c, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0 };
      const settings: DataDiffSettings = { mode: 'off', allowPublic: false, securityContext: {}, limits, failOnChange: false };
      const queries = keyQueries();
      // Warm: both models compiled (not part of any plan's time).
      await planGroups(ctx, sides, [{ queries: queries.slice(0, 2) }], settings, []);
      const notices: string[] = [];
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const plans = await planGroups(ctx, sides, [{ queries }], settings, notices);
      const wall = performance.now() - t0;
      const used = process.cpuUsage(cpu0);
      const cpuMs = (used.user + used.system) / 1000;
      if (notices.length || plans.length !== QUERIES) throw new Error(`rollup plans failed: ${notices[0] ?? plans.length}`);
      // Each plan alone, one at a time on each side: its own time, and the sequential wall time.
      const alone: number[][] = [];
      const m0 = performance.now();
      const tokens = await Promise.all([mint(ctx, sides.production, {}, ['sql']), mint(ctx, sides.staging, {}, ['sql'])]);
      const mintMs = performance.now() - m0;
      let sequential = mintMs;
      for (const [i, env] of [sides.production, sides.staging].entries()) {
        const url = new URL(`${env.restUrl}/sql`);
        const data = dataApiClient(ctx, url.origin, tokens[i]!);
        const times: number[] = [];
        for (const k of queries) {
          const q0 = performance.now();
          await planQuery(data, url.pathname, k, 30_000);
          times.push(performance.now() - q0);
        }
        await data.close();
        alone.push(times);
      }
      sequential += Math.max(...alone.map((t) => t.reduce((a, b) => a + b, 0)));
      const waves = Math.ceil(QUERIES / c);
      const waveBound = mintMs + Math.max(...alone.map((t) => waves * Math.max(...t)));
      const bound = waveBound + cpuMs;
      record({
        id: 'rollup-plans-bound',
        name: `14. rollup plans, ${QUERIES} key queries x 2 environments, ${LATENCY_MS} ms per request, ${c} at a time each: wall time / bound (a mint, ${waves} waves x slowest plan, and the process's CPU time meanwhile)`,
        value: round(wall / bound, 2),
        unit: '×',
        target: '<= 1',
        met: wall <= bound,
        detail: {
          wallMs: round(wall, 0),
          boundMs: round(bound, 0),
          cpuMs: round(cpuMs, 0),
          waveBoundMs: round(waveBound, 0),
          wallOverWaves: round(wall / waveBound, 2),
          mintMs: round(mintMs, 0),
          slowestPlanMs: { production: round(Math.max(...alone[0]!), 0), preview: round(Math.max(...alone[1]!), 0) },
          medianPlanMs: { production: round(median(alone[0]!), 0), preview: round(median(alone[1]!), 0) },
          oneAtATimeMs: round(sequential, 0),
          speedup: round(sequential / wall, 2),
        },
      });
    } finally {
      await client.close();
      await em.close();
    }
  });
}
