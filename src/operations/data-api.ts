/**
 * A deployment's data API (its REST `/cubejs-api/v1`), as the smoke test, the impact and the data diff
 * read it: a client, and one query on `/load`, polled again while it answers `{"error":"Continue wait"}`
 * (Cube holds each poll a few seconds, then says so while the query still runs), until the rows come or
 * the query's own deadline passes. Cube's own refusals (a 4xx, its 500 `{ error }`) are final answers,
 * never repeated; transport failures and gateways (502-504) are. Any answer without rows is the query's
 * failure, in the gateway's words.
 */
import { AbortedError, isHtml, messageOf, type PlatformError } from '../client/errors.js';
import { HttpClient } from '../client/http.js';
import { sleep } from '../client/retry.js';
import { DEFAULTS } from '../defaults.js';
import { COMPARE_KEY, compareRangeLabels, type Row } from '../impact/data/compare.js';
import type { CubeQuery } from '../impact/data/types.js';
import type { OpContext } from './context.js';

/** The data API takes its token as is (no scheme) and may hold one answer up to 90 s: it gets 95. */
export function dataApiClient(ctx: OpContext, origin: string, token: string): HttpClient {
  return new HttpClient({
    baseUrl: origin,
    apiKey: token,
    authScheme: 'raw',
    timeoutMs: Math.max(DEFAULTS.dataApiTimeoutMs, ctx.requestTimeoutMs ?? 0),
    ...(ctx.ca ? { ca: ctx.ca } : {}),
    onSecret: (s) => ctx.reporter.secret(s),
  });
}

/** The deployment's data-API token, for 10 minutes, masked before anything can print it. */
export async function deploymentDataToken(ctx: OpContext): Promise<string> {
  // Minting twice only mints an unused second token: retried like a read.
  const { cubeApiToken } = await ctx.client.deployments.token(
    { deploymentId: ctx.deploymentId, body: { expiresIn: 600 } },
    { signal: ctx.signal, repeatable: true },
  );
  ctx.reporter.secret(cubeApiToken);
  return cubeApiToken;
}

/**
 * The data API's scopes (Cube's API scopes): `meta` for `/v1/meta`, `data` for `/v1/load` and `/v1/dry-run`,
 * `sql` for `/v1/sql` (the rollup plans). A tenant's default scopes may lack `sql`, so each token asks for
 * exactly the scopes its use needs, never more.
 */
export type ApiScope = 'meta' | 'data' | 'sql';

/** An environment a token is minted for: its id; how messages name it and the branch whose model it serves, when known. */
export interface MintTarget {
  id: string;
  label?: string;
  branch?: string;
}

/** A side whose model the platform's validation refuses: said at once, never retried, never minted for. */
export class ModelDoesNotCompile extends Error {}

/** Each run's verdicts by branch (a run has one reporter): validation is asked once per side and run. */
const verdicts = new WeakMap<object, Map<string, Promise<string | undefined>>>();

/** `production` or `the preview`, as the review names the sides. */
const sideName = (env: MintTarget) => (env.label === 'production' ? 'production' : 'the preview');

/**
 * Why the environment's model does not compile, from the platform's validation of its branch; undefined
 * when it compiles or validation cannot say (refused, asleep): the reads then find out for themselves.
 */
export function compileProblem(ctx: OpContext, env: MintTarget): Promise<string | undefined> {
  const branch = env.branch;
  if (!branch) return Promise.resolve(undefined);
  let run = verdicts.get(ctx.reporter);
  if (!run) verdicts.set(ctx.reporter, (run = new Map<string, Promise<string | undefined>>()));
  let verdict = run.get(branch);
  if (!verdict) {
    verdict = ctx.client.dataModel.validate({ deploymentId: ctx.deploymentId, query: { branchName: branch } }, { signal: ctx.signal }).then(
      (r) => {
        if (r.valid) return undefined;
        const first = r.errors[0];
        const text = first ? `${first.fileName ? `${first.fileName}: ` : ''}${first.message.trim()}` : "the platform's validation reports it invalid";
        const more = r.errors.length > 1 ? ` (and ${r.errors.length - 1} more)` : '';
        return `${sideName(env)}'s model does not compile: ${text}${more}`;
      },
      (e: unknown) => {
        if (e instanceof AbortedError || ctx.signal?.aborted) throw e;
        return undefined;
      },
    );
    run.set(branch, verdict);
  }
  return verdict;
}

