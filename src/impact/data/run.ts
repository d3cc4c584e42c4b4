/**
 * The data diff: every key query on production and on the preview's staging environment, at most
 * `concurrency` in flight on each, each with its own deadline; then the two results compared. Tokens
 * are minted for each environment with the security context given (access policies shape the
 * numbers) and masked. A query that fails on a side is reported as failed, never as a difference.
 */
import { AbortedError, messageOf } from '../../client/errors.js';
import type { HttpClient } from '../../client/http.js';
import type { OpContext } from '../../operations/context.js';
import { dataApiClient } from '../../operations/data-api.js';
import { compareRows, newRows } from './compare.js';
import { loadQuery, type LoadResult } from './load.js';
import type { DataDiffLimits, DataDiffMode, DataDiffResult, KeyQuery, QueryOutcome } from './types.js';

/** An environment's data API, as the impact found it. */
export interface DataEnvironment {
  id: string;
  restUrl: string;
  label: string;
}

export interface DataDiffInput {
  production: DataEnvironment;
  staging: DataEnvironment;
  queries: KeyQuery[];
  notRun: number;
  mode: DataDiffMode;
  limits: DataDiffLimits;
  securityContext: Record<string, unknown>;
  ca?: string;
}

/** A data-API token for `env` under `securityContext`, masked before anything can print it. */
async function mint(ctx: OpContext, env: DataEnvironment, securityContext: Record<string, unknown>): Promise<string> {
  const args = { deploymentId: ctx.deploymentId, environmentId: env.id, body: { security_context: securityContext, expires_in: 900 } };
  const token = (await ctx.client.deployments.createEnvironmentToken(args, { signal: ctx.signal, repeatable: true })).data.token;
  ctx.reporter.secret(token);
  return token;
}

/** At most `limit` tasks of one pool running at once. */
function pool(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= limit) await new Promise<void>((go) => waiting.push(go));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

function outcomeOf(k: KeyQuery, base: LoadResult | undefined, head: LoadResult, input: DataDiffInput): QueryOutcome {
  const out: QueryOutcome = { name: k.name, source: k.source, ...(k.why ? { why: k.why } : {}), query: k.query, status: 'unchanged', ms: { head: head.ms } };
  if (base) out.ms.base = base.ms;
  // Only a cap this run imposed can have cut rows the query itself wanted.
  const asked = k.capped ? (k.query.limit ?? input.limits.maxRows) : Number.POSITIVE_INFINITY;
  const baseError = base?.error;
  if (baseError || head.error) {
    const side = baseError && head.error ? 'both' : baseError ? 'production' : 'preview';
    return { ...out, status: 'failed', failed: { side, message: (side === 'preview' ? head.error : baseError) ?? '' } };
  }
  if (!base) return { ...out, status: 'new', comparison: newRows(k.query, head.rows ?? [], input.mode, asked) };
  const comparison = compareRows(k.query, base.rows ?? [], head.rows ?? [], input.limits, input.mode, asked);
  const moved = comparison.added + comparison.removed + comparison.changed > 0;
  return { ...out, status: moved ? 'changed' : 'unchanged', comparison };
}

/** Run the key queries on both environments and compare; a token that cannot be minted ends it with a notice. */
export async function runDataDiff(ctx: OpContext, input: DataDiffInput): Promise<DataDiffResult> {
  const started = Date.now();
  const result = (queries: QueryOutcome[], notices: string[]): DataDiffResult => ({
    mode: input.mode,
    queries,
    notRun: input.notRun,
    changed: queries.filter((q) => q.status === 'changed').length,
    notices,
    elapsedMs: Date.now() - started,
    limits: input.limits,
  });
  if (!input.queries.length) return result([], []);
  let tokens: [string, string];
  try {
    tokens = await Promise.all([mint(ctx, input.production, input.securityContext), mint(ctx, input.staging, input.securityContext)]);
  } catch (e) {
    if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
    return result([], [`the data diff did not run: no data-API token could be minted (${messageOf(e)})`]);
  }
  const sides = [input.production, input.staging].map((env, i) => {
    const url = new URL(`${env.restUrl}/load`);
    return { client: dataApiClient(ctx, url.origin, tokens[i] as string, input.ca), path: url.pathname, limit: pool(input.limits.concurrency) };
  }) as [{ client: HttpClient; path: string; limit: ReturnType<typeof pool> }, { client: HttpClient; path: string; limit: ReturnType<typeof pool> }];
  const run = (side: (typeof sides)[number], k: KeyQuery) =>
    side.limit(() => loadQuery(side.client, side.path, k.query, input.limits.queryTimeoutMs, ctx.signal));
  try {
    const outcomes = await Promise.all(
      input.queries.map(async (k) => {
        const [base, head] = await Promise.all([k.headOnly ? undefined : run(sides[0], k), run(sides[1], k)]);
        return outcomeOf(k, base, head, input);
      }),
    );
    return result(outcomes, []);
  } finally {
    await Promise.all(sides.map((s) => s.client.close().catch(() => undefined)));
  }
}
