/** enable-staging: turn on the always-on staging environment of the shared branch; optionally query it. */
import { branchRestUrl, environmentRestUrl, normaliseRestUrl } from '@datamodel-ci/platform-api';
import { InputError, isHtml, messageOf } from '../client/errors.js';
import { collect } from '../client/pagination.js';
import { DEFAULTS } from '../defaults.js';
import { enableBranchStaging } from './branch-build.js';
import type { OpContext } from './context.js';
import { ledgerOf } from './ledger.js';
import { dataApiClient, dataTarget, deploymentDataToken, loadQuery } from './data-api.js';
import { plural } from '../report/plural.js';

export interface EnableStagingResult {
  branch: string;
  stagingUrl: string | undefined;
  environmentId: string | undefined;
  /** This call turned the staging environment on (it was seen off, or the branch is new): the close may turn it off. */
  turnedOn?: boolean;
  smoke?: { cubes: number; rows: number; waits: number };
}

export interface SmokeOptions {
  timeoutMs: number;
}

/** The branch's staging environment in the environments list, when listed. */
export async function stagingEnvironmentOf(ctx: OpContext, branch: string) {
  // Every page: a tenant with many branches lists more staging environments than one page holds.
  const envs = await collect(
    ctx.client.deployments.iterateEnvironments({ deploymentId: ctx.deploymentId, query: { type: 'staging' }, limit: 100 }, { signal: ctx.signal }),
  );
  return envs.find((e) => e.branch === branch || e.name === branch);
}

/** Whether the branch's staging environment is on, as the branch list says; undefined when it does not say. */
async function stagingWasOn(ctx: OpContext, branch: string): Promise<boolean | undefined> {
  for await (const b of ctx.client.branches.iterate({ deploymentId: ctx.deploymentId, query: { first: 100 } }, { signal: ctx.signal })) {
    if (b.name === branch) return typeof b.isStagingEnvironmentEnabled === 'boolean' ? b.isStagingEnvironmentEnabled : undefined;
  }
  return undefined;
}

/**
 * Turn the branch's staging environment on. A branch a run of this PR made (the run's ledger says so) is
 * this PR's; else the branch list is read first, and only an environment seen off counts as turned on by this run.
 */
export async function enableStaging(ctx: OpContext, input: { branch: string; smokeTest: boolean; smoke?: SmokeOptions }): Promise<EnableStagingResult> {
  const { client, deploymentId } = ctx;
  const opts = { signal: ctx.signal };
  const own = !!ledgerOf(ctx).created(input.branch);
  const wasOn = own || ctx.dryRun ? false : await stagingWasOn(ctx, input.branch);
  if (!(await enableBranchStaging(ctx, input.branch))) return { branch: input.branch, stagingUrl: undefined, environmentId: undefined };
  const env = await stagingEnvironmentOf(ctx, input.branch);
  const reported = env ? environmentRestUrl(env) : undefined;
  const stagingUrl = reported ? normaliseRestUrl(reported) : branchRestUrl((await client.deployments.get({ deploymentId }, opts)).deploymentUrl, input.branch);
  ctx.reporter.info(`staging environment of ${input.branch}: ${stagingUrl}`);
  const result: EnableStagingResult = { branch: input.branch, stagingUrl, environmentId: env ? String(env.id) : undefined, turnedOn: wasOn === false };
  // Seen off (or the branch is this run's): the run's ledger says a run of this PR turned it on, so the close may turn it off.
  if (result.turnedOn) ledgerOf(ctx).recordStagingOn(input.branch);
  if (input.smokeTest) result.smoke = await smokeTest(ctx, stagingUrl, input.smoke ?? { timeoutMs: DEFAULTS.smokeTimeoutSeconds * 1000 });
  return result;
}

/**
 * One data request to a staging environment, which wakes it when it sleeps (the vendor: staging
 * environments suspend when idle). True when the environment answered 2xx; a failure is only logged,
 * and the caller wakes it again (the vendor: resuming on the first query is not guaranteed).
 */
export async function wakeStaging(ctx: OpContext, stagingUrl: string): Promise<boolean> {
  const cubeApiToken = await deploymentDataToken(ctx);
  const url = new URL(`${stagingUrl.replace(/\/+$/, '')}/meta`);
  const data = dataApiClient(ctx, url.origin, cubeApiToken);
  try {
    const timeoutMs = ctx.requestTimeoutMs ?? DEFAULTS.requestTimeoutSeconds * 1000;
    return await data.send({ method: 'GET', path: url.pathname }, { signal: ctx.signal, timeoutMs, retry: { maxAttempts: 1 } }).then(
      () => true,
      (e: unknown) => {
        if (ctx.signal?.aborted) throw e;
        ctx.reporter.debug(`wake request to ${url.pathname}: ${messageOf(e)}`);
        return false;
      },
    );
  } finally {
    await data.close();
  }
}

/**
 * Mint a short-lived data-API token (masked), read `/meta`, then run one `/load` within the deadline.
 */
export async function smokeTest(ctx: OpContext, stagingUrl: string, options: SmokeOptions) {
  const cubeApiToken = await deploymentDataToken(ctx);
  const url = new URL(stagingUrl.endsWith('/') ? stagingUrl : `${stagingUrl}/`);
  const data = dataApiClient(ctx, url.origin, cubeApiToken);
  /** GET a data-API path and read its JSON; the web app's HTML page means this is not the deployment's own host. */
  const get = async <T>(path: string): Promise<T> => {
    const text = (await data.send({ method: 'GET', path: `${url.pathname}${path}` }, { signal: ctx.signal })).text ?? '';
    if (isHtml(text))
      throw new Error(
        `smoke test: ${url.origin}${url.pathname}${path.split('?')[0]} answered with a web page, not the data API (the staging URL must be on the deployment's own host)`,
      );
    return JSON.parse(text || '{}') as T;
  };
  try {
    const meta = await get<{ cubes?: { name: string; measures?: { name: string }[] }[] }>('meta');
    const cubes = meta.cubes ?? [];
    const measure = cubes.flatMap((c) => c.measures ?? [])[0]?.name;
    if (!measure) throw new InputError('smoke-test', `${cubes.length} cubes`, 'a model with at least one measure to query');
    const r = await loadQuery(dataTarget(data, `${url.pathname}load`), { measures: [measure], limit: 1 }, options.timeoutMs, ctx.signal);
    if (r.cause instanceof Error) throw r.cause;
    if (r.error) throw new Error(`smoke test: /load: ${r.error}`);
    const rows = r.rows?.length ?? 0;
    ctx.reporter.info(
      `smoke test: /meta lists ${cubes.length} cubes and views; /load of ${measure} returned ${plural(rows, 'row')} after ${plural(r.waits, 'wait')}`,
    );
    return { cubes: cubes.length, rows, waits: r.waits };
  } finally {
    await data.close();
  }
}
