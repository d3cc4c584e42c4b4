/**
 * The data API's scopes against the emulator (real HTTPS): an environment token carries the scopes it was
 * minted with, else the tenant's defaults; under default-scopes-no-sql (Cube's older defaults, no `sql`) a
 * token minted without scopes is refused on `/v1/sql` as Cube refuses it. The toolkit asks each token for
 * the scopes its use needs, so the rollup plans work there; under mint-ignores-scopes as well they cannot,
 * and the notice says which scope is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataDiffPlan } from '../src/impact/data/plan.js';
import type { KeyQuery } from '../src/impact/data/types.js';
import type { OpContext } from '../src/operations/context.js';
import type { PlatformError } from '../src/client/errors.js';
import { runCli } from '../src/main.js';
import type { DoctorReport } from '../src/operations/doctor.js';
import { dataApiClient, mint } from '../src/operations/data-api.js';
import { analyseImpact, findEnvironments } from '../src/operations/impact.js';
import { rollupPlansStep } from '../src/operations/rollup-plans.js';
import { MemoryReporter } from '../src/report/reporter.js';
import { control, emulatorFixture, uploadTree, type EmulatorFixture } from './support/emulator.js';
import { ROLLUP_MODEL, ROLLUP_VARIANTS } from './support/rollup-model.js';

let fx: EmulatorFixture;
const ctx = (): OpContext & { reporter: MemoryReporter } => ({
  client: fx.admin,
  deploymentId: 1,
  reporter: new MemoryReporter(),
  dryRun: false,
  ca: fx.em.ca,
});
const KEYS: KeyQuery[] = [{ name: 'by status', source: 'file', query: { measures: ['orders.count'], dimensions: ['orders.status'] } }];
const limits = { maxQueries: 20, maxRows: 1000, concurrency: 2, queryTimeoutMs: 30_000, absTolerance: 0, relTolerance: 0 };
const plan: DataDiffPlan = {
  settings: { mode: 'off', allowPublic: false, securityContext: {}, limits, failOnChange: false },
  fileQueries: KEYS,
  refusal: 'the data diff is off',
};

beforeAll(async () => {
  fx = await emulatorFixture({ continueWaitPolls: 0 });
  await uploadTree(fx.admin, 1, 'main', ROLLUP_MODEL);
  await fx.admin.branches.create({ deploymentId: 1, body: { name: 'pr-renamed', from: 'main' } });
  await uploadTree(fx.admin, 1, 'pr-renamed', ROLLUP_VARIANTS.renamed);
  await fx.admin.branches.setStagingEnvironment({ deploymentId: 1, body: { enabled: true, branchName: 'pr-renamed' } });
}, 120_000);
afterAll(() => fx.close());

/** A raw environment token of production, with `scopes` in the body when given. */
async function productionToken(scopes?: string[]): Promise<{ token: string; rest: string }> {
  const { production } = await findEnvironments(ctx());
  const body = { security_context: {}, expires_in: 600, ...(scopes ? { scopes } : {}) };
  const r = await fx.admin.deployments.createEnvironmentToken({ deploymentId: 1, environmentId: production!.id, body });
  return { token: r.data.token, rest: production!.restUrl };
}

