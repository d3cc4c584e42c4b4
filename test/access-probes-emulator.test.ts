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
import type { AccessOutcome, Persona, RowFilterSides } from '../src/impact/access/types.js';
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
import { ACCESS_MODEL, ORDERS_WITH_POLICIES, accessPersona } from './support/access-model.js';
import { cliIo, emulatorFixture, localOf, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { runCli } from '../src/main.js';
import { findEnvironments, type EnvironmentRef } from '../src/operations/impact.js';
import { presentImpact } from '../src/pr/presenters.js';
import { accessView, renderAccess } from '../src/pr/comment/render-access.js';
import { sideText } from '../src/impact/access/probes.js';

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

/** The sales group's row filter in the policies' orders cube. */
const SALES_FILTER = `        row_level:
          filters:
            - member: customer_country
              operator: equals
              values: ["{ userAttributes.country }"]
`;
const ordersWith = (salesRows: string) => ({ ...ACCESS_MODEL, 'model/cubes/orders.yml': ORDERS_WITH_POLICIES.replace(SALES_FILTER, salesRows) });
const POLICY_BRANCHES: Record<string, Record<string, string>> = {
  'access-added': ACCESS_MODEL,
  'access-sales-all-rows': ordersWith('        row_level:\n          allow_all: true\n'),
  'access-sales-filter-rewritten': ordersWith(
    SALES_FILTER.replace('values: ["{ userAttributes.country }"]', 'values: ["{ userAttributes.country }", "Atlantis"]'),
  ),
};

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
  // Three pull requests' models over the same data, each with its staging environment: the policies added,
  // then (against them) the sales filter dropped, and the sales filter rewritten to the same rows.
  for (const [branch, tree] of Object.entries(POLICY_BRANCHES)) {
    await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
    await uploadTree(fx.admin, 1, branch, tree);
    await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
  }
}, 120_000);
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
    // Wherever the token keeps the context: the object that holds `cubeCloud`.
    const contextOf = (o: unknown): Record<string, unknown> | undefined =>
      o && typeof o === 'object' ? ('cubeCloud' in o ? o : Object.values(o).map(contextOf).find(Boolean)) : undefined;
    expect(contextOf(finance[0])).toMatchObject({ groups: ['finance'], region: 'EU', cubeCloud: { groups: ['finance'] } });
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

/** The probes of `personas` on `target` with production's side read from `before` (the deploy branch, or a branch's staging) and the preview's from `after`. */
async function probeBetween(before: string | undefined, after: string, personas: string[], over: Partial<AccessOutcome> = {}) {
  const c = ctx();
  const envs = await findEnvironments(c, after);
  const production = before ? { ...((await findEnvironments(c, before)).staging as EnvironmentRef), label: 'production' } : (envs.production as EnvironmentRef);
  const defs = personas.map((n) => accessPersona(n));
  const plan = await planDataDiff(settings(), { pr: { fork: false }, repositoryPublic: false });
  // The cubes' members come from the personas' own /meta (an empty context sees no guarded cube).
  const r: ImpactResult = {
    ...impact,
    head: after,
    sources: { headMeta: { cubes: [] }, baseMeta: { cubes: [] }, content: [], production, staging: envs.staging as EnvironmentRef },
  };
  const a = await accessProbeStep(c, plan, { ...r, access: access({ personas, personaDefinitions: defs, policyTargets: ['orders'], ...over }) });
  return { a: a!, r: { ...r, access: a! } };
}

const kinds = (a: AccessOutcome) => a.changes.map((c) => `${c.persona}:${c.target}:${c.change}`);

describe("what the probes find, with Cube's own policies", () => {
  it('a row filter added: fewer rows for the group it names; a condition on an attribute the persona lacks: no rows at all (the silent deny)', async () => {
    const { a } = await probeBetween(undefined, 'access-added', ['finance', 'sales_de', 'manager', 'nobody']);
    expect(kinds(a)).toEqual(['sales_de:orders:rows-narrowed', 'manager:orders:rows-narrowed', 'nobody:orders:denied-all']);
    const nobody = a.probes.find((p) => p.persona === 'nobody')!;
    expect(nobody.production.rows).toBeGreaterThan(0);
    // No error, no refusal: zero rows, which only a probe shows.
    expect(nobody.preview).toEqual({ rows: 0 });
    expect(a.changes.find((c) => c.persona === 'nobody')?.detail).toBe(
      `rows ${sideText(nobody.production)} → 0, counted with orders.count; orders.status 0, orders.customer_country 0: a silent deny`,
    );
    const finance = a.probes.find((p) => p.persona === 'finance')!;
    expect(finance.preview).toEqual(finance.production);
  }, 90_000);

  it('a row filter on a user attribute the persona lacks: zero rows and no error (a silent deny); a JavaScript filter given no value: Cube fails the query', async () => {
    const { a } = await probeBetween(undefined, 'access-added', ['sales_no_country']);
    expect(a.probes[0]?.preview).toEqual({ rows: 0 });
    expect(kinds(a)).toEqual(['sales_no_country:orders:denied-all']);
    const js = (await probeBetween(undefined, 'access-added', ['nobody'], { policyTargets: ['customers'] })).a;
    expect(js.probes[0]?.preview.refused).toMatch(/Expected one parameter but nothing found/);
    expect(kinds(js)).toEqual(['nobody:customers:denied-all']);
  }, 90_000);

  it('a row filter dropped: more rows for its group, a gain of access that fail-on-exposure fails on', async () => {
    const { a, r } = await probeBetween('access-added', 'access-sales-all-rows', ['finance', 'sales_de']);
    expect(kinds(a)).toEqual(['sales_de:orders:rows-widened']);
    const p = a.probes[0]!.persona === 'sales_de' ? a.probes[0]! : a.probes[1]!;
    expect(p.preview.rows).toBeGreaterThan(p.production.rows!);
    const shown = presentImpact(r, false, true);
    expect([shown.outputs['access-changed-count'], shown.outputs['exposed-count']]).toEqual(['1', '1']);
    expect(shown.failure).toMatch(/gives 1 persona \(sales_de\) more access: 1 change \(fail-on-exposure is true\)/);
    const md = renderAccess(accessView(a), { target: 'comment' }).join('\n');
    expect(md).toContain(`| ⚠️ more rows | \`orders\` | rows ${sideText(p.production)} → ${sideText(p.preview)}, counted with orders\\.count |`);
  }, 90_000);

  it('a row filter rewritten to the same rows: rows-filter-changed, with the equal counts as evidence', async () => {
    // The filters' texts as the access review reads them from the model files (src/impact/access/review.ts).
    const rowFilters: RowFilterSides[] = [
      {
        persona: 'sales_de',
        target: 'orders',
        production: { filter: 'customer_country = {userAttributes.country}' },
        preview: { filter: "customer_country IN ({userAttributes.country}, 'Atlantis')" },
      },
    ];
    const { a } = await probeBetween('access-added', 'access-sales-filter-rewritten', ['sales_de'], { rowFilters });
    expect(kinds(a)).toEqual(['sales_de:orders:rows-filter-changed']);
    expect(a.probes[0]?.preview).toEqual(a.probes[0]?.production);
    // Without the filters' texts, equal counts say nothing.
    expect(kinds((await probeBetween('access-added', 'access-sales-filter-rewritten', ['sales_de'])).a)).toEqual([]);
  }, 90_000);
});

