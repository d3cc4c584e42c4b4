/**
 * Figure 14 of the bench: the rollup plans of 50 key queries on production and on the preview at 50 ms per
 * request, each a `POST /v1/sql` through the toolkit's data-API client (Cube's plan only, no rows read),
 * `concurrency` at a time on each environment after both environments' tokens: wall time against the bound
 * of their waves. Production runs the rollup model of the tests, the preview its rollup dimension renamed.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { startEmulator } from '../../packages/emulator/src/index.js';
import { PlatformClient } from '../../src/client/index.js';
import type { HttpClient } from '../../src/client/http.js';
import { DEFAULTS } from '../../src/defaults.js';
import type { KeyQuery } from '../../src/impact/data/types.js';
import { mapLimit } from '../../src/model/local-model.js';
import type { OpContext } from '../../src/operations/context.js';
import { dataApiClient } from '../../src/operations/data-api.js';
import { mint } from '../../src/operations/data-diff.js';
import { enableStaging } from '../../src/operations/enable-staging.js';
import { findEnvironments, type EnvironmentRef } from '../../src/operations/impact.js';
import { ensureSharedBranch } from '../../src/operations/start-dev-branch.js';
import { uploadModel } from '../../src/operations/upload-model.js';
import { ROLLUP_MODEL, ROLLUP_VARIANTS } from '../../test/support/rollup-model.js';
import { LATENCY_MS, localModel, median, opContext, part, record, round, tempDir, writeTree } from '../lib.js';

const QUERIES = 50;

/** 50 distinct key queries on the rollup model: two measures, by nothing, status or country, at five grains (limits keep them distinct). */
function keyQueries(): KeyQuery[] {
  const measures = ['orders.count', 'orders.total_amount'];
  const dimensions = [[], ['orders.status'], ['customers.country']];
  const grains = [undefined, 'day', 'week', 'month', 'hour'];
  const shapes = measures.flatMap((m) => dimensions.flatMap((d) => grains.map((g) => ({ m, d, g }))));
  return Array.from({ length: QUERIES }, (_, i) => {
    const { m, d, g } = shapes[i % shapes.length]!;
    const time = g ? { timeDimensions: [{ dimension: 'orders.created_at', granularity: g, dateRange: ['2025-01-01', '2025-03-31'] }] } : {};
    return { name: `q${i}`, source: 'file' as const, query: { measures: [m], dimensions: d, ...time, limit: 100 + i } };
  });
}

/** One environment's plan of one key query: the pre-aggregations `/v1/sql` names, and its time. */
interface TimedPlan {
  rollups: string[];
  ms: number;
}

async function planOne(client: HttpClient, path: string, k: KeyQuery, signal?: AbortSignal): Promise<TimedPlan> {
  const t0 = performance.now();
  const r = await client.send({ method: 'POST', path, json: { query: k.query }, idempotent: true }, { signal });
  const body = JSON.parse(r.text ?? '') as { sql?: { preAggregations?: { preAggregationId: string }[] }; error?: string };
  if (!body.sql) throw new Error(`${k.name} was not planned: ${body.error ?? r.text}`);
  return { rollups: (body.sql.preAggregations ?? []).map((p) => p.preAggregationId), ms: performance.now() - t0 };
}

/** Both environments' tokens minted at once, then each environment's plans `concurrency` at a time, both at once. */
async function planBoth(ctx: OpContext, envs: EnvironmentRef[], queries: KeyQuery[], concurrency: number) {
  const mints: number[] = [];
  const tokens = await Promise.all(
    envs.map(async (env) => {
      const t0 = performance.now();
      const token = await mint(ctx, env, {});
      mints.push(performance.now() - t0);
      return token;
    }),
  );
  const clients = envs.map((env, i) => dataApiClient(ctx, new URL(env.restUrl).origin, tokens[i]!));
  try {
    const sides = await Promise.all(
      envs.map((env, i) => mapLimit(queries, concurrency, (k) => planOne(clients[i]!, `${new URL(env.restUrl).pathname}/sql`, k, ctx.signal))),
    );
    return { mints, production: sides[0]!, preview: sides[1]! };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

export function rollupPlansFigure(): void {
  describe('rollup plans', () => {
    it.runIf(part(14))('14: rollup plans, 50 key queries x 2 environments at 50 ms per request', async () => {
      const em = await startEmulator({ seed: 'demo', latencyMs: LATENCY_MS, buildMs: 0, warmupMs: 0 });
      const client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
      try {
        const ctx = opContext(client, 1, em.ca);
        const upload = async (branch: string, tree: Record<string, string>) => {
          const dir = join(tempDir('dmci-bench-rollups-'), 'model');
          writeTree(dir, tree);
          await uploadModel(ctx, { branch, modelDir: dir, local: await localModel(dir), concurrency: 4, commitMessage: 'bench' });
        };
        await upload('main', ROLLUP_MODEL);
        const branch = 'preview-pr-bench-rollups';
        await ensureSharedBranch(ctx, branch, 'main');
        await upload(branch, ROLLUP_VARIANTS.dimensionRenamed);
        await enableStaging(ctx, { branch, smokeTest: false });
        const found = await findEnvironments(ctx, branch);
        const envs = [found.production, found.staging] as EnvironmentRef[];
        const queries = keyQueries();
        const c = DEFAULTS.dataDiffConcurrency;
        // Warm: both models compiled (not part of any plan's time).
        const warm = performance.now();
        await planBoth(ctx, envs, queries.slice(0, 2), c);
        const warmMs = performance.now() - warm;
        const t0 = performance.now();
        const r = await planBoth(ctx, envs, queries, c);
        const wall = performance.now() - t0;
        const ms = (side: TimedPlan[]) => side.map((p) => p.ms);
        const slowest = Math.max(...ms(r.production), ...ms(r.preview));
        const waves = Math.ceil(QUERIES / c);
        // The bound: both tokens at once (one wave, no longer than the slower mint), then `waves` waves of plans, none longer than the slowest plan.
        const bound = Math.max(...r.mints) + waves * slowest;
        const ideal = median(r.mints) + Math.max(...[r.production, r.preview].map((side) => ms(side).reduce((a, b) => a + b, 0) / c));
        const served = (side: TimedPlan[]) => side.filter((p) => p.rollups.length).length;
        const lost = r.production.filter((p, i) => p.rollups.length && !r.preview[i]!.rollups.length).length;
        record({
          id: 'rollup-plans-bound',
          name: `14. rollup plans, ${QUERIES} key queries x 2 environments (POST /v1/sql through the data-API client), ${LATENCY_MS} ms per request, ${c} at a time each: wall time / bound (1 wave of mints + ${waves} waves x slowest plan)`,
          value: round(wall / bound, 2),
          unit: '×',
          target: '<= 1',
          met: wall <= bound,
          detail: {
            wallMs: round(wall, 0),
            boundMs: round(bound, 0),
            slowestMs: { production: round(Math.max(...ms(r.production)), 0), preview: round(Math.max(...ms(r.preview)), 0) },
            medianPlanMs: { production: round(median(ms(r.production)), 0), preview: round(median(ms(r.preview)), 0) },
            slowestMintMs: round(Math.max(...r.mints), 0),
            idealMs: round(ideal, 0),
            wallOverIdeal: round(wall / ideal, 2),
            warmRunMs: round(warmMs, 0),
            requests: { sql: 2 * QUERIES, tokens: 2 },
            plannedOnAPreAggregation: { production: served(r.production), preview: served(r.preview) },
            lostOnPreview: lost,
          },
        });
      } finally {
        await client.close();
        await em.close();
      }
    });
  });
}