/** The data API's answer to `{rest}/{endpoint}` with `token`: its status and body. */
async function ask(token: string, rest: string, endpoint: 'sql' | 'load' | 'meta'): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${rest}/${endpoint}`);
  const client = dataApiClient(ctx(), url.origin, token);
  try {
    const req =
      endpoint === 'meta' ? { method: 'GET' as const, path: url.pathname } : { method: 'POST' as const, path: url.pathname, json: { query: KEYS[0]!.query } };
    const res = await client.send(req, { retry: { maxAttempts: 1 } });
    return { status: 200, body: JSON.parse(res.text ?? 'null') };
  } catch (e) {
    const err = e as PlatformError;
    if (err.status === undefined) throw e;
    return { status: err.status, body: JSON.parse(err.responseBody ?? 'null') };
  } finally {
    await client.close();
  }
}

async function rollups() {
  const c = ctx();
  const impact = await analyseImpact(c, {
    branch: 'pr-renamed',
    deployBranch: 'main',
    headFiles: new Map(Object.entries(ROLLUP_VARIANTS.renamed)),
    personas: [],
  });
  return rollupPlansStep(c, plan, impact);
}

describe('the data API scopes of environment tokens', () => {
  it('the emulator: a token carries the scopes it asked for, no more; under default-scopes-no-sql one minted without scopes is refused on /sql', async () => {
    const asked = await productionToken(['sql']);
    expect((await ask(asked.token, asked.rest, 'sql')).status).toBe(200);
    const load = await ask(asked.token, asked.rest, 'load');
    expect([load.status, load.body]).toEqual([403, { error: 'API scope is missing: data' }]);
    const plain = await productionToken();
    expect((await ask(plain.token, plain.rest, 'sql')).status).toBe(200);
    await control(fx.em, 'profiles', { profiles: ['default-scopes-no-sql'] });
    try {
      const old = await productionToken();
      const sql = await ask(old.token, old.rest, 'sql');
      expect([sql.status, sql.body]).toEqual([403, { error: 'API scope is missing: sql' }]);
      expect((await ask(old.token, old.rest, 'meta')).status).toBe(200);
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 60_000);

  it('the toolkit mints strictly: a rollup-plan token plans but may not load, a meta token reads /meta but may not plan', async () => {
    const { production } = await findEnvironments(ctx());
    const path = production!.restUrl;
    const planToken = await mint(ctx(), production!, {}, ['sql']);
    expect((await ask(planToken, path, 'sql')).status).toBe(200);
    expect((await ask(planToken, path, 'load')).status).toBe(403);
    const metaToken = await mint(ctx(), production!, {}, ['meta']);
    expect((await ask(metaToken, path, 'meta')).status).toBe(200);
    expect((await ask(metaToken, path, 'sql')).status).toBe(403);
  }, 60_000);

  it('under default-scopes-no-sql the rollup plans work: no 403 notice, the moved query found', async () => {
    await control(fx.em, 'profiles', { profiles: ['default-scopes-no-sql'] });
    try {
      const r = await rollups();
      expect(r.notices).toEqual([]);
      expect(r.planned).toBe(1);
      expect(r.changes).toContainEqual({ query: 'by status', production: 'orders.orders_by_status', preview: 'orders.orders_daily', change: 'moved' });
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 60_000);

  it('under mint-ignores-scopes alone the plans still work (the defaults hold sql); with default-scopes-no-sql too, the notice names the missing scope', async () => {
    await control(fx.em, 'profiles', { profiles: ['mint-ignores-scopes'] });
    try {
      expect((await rollups()).notices).toEqual([]);
      await control(fx.em, 'profiles', { profiles: ['mint-ignores-scopes', 'default-scopes-no-sql'] });
      const r = await rollups();
      expect(r.changes).toEqual([]);
      expect(r.notices.join('\n')).toContain('API scope is missing: sql');
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 60_000);

  it('doctor tries one plan on production: works, and which scope it needed; refused when the mint ignores the scope and the defaults lack it', async () => {
    const doctorOf = async () => {
      const out: string[] = [];
      const env = {
        DATAMODEL_CI_API_URL: fx.em.baseUrl,
        DATAMODEL_CI_API_KEY: fx.em.credentials.admin,
        DATAMODEL_CI_CA_CERT: fx.em.ca,
        DATAMODEL_CI_DEPLOYMENT_ID: '1',
      };
      await runCli(['doctor', '--json'], { out: (l) => out.push(l), err: () => undefined, env });
      return (JSON.parse(out.join('')) as DoctorReport).checks.find((c) => c.name === 'rollup plan');
    };
    await control(fx.em, 'profiles', { profiles: ['default-scopes-no-sql'] });
    try {
      const needed = await doctorOf();
      expect(needed).toMatchObject({ state: 'ok' });
      expect(needed!.seen).toMatch(/^a \/v1\/sql plan of \w+\.\w+ on production works with a token minted with the scope sql; /);
      expect(needed!.seen).toContain('a token minted without scopes is refused (');
      expect(needed!.seen).toContain('API scope is missing: sql): the scope sql is needed');
      await control(fx.em, 'profiles', { profiles: ['default-scopes-no-sql', 'mint-ignores-scopes'] });
      const refused = await doctorOf();
      expect(refused).toMatchObject({ state: 'failed', action: expect.stringContaining('CUBEJS_DEFAULT_API_SCOPES') });
      expect(refused!.seen).toContain('is refused with a token minted with the scope sql (');
      await control(fx.em, 'profiles', { profiles: [] });
      expect((await doctorOf())!.seen).toContain('a token minted without scopes plans too');
    } finally {
      await control(fx.em, 'profiles', { profiles: [] });
    }
  }, 240_000);
});
