/** The environments the impact reads (production's, a branch's staging environment) and the token it reads `/meta` with. */
import { environmentRestUrl, normaliseRestUrl, type schemas } from '@datamodel-ci/platform-api';
import { AuthenticationError, PermissionDeniedError, messageOf } from '../client/errors.js';
import { collect } from '../client/pagination.js';
import type { OpContext } from './context.js';
import { deploymentDataToken, mint } from './data-api.js';

/** An environment of the deployment, as the impact needs it. */
export interface EnvironmentRef {
  id: string;
  restUrl: string;
  /** `production`, or `staging of <branch>`: how messages name it. */
  label: string;
  /** The branch whose model it serves, when the platform says (its validation verdict is asked before a token is minted). */
  branch?: string;
}

const refused = (e: unknown) => e instanceof PermissionDeniedError || e instanceof AuthenticationError;

/** The production environment and (when given) the branch's staging environment. */
export async function findEnvironments(ctx: OpContext, branch?: string): Promise<{ production?: EnvironmentRef; staging?: EnvironmentRef }> {
  const envs = await collect(ctx.client.deployments.iterateEnvironments({ deploymentId: ctx.deploymentId, limit: 100 }, { signal: ctx.signal }));
  const ref = (e: schemas.DeploymentEnvironment | undefined, label: string): EnvironmentRef | undefined => {
    const url = e ? environmentRestUrl(e) : undefined;
    return e && url ? { id: String(e.id), restUrl: normaliseRestUrl(url), label, ...(e.branch ? { branch: e.branch } : {}) } : undefined;
  };
  const staging = branch ? envs.find((e) => e.type === 'staging' && (e.branch === branch || e.name === branch)) : undefined;
  return {
    production: ref(
      envs.find((e) => e.type === 'production'),
      'production',
    ),
    staging: ref(staging, `the staging environment of ${branch}`),
  };
}

export interface MetaToken {
  token: string;
  notice?: string;
}

/**
 * A token that may read `/meta` of an environment: the environment's own data-API token; else the
 * deployment's data-API token (`POST /api/v1/deployments/{id}/token`, the one the vendor documents for
 * the data API); a metadata token only as the last resort (the vendor scopes it to its metadata
 * endpoints, and some tenants refuse it on `/cubejs-api/v1/meta`).
 */
export async function metaToken(ctx: OpContext, env: EnvironmentRef): Promise<MetaToken> {
  const args = { deploymentId: ctx.deploymentId, environmentId: env.id, body: { security_context: {}, expires_in: 600 } };
  // Minting twice only mints an unused second token: retried like a read.
  const opts = { signal: ctx.signal, repeatable: true };
  try {
    return { token: await mint(ctx, env, {}, ['meta'], 600) };
  } catch (e) {
    if (!refused(e)) throw e;
    const why = `this API key may not mint data-API tokens for ${env.label} (${messageOf(e)})`;
    try {
      const cubeApiToken = await deploymentDataToken(ctx);
      return { token: cubeApiToken, notice: `${why}: read its /meta with the deployment's data-API token` };
    } catch (e2) {
      if (!refused(e2)) throw e2;
      const t = (await ctx.client.deployments.createMetaSyncToken(args, opts)).data.token;
      ctx.reporter.secret(t);
      return { token: t, notice: `${why}, nor the deployment's (${messageOf(e2)}): read its /meta with a metadata token` };
    }
  }
}
