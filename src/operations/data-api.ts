/** A client of a deployment's data API (its REST `/cubejs-api/v1`), as the smoke test and the impact step read it. */
import { HttpClient } from '../client/http.js';
import { DEFAULTS } from '../defaults.js';
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
