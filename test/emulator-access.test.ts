/**
 * Access policies in the emulator's data API, applied by Cube's own CompilerApi (issue 31), over real
 * HTTPS sockets with tokens minted through the platform API under each persona's security context:
 * /meta hides members and views per context, /load narrows and widens rows, masks, and denies with zero
 * rows and no error, /sql shows the row filter; the tenant profiles that read groups elsewhere.
 * Expected counts come from hand-written SQL on the deployment's database.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_METHODS } from '../packages/emulator/src/engine/access.js';
import { personaSecurityContext } from '../src/impact/access/types.js';
import { ACCESS_MODEL, DEMO_VIEW_FOR_FINANCE, TWO_CONDITIONS_MODEL, accessPersona, type AccessPersona } from './support/access-model.js';
import { control, emulatorFixture, rawRequest, uploadTree, type EmulatorFixture } from './support/emulator.js';

let fx: EmulatorFixture;
let environmentId: string;
const BRANCH = 'access-policies';
const GUARDED_DEMO = 'guarded-demo';
const TWO_CONDITIONS = 'two-conditions';
const SLOW = 90_000;

async function stage(branch: string, tree: Record<string, string>): Promise<void> {
  await fx.admin.branches.create({ deploymentId: 1, body: { name: branch, from: 'main' } });
  await uploadTree(fx.admin, 1, branch, tree);
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: branch } });
}

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  const envs = await fx.admin.deployments.environments({ deploymentId: 1 });
  environmentId = String(envs.items.find((e) => e.type === 'production')!.id);
  await stage(BRANCH, ACCESS_MODEL);
  await stage(GUARDED_DEMO, DEMO_VIEW_FOR_FINANCE);
  await stage(TWO_CONDITIONS, TWO_CONDITIONS_MODEL);
}, 60_000);

afterAll(async () => {
  await fx.close();
});

/** A data-API token minted through the platform API with this security context. */
async function mint(securityContext: Record<string, unknown>): Promise<string> {
  return (await fx.admin.deployments.createEnvironmentToken({ deploymentId: 1, environmentId, body: { security_context: securityContext } })).data.token;
}

const tokenOf = (p: AccessPersona) => mint(personaSecurityContext(p));

/** One data-API call on a branch's staging environment: status and parsed body. */
async function call(token: string, op: 'meta' | 'load' | 'sql' | 'dry-run', body?: unknown, branch = BRANCH): Promise<{ status: number; body: any }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const res = await rawRequest(fx.em, {
    method: text === undefined ? 'GET' : 'POST',
    path: `/d/1/dev-mode/${encodeURIComponent(branch)}/cubejs-api/v1/${op}`,
    headers: { authorization: token, ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }) },
    body: text,
  });
  return { status: res.status, body: JSON.parse(res.text) };
}

/** The cubes and views of /meta with their visible members, by name. */
async function visible(token: string, branch = BRANCH): Promise<Record<string, string[]>> {
  const r = await call(token, 'meta', undefined, branch);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return Object.fromEntries(
    (r.body.cubes as { name: string; measures: { name: string }[]; dimensions: { name: string }[] }[]).map((c) => [
      c.name,
      [...c.measures, ...c.dimensions].map((m) => m.name).sort(),
    ]),
  );
}

async function rows(token: string, query: unknown): Promise<Record<string, unknown>[]> {
  const r = await call(token, 'load', { query });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as Record<string, unknown>[];
}

async function expected(sql: string): Promise<Record<string, string>[]> {
  return (await (await fx.em.engine.database(1)).query(sql, [])).rows as Record<string, string>[];
}

const COUNT = { measures: ['orders.count'] };
const countOf = async (token: string, query: unknown = COUNT) => Number((await rows(token, query))[0]?.['orders.count'] ?? 0);
const ALL_ORDERS = 'SELECT count(*) AS n FROM orders';

describe('/meta per security context', () => {
  it(
    'finance sees every member and its own view; support and sales see members but not the view; nobody sees only the open view',
    async () => {
      const finance = await visible(await tokenOf(accessPersona('finance')));
      expect(Object.keys(finance).sort()).toEqual(['customers', 'finance_view', 'orders', 'orders_view']);
      expect(finance.orders).toEqual(['orders.count', 'orders.created_at', 'orders.customer_country', 'orders.status', 'orders.total_amount']);
      expect(finance.orders_view).toContain('orders_view.total_amount');

      // Support reads the amount masked: a masked member stays visible.
      const support = await visible(await tokenOf(accessPersona('support')));
      expect(Object.keys(support).sort()).toEqual(['customers', 'orders', 'orders_view']);
      expect(support.orders).toContain('orders.total_amount');
      expect(support.orders_view).not.toContain('orders_view.total_amount');
      expect(support.orders_view).toContain('orders_view.customers_name');

      // No group, no manager flag: no policy of orders applies, so the cube has no visible member and is left out.
      const nobody = await visible(await tokenOf(accessPersona('nobody')));
      expect(Object.keys(nobody).sort()).toEqual(['customers', 'orders_view']);
      // The condition holds for a manager: orders is back.
      expect(Object.keys(await visible(await tokenOf(accessPersona('manager'))))).toContain('orders');
    },
    SLOW,
  );

  it('a policy-only change of the demo view: finance sees it whole, everyone else not at all', async () => {
    expect(Object.keys(await visible(await tokenOf(accessPersona('finance')), GUARDED_DEMO))).toContain('orders_view');
    expect(Object.keys(await visible(await tokenOf(accessPersona('nobody')), GUARDED_DEMO)).sort()).toEqual(['customers', 'orders']);
  });
});

