/**
 * The doctor's rollup-plan check: one tiny query planned on production with `POST /v1/sql` (Cube's plan only:
 * no data is read), with a token minted for the `sql` scope as the rollup plans mint theirs, and once with a
 * token minted without scopes, so the report says whether plans work and whether they need the scope asked
 * for (a tenant whose default scopes lack `sql`), or the mint ignores it.
 */
import { messageOf } from '../client/errors.js';
import { DEFAULTS } from '../defaults.js';
import type { KeyQuery } from '../impact/data/types.js';
import type { OpContext } from './context.js';
import { dataApiClient, mint } from './data-api.js';
import type { AddCheck } from './doctor-fed.js';
import { environmentMeta, findEnvironments, type EnvironmentRef } from './impact.js';
import { planQuery } from './rollup-plans.js';

const NAME = 'rollup plan';
const ACTION_OK = 'mints each data-API token with the scopes its use needs: sql for the rollup plans, data for /load, meta for /meta';

/** One `/v1/sql` plan of `query` on `env` with a token minted with `scopes` (none: the tenant's defaults): undefined when planned, else why not. */
async function planWith(ctx: OpContext, env: EnvironmentRef, query: KeyQuery, scopes?: ['sql']): Promise<string | undefined> {
  const token = scopes
    ? await mint(ctx, env, {}, scopes, 600)
    : (
        await ctx.client.deployments.createEnvironmentToken(
          { deploymentId: ctx.deploymentId, environmentId: env.id, body: { security_context: {}, expires_in: 600 } },
          { signal: ctx.signal, repeatable: true },
        )
      ).data.token;
  ctx.reporter.secret(token);
  const url = new URL(`${env.restUrl}/sql`);
  const client = dataApiClient(ctx, url.origin, token);
  try {
    const plan = await planQuery(client, url.pathname, query, DEFAULTS.dataApiTimeoutMs, ctx.signal);
    return 'error' in plan ? plan.error : undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The first measure (else dimension) production's `/meta` lists, as a one-member query. */
function tinyQuery(members: { name: string; kind: string }[]): KeyQuery | undefined {
  const m = members.find((x) => x.kind === 'measure') ?? members.find((x) => x.kind === 'dimension');
  if (!m) return undefined;
  return { name: 'doctor', source: 'file', query: m.kind === 'measure' ? { measures: [m.name] } : { dimensions: [m.name] } };
}

/** Whether production plans a tiny query, and with which scope; never throws (an abort does). */
export async function planCheck(ctx: OpContext, add: AddCheck): Promise<void> {
  const { production } = await findEnvironments(ctx);
  if (!production) return add(NAME, 'not checked', 'the deployment lists no production environment', '');
  const read = await environmentMeta(ctx, production);
  const query = read.meta ? tinyQuery(read.meta.cubes.flatMap((c) => c.members)) : undefined;
  if (!query) return add(NAME, 'not checked', read.problem ?? "production's /meta lists no member to plan", '');
  const member = [...(query.query.measures ?? []), ...(query.query.dimensions ?? [])][0];
  const scoped = await planWith(ctx, production, query, ['sql']).catch((e: unknown) => `no token with the sql scope: ${messageOf(e)}`);
  const plain = await planWith(ctx, production, query).catch((e: unknown) => `no token: ${messageOf(e)}`);
  const tried = `a /v1/sql plan of ${member} on production`;
  if (scoped === undefined) {
    const defaults =
      plain === undefined ? 'a token minted without scopes plans too' : `a token minted without scopes is refused (${plain}): the scope sql is needed`;
    return add(NAME, 'ok', `${tried} works with a token minted with the scope sql; ${defaults}`, ACTION_OK);
  }
  const missing = /API scope is missing/i.test(scoped);
  add(
    NAME,
    'failed',
    `${tried} is refused with a token minted with the scope sql (${scoped})${plain === undefined ? '' : `, and without scopes (${plain})`}`,
    missing
      ? "the mint does not give the sql scope: rollup plans will be notices. Add sql to the deployment's default API scopes (CUBEJS_DEFAULT_API_SCOPES) or to its contextToApiScopes"
      : 'rollup plans will be notices: see the refusal',
  );
}
