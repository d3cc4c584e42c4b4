/**
 * Access verdicts as Cube decides them (issue 39), end to end on the emulator, whose data API applies the
 * policies with Cube's own CompilerApi: production runs the access model, each pull request's preview one
 * change of the orders cube's policy, and the review (the personas' /meta, the policies read from the
 * files, the persona probes) must say what Cube's answers show. A cube's mask and its row filter reach the
 * views over it; a count that needs the primary key a persona may not read is no deny of every row; an
 * equivalent rewrite of a row filter, or an attribute renamed where the persona's value stays, is no change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessOutcome, Persona } from '../src/impact/access/types.js';
import { personaSecurityContext } from '../src/impact/access/types.js';
import { planDataDiff } from '../src/impact/data/plan.js';
import type { DataDiffSettings } from '../src/impact/data/types.js';
import { accessProbeStep } from '../src/operations/access-probes.js';
import type { OpContext } from '../src/operations/context.js';
import { analyseImpact } from '../src/operations/impact.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { ACCESS_MODEL, ORDERS_WITH_POLICIES, accessPersona } from './support/access-model.js';
import { emulatorFixture, rawRequest, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
const SLOW = 120_000;

const SALES = `      - group: sales
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: customer_country
              operator: equals
              values: ["{ userAttributes.country }"]
`;
const salesAs = (policy: string) => ({ ...ACCESS_MODEL, 'model/cubes/orders.yml': ORDERS_WITH_POLICIES.replace(SALES, policy) });

/** Each pull request's model: one change of the sales group's policy on orders (orders_view and finance_view over it unchanged). */
const BRANCHES: Record<string, Record<string, string>> = {
  // Every row for sales: the views over orders widen too.
  'sales-all-rows': salesAs(SALES.replace(/ {8}row_level:[\s\S]*$/, '        row_level:\n          allow_all: true\n')),
  // The same filter written otherwise: `groups`, an `and` list, the member with its cube, the attribute from the context.
  'sales-rewritten': salesAs(`      - groups: [sales]
        member_level:
          includes: "*"
        row_level:
          filters:
            - and:
                - member: orders.customer_country
                  operator: equals
                  values: ["{ securityContext.country }"]
`),
  // Every member but the primary key: Cube denies the count (it needs the key), the other members still answer rows.
  'sales-without-key': salesAs(SALES.replace('includes: "*"', 'includes: [count, total_amount, status, customer_country, created_at]')),
  // Finance reads the amount masked: on orders, and on both views over it.
  'finance-masked': {
    ...ACCESS_MODEL,
    'model/cubes/orders.yml': ORDERS_WITH_POLICIES.replace(
      '      - group: finance\n        member_level:\n          includes: "*"\n',
      '      - group: finance\n        member_level:\n          includes: "*"\n          excludes: [total_amount]\n        member_masking:\n          includes: [total_amount]\n',
    ),
  },
};

/** Sales in Germany by both attributes; one whose context says France while its user attribute says Germany. */
const SALES_FR: Persona = {
  name: 'sales_fr',
  groups: ['sales'],
  securityContext: { country: 'France', cubeCloud: { userAttributes: { country: 'Germany' } } },
};

const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});
const limits = { maxQueries: 40, maxRows: 1000, concurrency: 2, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0 };
const settings: DataDiffSettings = { mode: 'off', allowPublic: false, securityContext: {}, limits, failOnChange: false };
const modelFiles = (tree: Record<string, string>) => new Map(Object.entries(tree).filter(([p]) => p.startsWith('model/')));

/** The review of a branch against production (the access model), its persona probes run. */
async function review(branch: string, personas: Persona[]): Promise<AccessOutcome> {
  const c = ctx();
  const r = await analyseImpact(c, { branch, deployBranch: 'main', headFiles: modelFiles(BRANCHES[branch]!), personas });
  const plan = await planDataDiff(settings, { pr: { fork: false }, repositoryPublic: false });
  return (await accessProbeStep(c, plan, r))!;
}

const kinds = (a: AccessOutcome) => a.changes.map((c) => `${c.persona}:${c.target}:${c.change}`);