describe('/load and /sql per security context', () => {
  it(
    'finance reads every row; a manager every row but the cancelled ones; sales only its country',
    async () => {
      const all = Number((await expected(ALL_ORDERS))[0]!.n);
      expect(await countOf(await tokenOf(accessPersona('finance')))).toBe(all);
      const notCancelled = Number((await expected(`${ALL_ORDERS} WHERE status <> 'cancelled'`))[0]!.n);
      expect(await countOf(await tokenOf(accessPersona('manager')))).toBe(notCancelled);
      const german = Number((await expected(`${ALL_ORDERS} o JOIN customers c ON c.id = o.customer_id WHERE c.country = 'Germany'`))[0]!.n);
      expect(await countOf(await tokenOf(accessPersona('sales_de')))).toBe(german);
      expect(german).toBeLessThan(notCancelled);
      expect(notCancelled).toBeLessThan(all);
    },
    SLOW,
  );

  it('a deny answers zero rows and no error', async () => {
    const nobody = await tokenOf(accessPersona('nobody'));
    expect(await rows(nobody, { measures: ['orders.count'], dimensions: ['orders.status'] })).toEqual([]);
    const sql = await call(nobody, 'sql', { query: { measures: ['orders.count'], dimensions: ['orders.status'] } });
    expect(sql.status).toBe(200);
    expect(sql.body.sql.sql[0]).toContain('1 = 0');
    // The dry run shows the query as Cube rewrote it: the deny is a segment of its own.
    const dry = await call(nobody, 'dry-run', { query: { measures: ['orders.count'], dimensions: ['orders.status'] } });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.normalizedQueries[0].segments).toEqual([{ cubeName: 'orders', name: 'rlsAccessDenied' }]);
  });

  it('support reads the amount as its mask, the count as it is', async () => {
    const support = await tokenOf(accessPersona('support'));
    const data = await rows(support, { measures: ['orders.count', 'orders.total_amount'], dimensions: ['orders.status'], order: { 'orders.status': 'asc' } });
    const want = await expected('SELECT status, count(*) AS n FROM orders GROUP BY 1 ORDER BY 1');
    expect(data.map((r) => [r['orders.status'], Number(r['orders.count']), Number(r['orders.total_amount'])])).toEqual(
      want.map((w) => [w.status, Number(w.n), -1]),
    );
  });

  it('/sql shows the row filter with the attribute as its parameter', async () => {
    const r = await call(await tokenOf(accessPersona('sales_de')), 'sql', { query: COUNT });
    expect(r.status).toBe(200);
    expect(r.body.sql.sql[0]).toMatch(/WHERE/);
    expect(r.body.sql.sql[1]).toEqual(['Germany']);
  });

  it("the data diff's query (queryType multi): its result narrowed", async () => {
    const r = await call(await tokenOf(accessPersona('manager')), 'load', { query: COUNT, queryType: 'multi' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const notCancelled = Number((await expected(`${ALL_ORDERS} WHERE status <> 'cancelled'`))[0]!.n);
    expect(r.body.results.map((x: any) => Number(x.data[0]['orders.count']))).toEqual([notCancelled]);
  });
});

describe('attributes a persona lacks', () => {
  it('a condition naming a missing attribute: the policy does not apply, a silent deny', async () => {
    const r = await call(await mint({ country: 'France' }), 'load', { query: { measures: ['orders.count'], dimensions: ['orders.status'] } });
    expect(r).toMatchObject({ status: 200, body: { data: [] } });
  });

  it('two conditions: a missing attribute in the first denies silently, in the second fails /meta and /load (500)', async () => {
    const payments = { query: { measures: ['payments.count'], dimensions: ['payments.method'] } };
    const auditorOnly = await mint({ is_auditor: true });
    expect(await call(auditorOnly, 'load', payments, TWO_CONDITIONS)).toMatchObject({ status: 200, body: { data: [] } });
    expect(Object.keys(await visible(auditorOnly, TWO_CONDITIONS))).not.toContain('payments');
    const managerOnly = await mint({ is_manager: true });
    const failed = { status: 500, body: { error: 'Error: Access policy condition must return boolean, got undefined' } };
    expect(await call(managerOnly, 'load', payments, TWO_CONDITIONS)).toMatchObject(failed);
    expect(await call(managerOnly, 'meta', undefined, TWO_CONDITIONS)).toMatchObject(failed);
    const both = await mint({ is_manager: true, is_auditor: true });
    const all = await expected('SELECT count(*) AS n FROM payments');
    const data = (await call(both, 'load', payments, TWO_CONDITIONS)).body.data as Record<string, string>[];
    expect(data.reduce((n, r) => n + Number(r['payments.count']), 0)).toBe(Number(all[0]!.n));
  });

  it('a YAML row filter naming a missing attribute filters on the text "undefined": zero rows, no error', async () => {
    const r = await call(await mint({ cubeCloud: { groups: ['sales'], userAttributes: {} } }), 'load', { query: COUNT });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Number(r.body.data[0]['orders.count'])).toBe(0);
  });

  it('a row filter reading through a missing element, or a JavaScript one given no value, fails the query (500)', async () => {
    // userAttributes.country with no userAttributes at all: Cube's evaluation throws.
    const r = await call(await mint({ cubeCloud: { groups: ['sales'] } }), 'load', { query: COUNT });
    expect(r).toMatchObject({ status: 500, body: { error: "TypeError: Cannot read properties of undefined (reading 'country')" } });
    const js = await call(await tokenOf(accessPersona('nobody')), 'load', { query: { measures: ['customers.count'] } });
    expect(js).toMatchObject({ status: 500, body: { error: 'Error: Expected one parameter but nothing found' } });
  });

  it('a masked SQL member reads as its mask; the same persona reads the rows of its country only', async () => {
    const data = await rows(await tokenOf(accessPersona('support')), { measures: ['customers.count'], dimensions: ['customers.name', 'customers.country'] });
    const want = await expected("SELECT count(*) AS n FROM customers WHERE country = 'Germany'");
    expect(data).toEqual([{ 'customers.name': '***', 'customers.country': 'Germany', 'customers.count': want[0]!.n }]);
  });
});

