/**
 * A deployment's data API (its REST `/cubejs-api/v1`), as the smoke test, the impact and the data diff
 * read it: a client, and one query on `/load`, polled again while it answers `{"error":"Continue wait"}`
 * (Cube holds each poll a few seconds, then says so while the query still runs), until the rows come or
 * the query's own deadline passes. Any other answer without rows is the query's failure, in the
 * gateway's words.
 */
import { AbortedError, isHtml, messageOf } from '../client/errors.js';
import { HttpClient } from '../client/http.js';
import { sleep } from '../client/retry.js';
import { DEFAULTS } from '../defaults.js';
import type { Row } from '../impact/data/compare.js';
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

export interface LoadResult {
  rows?: Row[];
  error?: string;
  /** The error behind `error` when the request itself failed (its class gives the exit code and hint). */
  cause?: unknown;
  ms: number;
  /** Polls answered "Continue wait". */
  waits: number;
}

/** Runs `query` at `path` (the environment's `/load`) with `client`, within `timeoutMs`. */
export async function loadQuery(client: HttpClient, path: string, query: CubeQuery, timeoutMs: number, signal?: AbortSignal): Promise<LoadResult> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let waits = 0;
  const done = (r: Omit<LoadResult, 'ms' | 'waits'>): LoadResult => ({ ...r, ms: Date.now() - started, waits });
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return done({ error: `no answer within ${Math.round(timeoutMs / 1000)} s (${waits} "Continue wait" polls)` });
    let text: string;
    const sent = Date.now();
    try {
      const res = await client.send({ method: 'POST', path, json: { query }, idempotent: true }, { signal, deadline, timeoutMs: left });
      text = res.text ?? '';
    } catch (e) {
      if (e instanceof AbortedError || signal?.aborted) throw e;
      return done({ error: messageOf(e), cause: e });
    }
    if (isHtml(text)) return done({ error: `${path} answered with a web page, not the data API` });
    let body: { error?: unknown; data?: unknown; results?: { data?: unknown }[] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return done({ error: `${path} answered with something that is not JSON (${JSON.stringify(text.slice(0, 80))})` });
    }
    if (typeof body?.error === 'string' && body.error.includes('Continue wait')) {
      waits += 1;
      // Polled again at once, as the vendor's client does (the gateway held this poll); a server that
      // keeps answering at once gets a growing pause from the third poll, so it is never spun on.
      if (Date.now() - sent < 500 && waits > 2) await sleep(Math.min(1_000, 100 * (waits - 2)), signal);
      continue;
    }
    const data = Array.isArray(body?.data) ? body.data : Array.isArray(body?.results?.[0]?.data) ? body.results[0].data : undefined;
    if (data) return done({ rows: data as Row[] });
    return done({ error: typeof body?.error === 'string' ? body.error : `an answer without rows (keys ${Object.keys(body ?? {}).join(', ') || 'none'})` });
  }
}
