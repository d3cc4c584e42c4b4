/**
 * A side whose model does not compile (a row filter with a join path in `access_policy`, which Cube
 * 1.7.43 refuses: "Paths aren't allowed in the accessPolicy"), end to end on the emulator: `datamodel-ci
 * diff --data` asks the platform's validation first and says at once which side does not compile, with
 * the compiler's message; no token is minted for that side, no query is loaded, and the run ends within a
 * bounded number of requests (counted by the emulator, never by the clock).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import { runCli } from '../src/main.js';
import type { OpContext } from '../src/operations/context.js';
import { compareWithProduction, findEnvironments, startImpact } from '../src/operations/impact.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { cliIo, control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const SLOW = 60_000;

/** A row filter through the join to customers: a path, which Cube refuses in an access policy. */
const JOIN_PATH_POLICY = `    access_policy:
      - group: "*"
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: orders.customers.country
              operator: equals
              values: [Germany]
`;
const BROKEN = { ...DEMO_MODEL, 'model/cubes/orders.yml': DEMO_MODEL['model/cubes/orders.yml']! + JOIN_PATH_POLICY };
const REFUSAL = "Paths aren't allowed in the accessPolicy policy but 'customers.country' provided as a filter member reference for orders";

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 1 });
}, SLOW);
afterAll(() => fx.close());

/** Production runs `production`, the branch's staging environment `preview`; `diff --data` on a checkout of `preview`. */
async function diff(branch: string, production: Record<string, string>, preview: Record<string, string>, extra: string[] = []) {
  await uploadTree(fx.admin, 1, 'main', production);
  fx.em.clock.advance(60_000);
  await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
  await uploadTree(fx.admin, 1, branch, preview);
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
  fx.em.clock.advance(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'dmci-not-compiling-'));
  for (const [path, content] of Object.entries(preview)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const counts = { ...fx.em.counts };
  const data = { ...fx.em.dataCounts };
  const t = cliIo(fx.em);
  const code = await runCli(['diff', '--deployment-id', '1', '--branch', branch, '--model-dir', dir, '--data', ...extra], t);
  const delta = (now: Record<string, number>, before: Record<string, number>, k: string) => (now[k] ?? 0) - (before[k] ?? 0);
  const total = Object.keys(fx.em.counts).reduce((n, k) => n + delta(fx.em.counts, counts, k), 0);
  return {
    code,
    said: t.stderr.join('\n'),
    stdout: t.stdout,
    minted: delta(fx.em.counts, counts, 'createDeploymentEnvironmentToken'),
    evalRuns: delta(fx.em.counts, counts, 'startEvaluation'),
    validated: delta(fx.em.counts, counts, 'validateDataModel'),
    meta: delta(fx.em.dataCounts, data, 'meta'),
    loads: delta(fx.em.dataCounts, data, 'load'),
    total,
  };
}

describe('a side whose model does not compile', () => {
  it(
    "the preview's: said at once with the compiler's message, no token minted for it, no query loaded",
    async () => {
      const r = await diff('preview-broken', DEMO_MODEL, BROKEN);
      expect(r.code).toBe(0);
      expect(r.said).toContain(
        `Semantic layer (main → preview-broken): not compared: the preview's model does not compile: model/cubes/orders.yml: ${REFUSAL}`,
      );
      expect(r.said).toContain(`Numbers: not compared: the semantic layers were not compared (the preview's model does not compile:`);
      expect(r.stdout).toContain('status=not-compared');
      // One validation per side; production's /meta read with its one token; the preview never minted for, never read.
      expect(r.validated).toBe(2);
      expect(r.minted).toBeLessThanOrEqual(1);
      expect(r.meta).toBeLessThanOrEqual(1);
      expect(r.loads).toBe(0);
      expect(r.total).toBeLessThan(20);
    },
    SLOW,
  );

  it(
    "production's: said at once with the compiler's message, no token minted for it, no query loaded",
    async () => {
      const r = await diff('production-broken', BROKEN, DEMO_MODEL);
      expect(r.code).toBe(0);
      expect(r.said).toContain(
        `Semantic layer (main → production-broken): not compared: production's model does not compile: model/cubes/orders.yml: ${REFUSAL}`,
      );
      expect(r.said).toContain(`Numbers: not compared: the semantic layers were not compared (production's model does not compile:`);
      expect(r.validated).toBe(2);
      expect(r.minted).toBeLessThanOrEqual(1);
      expect(r.meta).toBeLessThanOrEqual(1);
      expect(r.loads).toBe(0);
      expect(r.total).toBeLessThan(20);
    },
    SLOW,
  );

  it(
    'a tenant that refuses the mint (mint-refuses-uncompiled): 400 with the compile error, said once as the preview not compared, never retried',
    async () => {
      await uploadTree(fx.admin, 1, 'main', DEMO_MODEL);
      fx.em.clock.advance(60_000);
      await fx.admin.branches.create({ deploymentId: 1, body: { name: 'mint-refused', from: 'main' } });
      await uploadTree(fx.admin, 1, 'mint-refused', BROKEN);
      await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: 'mint-refused' } });
      fx.em.clock.advance(60_000);
      const ctx: OpContext & { reporter: MemoryReporter } = { client: fx.admin, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: fx.em.ca };
      const { staging } = await findEnvironments(ctx, 'mint-refused');
      const args = { deploymentId: 1, environmentId: staging!.id, body: { security_context: {}, expires_in: 600 } };
      // By default the token is minted (the data API then answers 500 with the compile error).
      await expect(fx.admin.deployments.createEnvironmentToken(args)).resolves.toMatchObject({ data: { token: expect.any(String) } });
      await control(fx.em, 'profiles', { profiles: ['mint-refuses-uncompiled'] });
      try {
        await expect(fx.admin.deployments.createEnvironmentToken(args)).rejects.toThrow(REFUSAL);
        // The pull request's run reads a preview its own validation passed (no validation asked again): the refusal is its answer.
        const before = { ...fx.em.counts };
        const r = await compareWithProduction(
          ctx,
          startImpact(ctx, { branch: 'mint-refused', deployBranch: 'main' }),
          { stagingUrl: staging!.restUrl, environmentId: staging!.id },
          {
            branch: 'mint-refused',
            deployBranch: 'main',
          },
        );
        expect(r.unavailable).toContain(REFUSAL);
        expect(r.unavailable).toContain('the staging environment of mint-refused');
        // One mint per side, the refused one never repeated.
        expect((fx.em.counts.createDeploymentEnvironmentToken ?? 0) - (before.createDeploymentEnvironmentToken ?? 0)).toBe(2);
      } finally {
        await control(fx.em, 'profiles', { profiles: [] });
      }
    },
    SLOW,
  );

  it(
    "the preview's, with --evals on: no eval run started (its agents would not answer from its model), never a pass; the gate fails",
    async () => {
      const r = await diff('preview-broken-evals', DEMO_MODEL, BROKEN, ['--evals', 'on', '--fail-on-eval-regression']);
      expect(r.evalRuns).toBe(0);
      expect(r.said).toMatch(/^Agent evals: production \(main\) not compared: the eval runs were not started: the preview's model does not compile: /m);
      expect(r.stdout).toContain('eval-accuracy-preview=');
      expect(r.code).toBe(1);
    },
    SLOW,
  );
});
