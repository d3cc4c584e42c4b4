/**
 * Figure 15 of the bench: the platform requests one drift check costs (`checkDrift`, src/operations/drift.ts),
 * counted by the emulator per endpoint: in sync on a Git deployment (a model without access policies, and
 * one whose policies name groups), in sync on a CLI deployment, and a drift with its likely cause. A count,
 * so it holds on any machine; the watch writes nothing, so every request is a read (a token mint aside).
 */
import { describe, it } from 'vitest';
import { DEMO_MODEL, startEmulator } from '../../packages/emulator/src/index.js';
import { PlatformClient } from '../../src/client/index.js';
import { sha1Of, type LocalFile } from '../../src/model/local-model.js';
import { modelFilesOf } from '../../src/model/model-files.js';
import { checkDrift } from '../../src/operations/drift.js';
import { ACCESS_MODEL } from '../../test/support/access-model.js';
import { uploadTree } from '../../test/support/emulator.js';
import { delta, opContext, part, record } from '../lib.js';

const local = (tree: Record<string, string>): LocalFile[] =>
  Object.entries(tree).map(([path, text]) => ({ path, abs: '', size: text.length, bytes: Buffer.from(text), sha1: sha1Of(Buffer.from(text)) }));

/** Register figure 15. */
export function driftFigure(): void {
  describe('the drift watch', () => {
    it.runIf(part(15))('15: platform requests per drift check (in sync, Git and CLI; with access policies; a drift with its cause)', async () => {
      const em = await startEmulator({ seed: 'demo', clock: { mode: 'manual' }, buildMs: 0, warmupMs: 0 });
      const client = new PlatformClient({ baseUrl: em.baseUrl, apiKey: em.credentials.admin, ca: em.ca });
      try {
        const check = async (deploymentId: number, tree: Record<string, string>) => {
          const before = { ...em.counts };
          const r = await checkDrift(opContext(client, deploymentId, em.ca), {
            local: local(tree),
            texts: modelFilesOf(new Map(Object.entries(tree))),
            buildWaitMs: 60_000,
          });
          const calls = delta(em.counts, before);
          return { status: r.status, cause: r.cause?.kind ?? null, requests: Object.values(calls).reduce((a, n) => a + n, 0), calls };
        };
        const policies = { 'cube.js': DEMO_MODEL['cube.js']!, ...ACCESS_MODEL };
        const runs: Record<string, Awaited<ReturnType<typeof check>>> = { 'git in sync': await check(1, DEMO_MODEL) };
        await uploadTree(client, 1, 'main', policies);
        runs['git in sync, access policies naming groups'] = await check(1, policies);
        runs['cli in sync'] = await check(2, DEMO_MODEL);
        await uploadTree(client, 1, 'main', { ...DEMO_MODEL, 'model/cubes/hotfix.yml': 'cubes:\n  - name: hotfix\n    sql_table: public.orders\n' });
        runs['git drift (one file added)'] = await check(1, DEMO_MODEL);
        const inSync = runs['git in sync']!;
        record({
          id: 'drift-requests',
          name: '15. A drift check in sync (Git deployment, no access policies): platform requests',
          value: inSync.requests,
          unit: 'requests',
          target: '<= 8',
          met: inSync.requests <= 8 && inSync.status === 'in-sync',
          detail: { runs },
        });
      } finally {
        await client.close();
        await em.close();
      }
    });
  });
}