describe('after the access review (the personas read with the impact)', () => {
  it("the review's policy targets, personas and members feed the probes; their findings join its changes and the change set's", async () => {
    const c = ctx();
    const personas = ['finance', 'sales_de', 'nobody'].map((n) => accessPersona(n));
    const dir = mkdtempSync(join(tmpdir(), 'dmci-access-review-'));
    for (const [path, content] of Object.entries(ACCESS_MODEL)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    const r = await analyseImpact(c, { branch: 'access-added', deployBranch: 'main', headFiles: await localModelFiles(await walkModel(dir), dir), personas });
    expect(r.access?.policyTargets).toContain('orders');
    const plan = await planDataDiff(settings(), { pr: { fork: false }, repositoryPublic: false });
    const a = (await accessProbeStep(c, plan, r))!;
    const ordersProbes = a.probes.filter((p) => p.target === 'orders');
    expect(ordersProbes.map((p) => `${p.persona}:${p.counted}`)).toEqual(['finance:orders.count', 'sales_de:orders.count', 'nobody:orders.count']);
    const found = kinds(a).filter((k) => k.includes(':orders:rows-') || k.includes(':orders:denied-all'));
    expect(found).toEqual(['sales_de:orders:rows-narrowed']);
    // The review hid orders from nobody already: the probe's zero rows are that change's evidence, not a second change.
    const hidden = a.changes.find((x) => x.persona === 'nobody' && x.target === 'orders' && x.change === 'hidden');
    expect(hidden?.detail).toMatch(/^rows [\d,]+ → 0, counted with orders\.count; cube hidden/);
    // The review's own changes stay (in their order), the probes' are added, and the change set's list has both.
    expect(a.changes.slice(0, r.access!.changes.length).map((x) => [x.persona, x.target, x.change])).toEqual(
      r.access!.changes.map((x) => [x.persona, x.target, x.change]),
    );
    expect(r.changes?.access).toEqual(a.changes);
  }, 120_000);

  it('datamodel-ci diff --personas: the lines in a terminal, the probes in --json, the outputs; fail-on-exposure passes a narrowing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dmci-access-diff-'));
    for (const [path, content] of Object.entries(ACCESS_MODEL)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    const file = join(dir, 'personas.yml');
    writeFileSync(
      file,
      'personas:\n  - name: sales\n    groups: [sales]\n    securityContext: { cubeCloud: { userAttributes: { country: Germany } } }\n  - name: nobody\n',
    );
    const args = ['diff', '--deployment-id', '1', '--branch', 'access-added', '--model-dir', dir, '--personas', file, '--fail-on-exposure'];
    const t = cliIo(fx.em);
    expect(await runCli([...args, '--json'], t), t.stderr.join('\n')).toBe(0);
    const out = JSON.parse(t.stdout.at(-1)!) as { outputs: Record<string, string>; result: { access: AccessOutcome } };
    const orders = out.result.access.changes.filter((c) => c.target === 'orders').map((c) => `${c.persona}:${c.change}`);
    expect(orders).toEqual(expect.arrayContaining(['sales:rows-narrowed', 'nobody:hidden']));
    expect(out.result.access.probes.filter((p) => p.target === 'orders').map((p) => p.persona)).toEqual(['sales', 'nobody']);
    expect(Number(out.outputs['access-changed-count'])).toBe(out.result.access.changes.length);
    expect(out.outputs['exposed-count']).toBe('0');
    // In a terminal: one line of counts, then each change.
    const plain = cliIo(fx.em);
    expect(await runCli(args, plain)).toBe(0);
    const text = [...plain.stdout, ...plain.stderr].join('\n');
    // The review by name: each persona's changes in a table, then the probes.
    expect(text).toMatch(/^Who can see what \(2 personas: sales and nobody\): \d+ changes, 0 gaining access$/m);
    expect(text).toMatch(/^ {2}nobody +hidden +orders +rows [\d,]+ → 0, counted with orders\.count; cube hidden/m);
    expect(text).toContain('Rows each persona reads (persona probes):');
  }, 120_000);
});