/**
 * A data-API token for an environment under `securityContext` with `scopes` (`expiresIn` seconds), masked
 * before anything can print it. A side whose model does not compile gets none: `ModelDoesNotCompile`, at once.
 */
export async function mint(
  ctx: OpContext,
  env: MintTarget,
  securityContext: Record<string, unknown>,
  scopes: readonly ApiScope[],
  expiresIn = 900,
): Promise<string> {
  return (await mintEchoed(ctx, env, securityContext, scopes, expiresIn)).token;
}

/** `mint`, with the security context the platform says the token carries (its answer's `security_context`: compared with the one sent). */
export async function mintEchoed(
  ctx: OpContext,
  env: MintTarget,
  securityContext: Record<string, unknown>,
  scopes: readonly ApiScope[],
  expiresIn = 900,
): Promise<{ token: string; echoed: Record<string, unknown> }> {
  const problem = await compileProblem(ctx, env);
  if (problem) throw new ModelDoesNotCompile(problem);
  const args = {
    deploymentId: ctx.deploymentId,
    environmentId: env.id,
    body: { security_context: securityContext, expires_in: expiresIn, scopes: [...scopes] },
  };
  // Minting twice only mints an unused second token: retried like a read.
  const { data } = await ctx.client.deployments.createEnvironmentToken(args, { signal: ctx.signal, repeatable: true });
  ctx.reporter.secret(data.token);
  return { token: data.token, echoed: data.security_context };
}

/** Cube's cache modes of `/load` (its `cache` parameter; the vendor's default is `stale-if-slow`). */
export type CacheMode = 'stale-if-slow' | 'stale-while-revalidate' | 'must-revalidate' | 'no-cache';

/** One environment's `/load`, as a run sends queries to it: whether it has answered yet, and how many requests it got. */
export interface DataTarget {
  client: HttpClient;
  path: string;
  /** Until the environment answers once, its queries may wait this long from its first request (a cold compile), ms. */
  coldMs?: number;
  firstSent?: number;
  /** When it first answered: a query that waited for it gets its own deadline from then. */
  warmAt?: number;
  /** Requests sent to `/load`: every poll and every repeat counted. */
  requests: number;
}

export const dataTarget = (client: HttpClient, path: string, coldMs?: number): DataTarget => ({ client, path, requests: 0, ...(coldMs ? { coldMs } : {}) });

export interface LoadResult {
  rows?: Row[];
  error?: string;
  /** The error behind `error` when the request itself failed (its class gives the exit code and hint). */
  cause?: unknown;
  ms: number;
  /** Polls answered "Continue wait". */
  waits: number;
  /** The answer's `lastRefreshTime` (the oldest of its results): when the data it holds was read. */
  refreshed?: string;
  /** Rows of the longest result (a compareDateRange query has one per range). */
  longest?: number;
}

/** A query Cube refuses without `queryType` (`compareDateRangeQuery`): sent with `queryType: 'multi'`, as the vendor's client sends every query. */
export const needsMulti = (q: CubeQuery): boolean => (q.timeDimensions ?? []).some((t) => t.compareDateRange !== undefined && t.compareDateRange !== null);

/** Cube's own 500 `{ error }` (an unknown member on some tenants): its answer, not a passing fault. */
function cubeAnswer(e: PlatformError): boolean {
  if (e.status !== 500 && e.status !== 501) return false;
  try {
    return typeof (JSON.parse(e.responseBody ?? '') as { error?: unknown })?.error === 'string';
  } catch {
    return false;
  }
}