describe('the pinned server-core', () => {
  it('has the CompilerApi methods the emulator calls (a guard for upgrades)', () => {
    const { CompilerApi } = createRequire(import.meta.url)('@cubejs-backend/server-core/dist/src/core/CompilerApi.js') as {
      CompilerApi: { prototype: object };
    };
    for (const m of POLICY_METHODS) expect(typeof (CompilerApi.prototype as Record<string, unknown>)[m], m).toBe('function');
  });
});

describe('tenant profiles: where groups come from', () => {
  it(
    'default: cubeCloud.groups; groups-top-level: top-level groups; minted-context-drops-cubecloud: no groups from a minted token',
    async () => {
      const onlyTopLevel = await mint({ groups: ['finance'] });
      const onlyCubeCloud = await mint({ cubeCloud: { groups: ['finance'] } });
      expect(Object.keys(await visible(onlyCubeCloud))).toContain('finance_view');
      expect(Object.keys(await visible(onlyTopLevel))).not.toContain('finance_view');

      await control(fx.em, 'profiles', { profiles: ['groups-top-level'] });
      expect(Object.keys(await visible(onlyTopLevel))).toContain('finance_view');
      expect(Object.keys(await visible(onlyCubeCloud))).not.toContain('finance_view');

      await control(fx.em, 'profiles', { profiles: ['minted-context-drops-cubecloud'] });
      // The mint's answer shows the context the token carries: the platform's own cubeCloud element.
      const minted = await fx.admin.deployments.createEnvironmentToken({
        deploymentId: 1,
        environmentId,
        body: { security_context: personaSecurityContext(accessPersona('finance')) },
      });
      expect(minted.data.security_context).toEqual({ groups: ['finance'], cubeCloud: {} });
      const finance = minted.data.token;
      expect(Object.keys(await visible(finance))).not.toContain('finance_view');
      expect(await countOf(finance)).toBe(0);

      // Both: the persona's top-level groups still reach the policies.
      await control(fx.em, 'profiles', { profiles: ['minted-context-drops-cubecloud', 'groups-top-level'] });
      expect(Object.keys(await visible(finance))).toContain('finance_view');
      await control(fx.em, 'profiles', { profiles: [] });
    },
    SLOW,
  );
  it(
    'groups-from-roles: the deployment reads securityContext.roles; neither cubeCloud.groups nor top-level groups reach its policies',
    async () => {
      await control(fx.em, 'profiles', { profiles: ['groups-from-roles'] });
      try {
        const both = await mint(personaSecurityContext(accessPersona('finance')));
        expect(Object.keys(await visible(both))).not.toContain('finance_view');
        const roles = await mint({ roles: ['finance'] });
        expect(Object.keys(await visible(roles))).toContain('finance_view');
      } finally {
        await control(fx.em, 'profiles', { profiles: [] });
      }
    },
    SLOW,
  );
});
