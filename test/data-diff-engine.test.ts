/**
 * The data diff's engine against a real HTTPS server standing in for two environments' data APIs:
 * "Continue wait" honoured, at most `concurrency` queries in flight on each environment, each query
 * with its own deadline, a failure on one side reported as a failure, rows compared on their keys
 * with the tolerances, and the relative mode keeping no value at all. Then the gateway's ways: fresh
 * answers asked for, Cube's own refusal taken at once while a gateway's 502 is repeated, the first
 * queries of a cold environment given time for its compile, rows read after the older side's read
 * left out, a compareDateRange query's results compared range by range, and the requests counted.
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

/** `/load` of both sides by `answer(side, body)`; each request held `holdMs(side)` first (a cold compile). */
function gateway(answer: (side: string, body: LoadBody) => { status?: number; body: unknown }, holdMs: (side: string) => number = () => 0) {
  server.handle(async (req, res) => {
    if (req.path.endsWith('/tokens')) {
      return json(res, 200, {
        data: { token: `tok-${req.path.split('/')[6]}`, created_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T00:15:00Z', security_context: {} },
      });
    }
    const side = req.path.split('/')[1] as string;
    const hold = holdMs(side);
    if (hold) await new Promise((r) => setTimeout(r, hold));
    const a = answer(side, req.json as LoadBody);
    json(res, a.status ?? 200, a.body);
  });
}
interface LoadBody {
  query: KeyQuery['query'];
  queryType?: string;
  cache?: string;
}
const loads = (from: number, side?: string) => server.requests.slice(from).filter((r) => r.path.endsWith('/load') && (!side || r.path.startsWith(`/${side}/`)));

describe("the data diff as Cube's gateway answers", () => {
  it('asks both sides for fresh answers (cache no-cache) and counts every request it sends, polls and repeats included', async () => {
    const from = server.requests.length;
    let gaveWay = false;
    gateway((side) => {
      if (side === 'prod' && !gaveWay) {
        gaveWay = true;
        return { status: 502, body: { message: 'Bad Gateway' } };
      }
      return { body: { data: [{ 'o.n': '1' }] } };
    });
    const r = await runDataDiff(ctx(), input([q('a', ['o.n'])]));
    expect(r.queries[0]!.status).toBe('unchanged');
    expect(loads(from).map((x) => (x.json as LoadBody).cache)).toEqual(['no-cache', 'no-cache', 'no-cache']);
    // The 502 (a gateway, not Cube) was repeated once.
    expect(r.requests).toEqual({ production: 2, preview: 1 });
  });

  it("takes Cube's own 500 { error } (an unknown member on some tenants) as the final answer: one request, reported at once", async () => {
    const from = server.requests.length;
    gateway((side) =>
      side === 'prod' ? { status: 500, body: { error: "Error: 'fresh' not found for path 'o.fresh'" } } : { body: { data: [{ 'o.fresh': '3' }] } },
    );
    const r = await runDataDiff(ctx(), input([q('new measure', ['o.fresh'])]));
    expect(r.queries[0]).toMatchObject({
      status: 'failed',
      failed: { side: 'production', message: expect.stringContaining("-> 500: Error: 'fresh' not found for path 'o.fresh'") },
    });
    expect(loads(from, 'prod')).toHaveLength(1);
    expect(r.requests).toEqual({ production: 1, preview: 1 });
  });

  it('gives the queries sent to an environment before it first answers the time of a cold compile, then each its own deadline', async () => {
    // Production compiles its model for a while after its first request: every request meanwhile waits.
    let compiled = 0;
    gateway(
      () => ({ body: { data: [{ 'o.n': '1' }] } }),
      (side) => {
        if (side !== 'prod') return 0;
        compiled ||= Date.now() + 1_500;
        return Math.max(0, compiled - Date.now());
      },
    );
    const queries = Array.from({ length: 3 }, (_, i) => q(`q${i}`, [`o.m${i}`]));
    const r = await runDataDiff(ctx(), input(queries, { limits: { ...LIMITS, queryTimeoutMs: 300 } }));
    expect(r.queries.map((x) => [x.name, x.status])).toEqual(queries.map((k) => [k.name, 'unchanged']));
  });

  it("leaves out the rows whose period ends after the older side's read: data read later is no difference", async () => {
    const days = (last: string) => [
      { 'o.at.day': '2026-03-01T00:00:00.000', 'o.n': '5' },
      { 'o.at.day': '2026-03-02T00:00:00.000', 'o.n': last },
    ];
    gateway((side) =>
      side === 'prod'
        ? { body: { data: days('2'), lastRefreshTime: '2026-03-02T16:00:00.000Z' } }
        : { body: { data: days('7'), lastRefreshTime: '2026-03-02T18:30:00.000Z' } },
    );
    const byDay: KeyQuery = {
      name: 'by day',
      source: 'file',
      query: { measures: ['o.n'], timeDimensions: [{ dimension: 'o.at', granularity: 'day' }], limit: 100 },
    };
    const r = await runDataDiff(ctx(), input([byDay, { ...byDay, name: 'by day in Tokyo', query: { ...byDay.query, timezone: 'Asia/Tokyo' } }]));
    expect(r.queries[0]).toMatchObject({ status: 'unchanged', refreshed: { base: '2026-03-02T16:00:00.000Z', head: '2026-03-02T18:30:00.000Z' } });
    expect(r.queries[0]!.comparison).toMatchObject({ changed: 0, afterRefresh: 1, refreshedAt: '2026-03-02T16:00:00.000Z' });
    // 16:00 UTC is 01:00 on 3 March in Tokyo: the day of 2 March had ended there, so its rows are compared.
    expect(r.queries[1]).toMatchObject({ status: 'changed', comparison: { changed: 1 } });
    expect(r.queries[1]!.comparison!.afterRefresh).toBeUndefined();
    expect(r.refreshed).toEqual({ production: '2026-03-02T16:00:00.000Z', preview: '2026-03-02T18:30:00.000Z' });
  });

  it('sends a compareDateRange query with queryType multi and compares each of its results, range by range', async () => {
    const from = server.requests.length;
    const month = (n: string, at: string) => ({ 'o.at.month': at, 'o.n': n });
    gateway((side, body) => {
      if (body.queryType !== 'multi')
        return { status: 400, body: { error: "'compareDateRangeQuery' query type is not supported by the client.Please update the client." } };
      const late = side === 'prod' ? '4' : '6';
      return {
        body: {
          queryType: 'compareDateRangeQuery',
          results: [
            { data: [month('3', '2025-01-01T00:00:00.000')] },
            { data: [month(late, '2026-01-01T00:00:00.000'), month('1', '2026-02-01T00:00:00.000')] },
          ],
        },
      };
    });
    const compared: KeyQuery = {
      name: 'this year against last',
      source: 'report',
      query: {
        measures: ['o.n'],
        timeDimensions: [{ dimension: 'o.at', granularity: 'month', compareDateRange: ['last year', ['2026-01-01', '2026-02-28']] }],
        limit: 3,
      },
      capped: true,
    };
    const r = await runDataDiff(ctx(), input([compared]));
    expect(loads(from).map((x) => (x.json as LoadBody).queryType)).toEqual(['multi', 'multi']);
    // The cap holds for each result: 2 rows of 3 asked is no truncation, though the ranges hold 3 together.
    expect(r.queries[0]).toMatchObject({ status: 'changed', comparison: { rows: { base: 3, head: 3 }, changed: 1, truncated: false } });
    expect(r.queries[0]!.comparison!.top).toEqual([
      { key: 'compareDateRange = 2026-01-01 – 2026-02-28, at.month = 2026-01', measure: 'o.n', base: 4, head: 6, abs: 2, rel: 0.5 },
    ]);
  });
});
