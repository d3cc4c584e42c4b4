/**
 * Persona probes against the emulator (real sockets, Cube's own compiler and query engine): each
 * persona's count on production and on the preview with tokens minted under its own security context
 * (its groups where Cube Cloud puts them) and masked; a count measure when the target has one, else the
 * rows of its key; a target no `/meta` listed yet looked up in the persona's own; nothing inferred when
 * the counts agree; never for a fork's pull request, and on a public repository only with the allow.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MODEL } from '../packages/emulator/src/index.js';
import type { AccessOutcome, Persona } from '../src/impact/access/types.js';
import { planDataDiff } from '../src/impact/data/plan.js';
import type { DataDiffSettings } from '../src/impact/data/types.js';
import { walkModel } from '../src/model/local-model.js';
import { localModelFiles } from '../src/model/model-files.js';
import { accessProbeStep } from '../src/operations/access-probes.js';
import type { OpContext } from '../src/operations/context.js';
import { enableStaging } from '../src/operations/enable-staging.js';
import { analyseImpact, type ImpactResult } from '../src/operations/impact.js';
import { ensureSharedBranch } from '../src/operations/start-dev-branch.js';
import { uploadModel } from '../src/operations/upload-model.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { emulatorFixture, localOf, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let impact: ImpactResult;
const BRANCH = 'preview-pr-31';
/** A view of keys only: its probe counts rows of `order_keys.id`. */
const ORDER_KEYS = `views:
  - name: order_keys
    cubes:
      - join_path: orders
        includes: [id, status]
`;

const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});
const limits = { maxQueries: 20, maxRows: 1000, concurrency: 2, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0 };
const settings = (over: Partial<DataDiffSettings> = {}): DataDiffSettings => ({
  mode: 'off',
  allowPublic: false,
  securityContext: {},
  limits,
  failOnChange: false,
  ...over,
});
const PERSONAS: Persona[] = [
  { name: 'analyst', groups: ['analysts'], securityContext: {} },
  { name: 'finance', groups: ['finance'], securityContext: { region: 'EU' } },
];
const access = (over: Partial<AccessOutcome> = {}): AccessOutcome => ({
  personas: PERSONAS.map((p) => p.name),
  policyTargets: ['orders', 'order_keys'],
  changes: [],
  lost: [],
  probes: [],
  notices: [],
  personaDefinitions: PERSONAS,
  ...over,
});

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'dmci-access-probes-'));
  for (const [path, content] of Object.entries({ ...DEMO_MODEL, 'model/views/order_keys.yml': ORDER_KEYS })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  await ensureSharedBranch(ctx(), BRANCH, 'main');
  await uploadModel(ctx(), { branch: BRANCH, modelDir: dir, local: await localOf(dir), concurrency: 4, commitMessage: BRANCH });
  await enableStaging(ctx(), { branch: BRANCH, smokeTest: false });
  impact = await analyseImpact(ctx(), { branch: BRANCH, deployBranch: 'main', headFiles: await localModelFiles(await walkModel(dir), dir) });
}, 90_000);
afterAll(() => fx.close());

/** The JWT's payload (the emulator's tokens are JWTs), to see the context a token carries. */
const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

describe('persona probes on the emulator', () => {
  it("count each persona's rows on both sides with its own masked tokens: a count measure, else the rows of the key", async () => {
    const c = ctx();
    const plan = await planDataDiff(settings(), { pr: { fork: false }, repositoryPublic: false });
    const a = await accessProbeStep(c, plan, { ...impact, access: access() });
    expect(a?.probes.map((p) => [p.persona, p.target, p.counted])).toEqual([
      ['analyst', 'orders', 'orders.count'],
      ['analyst', 'order_keys', 'order_keys.id'],
      ['finance', 'orders', 'orders.count'],
      ['finance', 'order_keys', 'order_keys.id'],
    ]);
    for (const p of a!.probes.filter((x) => x.target === 'orders')) {
      expect(p.production.rows).toBeGreaterThan(0);
      expect(p.preview).toEqual(p.production);
    }
    // The view is the pull request's own: production refuses it as unknown, which is no access evidence.
    for (const p of a!.probes.filter((x) => x.target === 'order_keys')) {
      expect(p.production.refused).toMatch(/not found/);
      expect(p.preview.rows).toBeGreaterThan(0);
    }
    // Nothing moved, so nothing is said.
    expect(a?.changes).toEqual([]);
    // Two tokens per persona, each masked, each under the persona's context with its groups where Cube Cloud puts them.
    const tokens = [...new Set(c.reporter.secrets)];
    expect(tokens).toHaveLength(4);
    const finance = tokens.map(claims).filter((t) => JSON.stringify(t).includes('"region":"EU"'));
    expect(finance).toHaveLength(2);
    expect(JSON.stringify(finance[0])).toContain('"cubeCloud":{"groups":["finance"]}');
    for (const t of tokens) expect(c.reporter.text()).not.toContain(t);
  }, 60_000);

  it("a target no /meta listed yet is looked up in the persona's own /meta; one no side has is said, not probed", async () => {
    const c = ctx();
    const plan = await planDataDiff(settings(), { pr: { fork: false }, repositoryPublic: false });
    const bare: ImpactResult = { ...impact, sources: { ...impact.sources!, headMeta: { cubes: [] } } };
    const a = await accessProbeStep(c, plan, { ...bare, access: access({ policyTargets: ['order_keys', 'no_such_view'] }) });
    expect(a?.probes.map((p) => `${p.persona}/${p.counted}`)).toEqual(['analyst/order_keys.id', 'finance/order_keys.id']);
    expect(a?.notices).toEqual(["no_such_view was not probed: no persona's /meta lists a measure or dimension of it to count"]);
  }, 60_000);

  it('never for a fork; on a public repository only with data-diff-allow-public, data-diff off or not', async () => {
    for (const [facts, extra, why] of [
      [{ pr: { fork: true }, repositoryPublic: false }, { mode: 'values', allowPublic: true }, /fork/],
      [{ pr: { fork: false }, repositoryPublic: true }, {}, /public.*data-diff-allow-public/],
    ] as const) {
      const c = ctx();
      const before = fx.em.counts['data-api'] ?? 0;
      const plan = await planDataDiff(settings(extra), facts);
      const a = await accessProbeStep(c, plan, { ...impact, access: access() });
      expect(a?.probesNotRun?.why).toMatch(why);
      expect(a?.probes).toEqual([]);
      expect(fx.em.counts['data-api'] ?? 0).toBe(before);
      expect(c.reporter.secrets).toEqual([]);
      expect(c.reporter.lines.find((l) => l.level === 'notice')?.message).toMatch(/^persona probes: not run: /);
    }
    const allowed = await planDataDiff(settings({ allowPublic: true }), { pr: { fork: false }, repositoryPublic: true });
    expect((await accessProbeStep(ctx(), allowed, { ...impact, access: access({ policyTargets: ['orders'] }) }))?.probes).toHaveLength(2);
  }, 60_000);

  it('without personas or without a policy touched, nothing runs', async () => {
    const plan = await planDataDiff(settings(), { pr: { fork: false }, repositoryPublic: false });
    const before = fx.em.counts['data-api'] ?? 0;
    const none = access({ personas: [], personaDefinitions: [] });
    expect(await accessProbeStep(ctx(), plan, { ...impact, access: none })).toBe(none);
    const untouched = access({ policyTargets: [] });
    expect(await accessProbeStep(ctx(), plan, { ...impact, access: untouched })).toBe(untouched);
    expect(fx.em.counts['data-api'] ?? 0).toBe(before);
  });
});
