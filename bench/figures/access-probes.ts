/**
 * Figure 13 of the bench: persona probes for 10 personas on 20 policy-guarded views at 50 ms per
 * request, on production and on the preview: wall time against the bound of their waves (each
 * environment runs its probes `concurrency` at a time, after the personas' tokens, minted as many at a time).
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { DEMO_MODEL, startEmulator } from '../../packages/emulator/src/index.js';
import { PlatformClient } from '../../src/client/index.js';
import { DEFAULTS } from '../../src/defaults.js';
import type { Persona } from '../../src/impact/access/types.js';
import type { DataDiffLimits } from '../../src/impact/data/types.js';
import { runProbes, type ProbeInput } from '../../src/operations/access-probes.js';
import { enableStaging } from '../../src/operations/enable-staging.js';
import { findEnvironments, type EnvironmentRef } from '../../src/operations/impact.js';
import { ensureSharedBranch } from '../../src/operations/start-dev-branch.js';
import { uploadModel } from '../../src/operations/upload-model.js';
import { LATENCY_MS, localModel, median, opContext, part, record, round, tempDir, writeTree } from '../lib.js';

const PERSONAS = 10;
const VIEWS = 20;

/** 20 views of the demo's orders; with `guarded`, each lets two of the ten groups see it, one of them only its completed orders. */
function guardedViews(guarded: boolean): string {
  const views = Array.from({ length: VIEWS }, (_, i) => {
    const policy = guarded
      ? `    access_policy:
      - group: g${i % PERSONAS}
        member_level:
          includes: "*"
        row_level:
          allow_all: true
      - group: g${(i + 1) % PERSONAS}
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: status
              operator: equals
              values: ["completed"]
`
      : '';
    return `  - name: guarded_${i}
    cubes:
      - join_path: orders
        includes: [count, total_amount, status]
${policy}`;
  });
  return `views:\n${views.join('')}`;
}

export function accessProbesFigure(): void {
  describe('persona probes', () => {
    it.runIf(part(13))('13: persona probes, 10 personas x 20 policy-guarded views x 2 environments at 50 ms per request', async () => {
      const em = await startEmulator({ seed: 'demo', latencyMs: LATENCY_MS, buildMs: 0, warmupMs: 0 });
      const client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
      try {
        const ctx = opContext(client, 1, em.ca);
        const upload = async (branch: string, guarded: boolean) => {
          const dir = join(tempDir('dmci-bench-access-'), 'model');
          writeTree(dir, { ...DEMO_MODEL, 'model/views/guarded.yml': guardedViews(guarded) });
          await uploadModel(ctx, { branch, modelDir: dir, local: await localModel(dir), concurrency: 4, commitMessage: 'bench' });
        };
        // Production has the views open; the pull request guards them.
        await upload('main', false);
        const branch = 'preview-pr-bench-access';
        await ensureSharedBranch(ctx, branch, 'main');
        await upload(branch, true);
        await enableStaging(ctx, { branch, smokeTest: false });
        const envs = await findEnvironments(ctx, branch);
        const limits: DataDiffLimits = {
          maxQueries: PERSONAS * VIEWS,
          maxRows: DEFAULTS.dataDiffMaxRows,
          concurrency: DEFAULTS.dataDiffConcurrency,
          queryTimeoutMs: DEFAULTS.dataDiffQueryTimeoutSeconds * 1000,
          absTolerance: 0,
          relTolerance: 0,
        };
        const personas: Persona[] = Array.from({ length: PERSONAS }, (_, i) => ({ name: `persona_${i}`, groups: [`g${i}`], securityContext: {} }));
        const targets = Array.from({ length: VIEWS }, (_, i) => `guarded_${i}`);
        const catalogue = targets.map((name) => ({ name, members: [{ name: `${name}.count`, kind: 'measure' as const, aggType: 'count' }] }));
        const input: ProbeInput = {
          production: envs.production as EnvironmentRef,
          staging: envs.staging as EnvironmentRef,
          personas,
          targets,
          catalogue,
          limits,
        };
        // Warm: both models compiled for every persona's context, the database started (not part of any probe's time).
        const warm = performance.now();
        await runProbes(ctx, { ...input, targets: targets.slice(0, 1) });
        const warmMs = performance.now() - warm;
        const t0 = performance.now();
        const r = await runProbes(ctx, input);
        const wall = performance.now() - t0;
        const c = limits.concurrency;
        const probes = PERSONAS * VIEWS;
        const waves = Math.ceil(probes / c);
        const mintWaves = Math.ceil(PERSONAS / c);
        // The bound: the personas' tokens `c` at a time (both environments' at once), then each environment's probes `c` at a time, no wave longer than its slowest.
        const slowest = Math.max(...r.ms.production, ...r.ms.preview);
        const bound = mintWaves * Math.max(...r.ms.mints) + waves * slowest;
        const ideal = mintWaves * median(r.ms.mints) + Math.max(...[r.ms.production, r.ms.preview].map((ms) => ms.reduce((a, b) => a + b, 0) / c));
        const failed = r.probes.filter((p) => p.production.error !== undefined || p.preview.error !== undefined);
        if (failed.length) throw new Error(`${failed.length} probes failed: ${JSON.stringify(failed[0])}`);
        record({
          id: 'access-probes-bound',
          name: `13. persona probes, ${PERSONAS} personas x ${VIEWS} guarded views x 2 environments, ${LATENCY_MS} ms per request, ${c} at a time each: wall time / bound (${mintWaves} waves of mints + ${waves} waves x slowest probe)`,
          value: round(wall / bound, 2),
          unit: '×',
          target: '<= 1',
          met: wall <= bound,
          detail: {
            wallMs: round(wall, 0),
            boundMs: round(bound, 0),
            probes: r.probes.length,
            slowestMs: { production: round(Math.max(...r.ms.production), 0), preview: round(Math.max(...r.ms.preview), 0) },
            medianProbeMs: { production: round(median(r.ms.production), 0), preview: round(median(r.ms.preview), 0) },
            slowestMintMs: round(Math.max(...r.ms.mints), 0),
            idealMs: round(ideal, 0),
            wallOverIdeal: round(wall / ideal, 2),
            warmRunMs: round(warmMs, 0),
            requests: r.requests,
            refusedOnPreview: r.probes.filter((p) => p.preview.refused !== undefined).length,
            // Cube's policies on the preview: the two groups of a view count its rows (one narrowed), the others none.
            noRowsOnPreview: r.probes.filter((p) => p.preview.rows === 0).length,
            fewerRowsOnPreview: r.probes.filter((p) => (p.preview.rows ?? 0) > 0 && (p.preview.rows ?? 0) < (p.production.rows ?? 0)).length,
          },
        });
      } finally {
        await client.close();
        await em.close();
      }
    });
  });
}