/** What Cube answers a persona's query on a branch's preview (its /load with a token minted under the persona's context). */
async function load(branch: string, persona: Persona, query: unknown): Promise<Record<string, unknown>[]> {
  const envs = await fx.admin.deployments.environments({ deploymentId: 1 });
  const production = envs.items.find((e) => e.type === 'production')!;
  const token = (
    await fx.admin.deployments.createEnvironmentToken({
      deploymentId: 1,
      environmentId: String(production.id),
      body: { security_context: personaSecurityContext(persona) },
    })
  ).data.token;
  const text = JSON.stringify({ query });
  // The emulator answers "Continue wait" first (continueWaitPolls): ask again, as a client does.
  for (;;) {
    const res = await rawRequest(fx.em, {
      method: 'POST',
      path: `/d/1/dev-mode/${encodeURIComponent(branch)}/cubejs-api/v1/load`,
      headers: { authorization: token, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
      body: text,
    });
    expect(res.status, res.text).toBe(200);
    const body = JSON.parse(res.text) as { data?: Record<string, unknown>[]; error?: string };
    if (body.error !== 'Continue wait') return body.data!;
  }
}

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 1 });
  await uploadTree(fx.admin, 1, 'main', ACCESS_MODEL);
  fx.em.clock.advance(60_000);
  for (const [branch, tree] of Object.entries(BRANCHES)) {
    await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
    await uploadTree(fx.admin, 1, branch, tree);
    await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
  }
}, SLOW);
afterAll(() => fx.close());

describe("access verdicts as Cube's CompilerApi decides them", () => {
  it(
    "a cube's mask reaches the view members over it: each is reported masked, and Cube's /load gives the mask there",
    async () => {
      const finance = accessPersona('finance');
      const a = await review('finance-masked', [finance]);
      expect(kinds(a).filter((k) => k.endsWith(':masked'))).toEqual([
        'finance:orders.total_amount:masked',
        'finance:finance_view.total_amount:masked',
        'finance:orders_view.total_amount:masked',
      ]);
      // Cube's answer: the mask (-1) through each view, where production gave the amount.
      for (const member of ['orders.total_amount', 'orders_view.total_amount', 'finance_view.total_amount'])
        expect(Number((await load('finance-masked', finance, { measures: [member] }))[0]?.[member]), member).toBe(-1);
      expect(a.reachedViews).toEqual(['finance_view', 'orders_view']);
    },
    SLOW,
  );

  it(
    "a cube's row filter reaches the views over it: the rows change is reported on each view, as Cube counts it there",
    async () => {
      const sales = accessPersona('sales_de');
      const a = await review('sales-all-rows', [sales]);
      expect(kinds(a)).toEqual(['sales_de:orders:rows-widened', 'sales_de:orders_view:rows-widened']);
      const view = a.probes.find((p) => p.target === 'orders_view')!;
      expect(view.preview.rows).toBeGreaterThan(view.production.rows!);
      // Cube's own count through the view on the preview is the probe's.
      expect(Number((await load('sales-all-rows', sales, { measures: ['orders_view.count'] }))[0]?.['orders_view.count'])).toBe(view.preview.rows);
    },
    SLOW,
  );

  it(
    'a count refused for want of the primary key is no denied-all: other queries of the cube still answer rows',
    async () => {
      const sales = accessPersona('sales_de');
      // Cube: the count gives 0 rows for sales, its status gives rows.
      expect(Number((await load('sales-without-key', sales, { measures: ['orders.count'] }))[0]?.['orders.count'])).toBe(0);
      expect((await load('sales-without-key', sales, { dimensions: ['orders.status'], limit: 1 })).length).toBe(1);
      const a = await review('sales-without-key', [sales]);
      expect(kinds(a).filter((k) => k.includes('denied-all'))).toEqual([]);
      const probe = a.probes.find((p) => p.target === 'orders')!;
      expect(probe.preview.rows).toBe(0);
      expect(probe.checks?.some((c) => c.side === 'preview' && (c.answer.rows ?? 0) > 0)).toBe(true);
      expect(a.notices.join('\n')).toContain('not every row of orders is denied');
    },
    SLOW,
  );

  it(
    "a filter rewritten into an equivalent form, its attribute renamed: no change where the persona's effective filter stays, a change where it moves",
    async () => {
      const a = await review('sales-rewritten', [accessPersona('sales_de'), SALES_FR]);
      expect(kinds(a).filter((k) => k.startsWith('sales_de:'))).toEqual([]);
      // sales_fr's context says France: the renamed attribute gives it other rows, as Cube counts them.
      expect(kinds(a).filter((k) => k.startsWith('sales_fr:orders:'))).toEqual([expect.stringMatching(/^sales_fr:orders:rows-(narrowed|widened)$/)]);
      const fr = a.probes.find((p) => p.persona === 'sales_fr' && p.target === 'orders')!;
      const cube = await load('sales-rewritten', SALES_FR, { measures: ['orders.count'] });
      expect(Number(cube[0]?.['orders.count'])).toBe(fr.preview.rows);
      const f = a.rowFilters!.find((x) => x.persona === 'sales_de' && x.target === 'orders')!;
      expect(f.preview).toEqual(f.production);
    },
    SLOW,
  );
});
