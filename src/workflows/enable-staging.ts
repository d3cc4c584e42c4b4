/** enable-staging: turn on the always-on staging environment of the shared branch; optionally query it. */
import { HttpClient } from '../client/http.js';
import { environmentRestUrl } from '@datamodel-ci/platform-api';
import { InputError } from '../client/errors.js';
import { sleep } from '../client/retry.js';
import { DEFAULTS } from '../defaults.js';
import { mutate, type OpContext } from './context.js';

export interface EnableStagingResult {
  branch: string;
  stagingUrl: string | undefined;
  environmentId: string | undefined;
  smoke?: { cubes: number; rows: number; waits: number };
}

export interface SmokeOptions {
  timeoutMs: number;
  /** Trusted CA for the data API (same as the management API's). */
  ca?: string;
}

export async function enableStaging(
  ctx: OpContext,
  input: { branch: string; smokeTest: boolean; smoke?: SmokeOptions },
): Promise<EnableStagingResult> {
  const { client, deploymentId } = ctx;
  const opts = { signal: ctx.signal };
  const set = await mutate(ctx, `enable the staging environment of ${input.branch}`, () =>
    client.branches.setStagingEnvironment({ deploymentId, body: { enabled: true, branchName: input.branch } }, opts),
  );
  if (!set) return { branch: input.branch, stagingUrl: undefined, environmentId: undefined };
  const envs = await client.deployments.environments({ deploymentId, query: { type: 'staging', limit: 100 } }, opts);
  const env = envs.items.find((e) => e.branch === input.branch || e.name === input.branch);
  let stagingUrl = env ? environmentRestUrl(env) : undefined;
  if (!stagingUrl) {
    const d = await client.deployments.get({ deploymentId }, opts);
    stagingUrl = `${d.deploymentUrl.replace(/\/+$/, '')}/dev-mode/${input.branch}/cubejs-api/v1`;
  }
  ctx.reporter.info(`staging environment of ${input.branch}: ${stagingUrl}`);
  const result: EnableStagingResult = { branch: input.branch, stagingUrl, environmentId: env ? String(env.id) : undefined };
  if (input.smokeTest) result.smoke = await smokeTest(ctx, stagingUrl, input.smoke ?? { timeoutMs: DEFAULTS.smokeTimeoutSeconds * 1000 });
  return result;
}

/**
 * Mint a short-lived data-API token (masked), read `/meta`, then run one `/load`, retrying
 * "Continue wait" until the deadline.
 */
export async function smokeTest(ctx: OpContext, stagingUrl: string, options: SmokeOptions) {
  // Minting twice only mints an unused second token.
  const { cubeApiToken } = await ctx.client.deployments.token({ deploymentId: ctx.deploymentId, body: { expiresIn: 600 } }, { signal: ctx.signal, repeatable: true });
  ctx.reporter.secret(cubeApiToken);
  const url = new URL(stagingUrl.endsWith('/') ? stagingUrl : `${stagingUrl}/`);
  const data = new HttpClient({ baseUrl: url.origin, apiKey: cubeApiToken, ca: options.ca, onSecret: (s) => ctx.reporter.secret(s) });
  try {
    const meta = JSON.parse((await data.send({ method: 'GET', path: `${url.pathname}meta` }, { signal: ctx.signal })).text ?? '{}') as {
      cubes?: { name: string; measures?: { name: string }[] }[];
    };
    const cubes = meta.cubes ?? [];
    const measure = cubes.flatMap((c) => c.measures ?? [])[0]?.name;
    if (!measure) throw new InputError('smoke-test', `${cubes.length} cubes`, 'a model with at least one measure to query');
    const query = encodeURIComponent(JSON.stringify({ measures: [measure], limit: 1 }));
    const deadline = Date.now() + options.timeoutMs;
    let waits = 0;
    for (;;) {
      const body = JSON.parse((await data.send({ method: 'GET', path: `${url.pathname}load?query=${query}` }, { signal: ctx.signal })).text ?? '{}') as {
        error?: string;
        data?: unknown[];
      };
      if (body.error === 'Continue wait') {
        waits += 1;
        if (Date.now() >= deadline) throw new Error(`smoke test: /load still answered "Continue wait" after ${options.timeoutMs} ms`);
        await sleep(Math.min(2_000, 200 * waits), ctx.signal);
        continue;
      }
      if (body.error) throw new Error(`smoke test: /load answered ${body.error}`);
      ctx.reporter.info(`smoke test: /meta lists ${cubes.length} cubes and views; /load of ${measure} returned ${body.data?.length ?? 0} row(s) after ${waits} wait(s)`);
      return { cubes: cubes.length, rows: body.data?.length ?? 0, waits };
    }
  } finally {
    await data.close();
  }
}