type Body = { error?: unknown; data?: unknown; lastRefreshTime?: unknown; results?: { data?: unknown; lastRefreshTime?: unknown }[] };

/** The rows of an answer (each result's, a compareDateRange result's tagged with its range), its oldest refresh time. */
function rowsOf(body: Body, query: CubeQuery): Omit<LoadResult, 'ms' | 'waits'> | undefined {
  const results = Array.isArray(body?.results) ? body.results : [body];
  if (!results.length || !results.every((r) => Array.isArray(r?.data))) return undefined;
  const labels = compareRangeLabels(query);
  const rows = results.flatMap((r, i) => (r.data as Row[]).map((row) => (labels ? { ...row, [COMPARE_KEY]: labels[i] ?? `range ${i + 1}` } : row)));
  const times = results.map((r) => (typeof r.lastRefreshTime === 'string' ? Date.parse(r.lastRefreshTime) : NaN)).filter((t) => Number.isFinite(t));
  const longest = Math.max(...results.map((r) => (r.data as Row[]).length));
  return { rows, longest, ...(times.length ? { refreshed: new Date(Math.min(...times)).toISOString() } : {}) };
}

/** Runs `query` on `t` within `timeoutMs` (longer while the environment has never answered), with Cube's cache mode `cache`. */
export async function loadQuery(t: DataTarget, query: CubeQuery, timeoutMs: number, signal?: AbortSignal, cache?: CacheMode): Promise<LoadResult> {
  const started = Date.now();
  const deadline = () => {
    if (!t.coldMs) return started + timeoutMs;
    if (t.warmAt === undefined) return Math.max(started + timeoutMs, (t.firstSent ?? started) + t.coldMs);
    return Math.max(started, t.warmAt) + timeoutMs;
  };
  const warm = () => (t.warmAt ??= Date.now());
  const json = { query, ...(needsMulti(query) ? { queryType: 'multi' } : {}), ...(cache ? { cache } : {}) };
  let waits = 0;
  const done = (r: Omit<LoadResult, 'ms' | 'waits'>): LoadResult => ({ ...r, ms: Date.now() - started, waits });
  for (;;) {
    const left = deadline() - Date.now();
    if (left <= 0) return done({ error: `no answer within ${Math.round((deadline() - started) / 1000)} s (${waits} "Continue wait" polls)` });
    let text: string;
    const sent = Date.now();
    t.firstSent ??= sent;
    t.requests += 1;
    try {
      const options = { signal, deadline: deadline(), timeoutMs: left, final: cubeAnswer, onRetry: () => (t.requests += 1) };
      const res = await t.client.send({ method: 'POST', path: t.path, json, idempotent: true }, options);
      text = res.text ?? '';
    } catch (e) {
      if (e instanceof AbortedError || signal?.aborted) throw e;
      const status = (e as PlatformError).status;
      if (status !== undefined && (status < 500 || cubeAnswer(e as PlatformError))) warm();
      return done({ error: messageOf(e), cause: e });
    }
    if (isHtml(text)) return done({ error: `${t.path} answered with a web page, not the data API` });
    let body: Body;
    try {
      body = JSON.parse(text) as Body;
    } catch {
      return done({ error: `${t.path} answered with something that is not JSON (${JSON.stringify(text.slice(0, 80))})` });
    }
    // The gateway answered: the model is compiled, so every query gets its own deadline from now on.
    warm();
    if (typeof body?.error === 'string' && body.error.includes('Continue wait')) {
      waits += 1;
      // Polled again at once, as the vendor's client does (the gateway held this poll); a server that
      // keeps answering at once gets a growing pause from the third poll, so it is never spun on.
      if (Date.now() - sent < 500 && waits > 2) await sleep(Math.min(1_000, 100 * (waits - 2)), signal);
      continue;
    }
    const read = rowsOf(body, query);
    if (read) return done(read);
    return done({ error: typeof body?.error === 'string' ? body.error : `an answer without rows (keys ${Object.keys(body ?? {}).join(', ') || 'none'})` });
  }
}
