/**
 * The data diff's engine against a real HTTPS server standing in for two environments' data APIs:
 * "Continue wait" honoured, at most `concurrency` queries in flight on each environment, each query
 * with its own deadline, a failure on one side reported as a failure, rows compared on their keys
 * with the tolerances, and the relative mode keeping no value at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer, type RecordedRequest, type TestServer } from './support/https-server.js';
import { PlatformClient } from '../src/client/index.js';
import { runDataDiff, type DataDiffInput } from '../src/operations/data-diff.js';
import type { DataDiffLimits, KeyQuery } from '../src/impact/data/types.js';
import { MemoryReporter } from '../src/report/reporter.js';
import type { OpContext } from '../src/operations/context.js';

let server: TestServer;
let client: PlatformClient;
beforeAll(async () => {
  server = await startTestServer();
  client = new PlatformClient({ baseUrl: server.baseUrl, apiKey: 'sk-test', ca: server.ca, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const LIMITS: DataDiffLimits = { maxQueries: 50, maxRows: 100, concurrency: 2, queryTimeoutMs: 5_000, absTolerance: 0, relTolerance: 0.001 };
const ctx = (): OpContext & { reporter: MemoryReporter } => ({ client, deploymentId: 1, reporter: new MemoryReporter(), dryRun: false, ca: server.ca });
const env = (name: string) => ({ id: `1-${name}`, restUrl: `${server.baseUrl}/${name}/cubejs-api/v1`, label: name });
const input = (queries: KeyQuery[], extra: Partial<DataDiffInput> = {}): DataDiffInput => ({
  production: env('prod'),
  staging: env('stage'),
  queries,
  notRun: 0,
  mode: 'values',
  limits: LIMITS,
  securityContext: { tenant: 'acme' },
  ...extra,
});

/** The data API of both environments: `rows(side, query)` answers rows, or a status and an error. */
function serve(
  rows: (side: string, q: KeyQuery['query'], req: RecordedRequest) => unknown[] | { status: number; error: string },
  options: { waits?: number; delayMs?: number } = {},
) {
  const inFlight: Record<string, number> = { prod: 0, stage: 0 };
  const peak: Record<string, number> = { prod: 0, stage: 0 };
  const polls = new Map<string, number>();
  server.handle(async (req, res) => {
    if (req.path.endsWith('/tokens')) {
      const context = (req.json as { security_context: unknown }).security_context;
      const token = `tok-${req.path.split('/')[6]}-${JSON.stringify(context)}`;
      return json(res, 200, { data: { token, created_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T00:15:00Z', security_context: context } });
    }
    const side = req.path.split('/')[1] as string;
    const q = (req.json as { query: KeyQuery['query'] }).query;
    inFlight[side] = (inFlight[side] ?? 0) + 1;
    peak[side] = Math.max(peak[side] ?? 0, inFlight[side]);
    await new Promise((r) => setTimeout(r, options.delayMs ?? 5));
    inFlight[side] = (inFlight[side] ?? 0) - 1;
    const key = `${side}:${JSON.stringify(q)}`;
    const n = polls.get(key) ?? 0;
    polls.set(key, n + 1);
    if (n < (options.waits ?? 0) || (q.measures ?? []).includes('x.never')) return json(res, 200, { error: 'Continue wait' });
    const r = rows(side, q, req);
    if (!Array.isArray(r)) return json(res, r.status, { error: r.error });
    json(res, 200, { query: q, data: r, annotation: {} });
  });
  return { peak, polls };
}

const q = (name: string, measures: string[], dimensions: string[] = []): KeyQuery => ({ name, source: 'file', query: { measures, dimensions, limit: 100 } });

describe('the data diff engine', () => {
  it('polls through "Continue wait", keeps at most `concurrency` queries in flight on each environment, and gives up on a query at its own deadline', async () => {
    const { peak, polls } = serve(() => [{ 'o.n': '1' }], { waits: 2, delayMs: 20 });
    const queries = [...Array.from({ length: 6 }, (_, i) => q(`q${i}`, [`o.m${i}`])), q('stuck', ['x.never'])];
    const r = await runDataDiff(ctx(), input(queries, { limits: { ...LIMITS, queryTimeoutMs: 1_500 } }));
    expect(r.queries.map((x) => [x.name, x.status])).toEqual([...Array.from({ length: 6 }, (_, i) => [`q${i}`, 'unchanged']), ['stuck', 'failed']]);
    expect(r.queries.at(-1)!.failed).toEqual({ side: 'both', message: expect.stringMatching(/^no answer within 2 s \(\d+ "Continue wait" polls\)$/) });
    expect(peak).toEqual({ prod: 2, stage: 2 });
    // Three polls per query and side: two "Continue wait", then the rows.
    expect([...polls].filter(([k]) => !k.includes('x.never')).every(([, n]) => n === 3)).toBe(true);
    expect(r.changed).toBe(0);
  });

  it('mints a token per environment with the security context given, and masks both', async () => {
    serve(() => []);
    const c = ctx();
    await runDataDiff(c, input([q('a', ['o.n'])]));
    const auth = server.requests.filter((x) => x.path.endsWith('/load')).map((x) => x.headers.authorization);
    expect(new Set(auth)).toEqual(new Set(['tok-1-prod-{"tenant":"acme"}', 'tok-1-stage-{"tenant":"acme"}']));
    expect(c.reporter.secrets).toEqual(expect.arrayContaining(['tok-1-prod-{"tenant":"acme"}', 'tok-1-stage-{"tenant":"acme"}']));
  });

  it('a query that fails on one side is reported as failed there, never as a difference', async () => {
    serve((side, query) =>
      side === 'prod' && query.measures?.includes('o.fresh') ? { status: 400, error: "'fresh' not found for path 'o.fresh'" } : [{ 'o.fresh': '3' }],
    );
    const r = await runDataDiff(ctx(), input([q('new measure', ['o.fresh'])]));
    expect(r.queries[0]).toMatchObject({
      status: 'failed',
      failed: { side: 'production', message: expect.stringContaining("'fresh' not found for path 'o.fresh'") },
    });
    expect(r.queries[0]!.failed!.message).toContain('/prod/cubejs-api/v1/load -> 400');
    expect(r.changed).toBe(0);
  });

  const PROD = [
    { 'o.status': 'A', 'o.total': '100.00', 'o.count': '4' },
    { 'o.status': 'B', 'o.total': '50.00', 'o.count': '2' },
    { 'o.status': 'C', 'o.total': '7.00', 'o.count': '1' },
  ];
  const STAGE = [
    { 'o.status': 'A', 'o.total': '110.00', 'o.count': '4' },
    { 'o.status': 'B', 'o.total': '50.02', 'o.count': '2' },
    { 'o.status': 'D', 'o.total': '9.00', 'o.count': '1' },
  ];

  it('values mode: rows keyed on the dimensions; added, removed and changed rows; a move within the tolerance is no change', async () => {
    serve((side) => (side === 'prod' ? PROD : STAGE));
    const r = await runDataDiff(ctx(), input([q('by status', ['o.total', 'o.count'], ['o.status'])]));
    const c = r.queries[0]!.comparison!;
    expect(r.queries[0]!.status).toBe('changed');
    expect(c).toMatchObject({
      rows: { base: 3, head: 3 },
      added: 1,
      removed: 1,
      changed: 1,
      addedKeys: ['status = D'],
      removedKeys: ['status = C'],
      truncated: false,
    });
    // B moved by 0.04 % of 50: within the relative tolerance of 0.1 %.
    expect(c.largest).toEqual([{ measure: 'o.total', rel: 0.1, abs: 10, key: 'status = A', base: 100, head: 110 }]);
    expect(c.top).toEqual([{ key: 'status = A', measure: 'o.total', base: 100, head: 110, abs: 10, rel: 0.1 }]);
    expect(r.changed).toBe(1);
  });

  it('relative mode: row counts and relative moves only, no value and no key anywhere in the result', async () => {
    serve((side) => (side === 'prod' ? PROD : STAGE));
    const r = await runDataDiff(ctx(), input([q('by status', ['o.total', 'o.count'], ['o.status'])], { mode: 'relative' }));
    const c = r.queries[0]!.comparison!;
    expect(c).toMatchObject({ added: 1, removed: 1, changed: 1, top: [], addedKeys: [], removedKeys: [], largest: [{ measure: 'o.total', rel: 0.1 }] });
    const text = JSON.stringify(r.queries.map((x) => x.comparison));
    for (const secret of ['100', '110', '50.02', '"A"', 'status = ']) expect(text).not.toContain(secret);
  });
});
